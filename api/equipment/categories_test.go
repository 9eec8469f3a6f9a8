package equipment_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/platform/errs"
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

// TestCategoryNameClashNamesTheHolder: a taken name is 409 with the holder in
// details.existing_id, found by the check before the write and, when a
// concurrent write took the name after the check, read after the unique
// index refused the write (the store's write is called here without the
// check, also inside a transaction). Another organization's category of the same name is never
// named.
func TestCategoryNameClashNamesTheHolder(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	storeCategory(t, env, b, "Audio", nil)
	audio := storeCategory(t, env, a, "Audio", nil)
	video := storeCategory(t, env, a, "Video", nil)
	for _, c := range []struct{ method, path, name string }{
		{"POST", categories, "aUdIo"},
		{"PATCH", categories + "/" + video, "AUDIO"},
		// Invisible characters at the ends are trimmed like spaces.
		{"POST", categories, "\ufeffAudio"},
		{"POST", categories, "Audio\u200b"},
	} {
		r := a.Do(c.method, c.path, map[string]any{"name": c.name})
		if r.Status != 409 || r.ErrorCode() != "duplicate_record" || r.ErrorDetails()["existing_id"] != audio {
			t.Errorf("%s %s to a taken name: %d %s, want 409 duplicate_record with existing_id %s", c.method, c.path, r.Status, r.Body, audio)
		}
	}

	// An unknown or another organization's id is 404, never a clash with
	// one's own category of that name.
	foreign := storeCategory(t, env, b, "Lights", nil)
	for _, id := range []string{uuid.NewString(), foreign} {
		if r := a.Patch(categories+"/"+id, map[string]any{"name": "Audio"}); r.Status != 404 || r.ErrorCode() != "not_found" {
			t.Errorf("PATCH %s to a name A holds: %d %s, want 404", id, r.Status, r.Body)
		}
	}

	// Past the check (a concurrent write took the name): the store's write
	// itself names the holder, on the pool and inside a transaction, where
	// the refused statement must not leave the transaction unusable for
	// the lookup (an Idempotency-Key request's).
	ctx := context.Background()
	named := func() storage.Changes {
		var ch storage.Changes
		ch.Set("name", "audio")
		return ch
	}
	writes := []struct {
		what  string
		write func(db bun.IDB) error
	}{
		{"create", func(db bun.IDB) error {
			_, err := equipment.CreateCategory(ctx, db, a.Tenant(), named())
			return err
		}},
		{"update", func(db bun.IDB) error {
			_, err := equipment.UpdateCategory(ctx, db, a.OrgID(), uuid.MustParse(video), named())
			return err
		}},
	}
	for _, w := range writes {
		for _, inTx := range []bool{false, true} {
			var err error
			if inTx {
				_ = env.Svc.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
					err = w.write(tx)
					return errors.New("roll back")
				})
			} else {
				err = w.write(env.Svc.DB)
			}
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.DuplicateRecord {
				t.Fatalf("%s past the check (in a transaction: %t): %v, want duplicate_record", w.what, inTx, err)
			}
			if d, _ := e.Details.(map[string]any); d["existing_id"] != uuid.MustParse(audio) {
				t.Errorf("%s past the check (in a transaction: %t): details %v, want existing_id %s", w.what, inTx, e.Details, audio)
			}
		}
	}
}
