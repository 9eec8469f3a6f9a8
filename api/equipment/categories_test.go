package equipment_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
)

func TestCategoryLifecycle(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	rec := crudtest.Lifecycle{
		Path:     categories,
		Create:   map[string]any{"name": "Lighting", "color": "#FDD835"},
		Defaults: map[string]any{"demo": false},
		Patch:    map[string]any{"name": "Lighting & FX", "color": "#fb8c00"},
	}.Run(t, a)
	crudtest.PatchSemantics(t, env, a, b, crudtest.PatchRules{
		Item:     categories + "/" + rec["id"].(string),
		Table:    "equipment_categories",
		Nullable: []string{"color"},
		NotNull:  []string{"name"},
		Valid:    map[string]any{"name": "Hijacked"},
	})
	t.Run("same name in another organization", func(t *testing.T) {
		if r := b.Post(categories, map[string]any{"name": "LIGHTING & fx"}); r.Status != 201 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("paging", func(t *testing.T) {
		want := crudtest.Walk(t, a, categories, 100, nil)
		for i := range 9 {
			want = append(want, a.Post(categories, map[string]any{"name": "cat " + string(rune('a'+i))}).Data()["id"].(string))
		}
		crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, categories, 2, nil), want)
	})
}

func TestCategoryRejects(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	id := storeCategory(t, env, a, "Audio", ptr("#1E88E5"))
	storeCategory(t, env, a, "Video", nil)
	item := categories + "/" + id
	bad := func(method, p, name, field string, body any) crudtest.Case {
		return crudtest.Case{Name: name, Method: method, Path: p, Body: body, Status: 422, Code: "validation_error", Field: field}
	}
	dup := func(method, p, name string, body any) crudtest.Case {
		return crudtest.Case{Name: name, Method: method, Path: p, Body: body, Status: 409, Code: "duplicate_record", Field: ""}
	}
	cases := []crudtest.Case{
		bad("POST", categories, "missing name", "name", map[string]any{"color": "#FFFFFF"}),
		bad("POST", categories, "name number", "name", map[string]any{"name": 1}),
		bad("POST", categories, "color without #", "color", map[string]any{"name": "x", "color": "1E88E5"}),
		bad("POST", categories, "color short", "color", map[string]any{"name": "x", "color": "#FFF"}),
		bad("POST", categories, "color not hex", "color", map[string]any{"name": "x", "color": "#GGGGGG"}),
		bad("POST", categories, "color name", "color", map[string]any{"name": "x", "color": "blue"}),
		bad("POST", categories, "color eight digits", "color", map[string]any{"name": "x", "color": "#1E88E5FF"}),
		bad("POST", categories, "color number", "color", map[string]any{"name": "x", "color": 0x1E88E5}),
		bad("POST", categories, "name too long", "name", map[string]any{"name": strings.Repeat("n", 101)}),
		bad("PATCH", item, "patch invalid color", "color", map[string]any{"color": "#12345"}),
		bad("PATCH", item, "patch name empty", "name", map[string]any{"name": ""}),
		dup("POST", categories, "duplicate name", map[string]any{"name": "Audio"}),
		dup("POST", categories, "duplicate name other case", map[string]any{"name": "aUdIo"}),
		dup("POST", categories, "duplicate name padded", map[string]any{"name": "  video "}),
		dup("PATCH", item, "patch to a taken name", map[string]any{"name": "VIDEO"}),
		{Name: "patch unknown id", Method: "PATCH", Path: categories + "/" + uuid.NewString(), Body: map[string]any{"name": "x"}, Status: 404, Code: "not_found"},
		bad("GET", item+"?expand=equipment", "detail unknown expand", "expand", nil),
	}
	cases = append(cases, crudtest.BodyCases("POST", categories, "name")...)
	patch := crudtest.BodyCases("PATCH", item, "name")
	for i := range patch {
		patch[i].Name = "patch " + patch[i].Name
	}
	cases = append(cases, patch...)
	storeEquipment(t, env, a, "e1", "")
	storeEquipment(t, env, a, "e2", "")
	cases = append(cases, crudtest.ListCases(categories, crudtest.Cursor(t, a, categories), crudtest.Cursor(t, a, path))...)
	crudtest.Rejects(t, env, a, "equipment_categories", cases)

	t.Run("renaming to its own name in another case", func(t *testing.T) {
		r := a.Patch(item, map[string]any{"name": "AUDIO"})
		if r.Status != 200 || r.Data()["name"] != "AUDIO" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("duplicate names the field", func(t *testing.T) {
		r := a.Post(categories, map[string]any{"name": "video"})
		d, _ := r.JSON()["error"].(map[string]any)["details"].(map[string]any)
		if r.Status != 409 || d["field"] != "name" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}
