package equipment_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/equipment"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestEquipmentLifecycle(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	audio := storeCategory(t, env, a, "Audio", ptr("#1E88E5"))
	lighting := storeCategory(t, env, a, "Lighting", ptr("#FDD835"))
	rec := crudtest.Lifecycle{
		Path: path,
		Create: map[string]any{
			"name": "K2 line array", "brand": "L-Acoustics", "model": "K2", "serial_number": "LA-K2-0042",
			"category_id": audio, "stock_quantity": 24, "daily_rate": 450.5, "case_length_in": 53.5, "case_width_in": 27.2,
			"case_height_in": 21, "weight_lbs": 123.5, "case_type": "road_case",
		},
		Defaults: map[string]any{"status": "available", "demo": false},
		Patch: map[string]any{
			"name": "K2 line array (flown)", "category_id": lighting, "stock_quantity": 0, "daily_rate": 1234567.89,
			"weight_lbs": 130, "status": "maintenance", "case_type": "pelican",
		},
	}.Run(t, a)
	crudtest.PatchSemantics(t, env, a, b, crudtest.PatchRules{
		Item:  path + "/" + rec["id"].(string),
		Table: "equipment",
		Nullable: []string{"brand", "model", "serial_number", "category_id", "stock_quantity", "daily_rate",
			"case_length_in", "case_width_in", "case_height_in", "weight_lbs", "case_type"},
		NotNull: []string{"name", "status"},
		Valid:   map[string]any{"name": "Hijacked"},
	})
}

// TestDailyRateIsExact: money goes in and out with exactly two decimals.
func TestDailyRateIsExact(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	for _, rate := range []string{"0", "0.1", "19.99", "0.30", "1234567.89", "9999999999.99", "70.07"} {
		r := a.Post(path, fmt.Sprintf(`{"name": "item", "daily_rate": %s}`, rate))
		if r.Status != 201 {
			t.Fatalf("daily_rate %s: %d %s", rate, r.Status, r.Body)
		}
		want, _ := rest.ParseObject([]byte(fmt.Sprintf(`{"x": %s}`, rate)))
		wantAmount := want.Money("x", rest.Rule{}).Value
		if !strings.Contains(string(r.Body), `"daily_rate":`+wantAmount.String()+`,`) {
			t.Errorf("daily_rate %s: body %s does not carry %s", rate, r.Body, wantAmount)
		}
	}
}

func TestCategoryFilterAndExpand(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	audio := storeCategory(t, env, a, "Audio", ptr("#1E88E5"))
	video := storeCategory(t, env, a, "Video Walls", nil)
	bAudio := storeCategory(t, env, b, "Audio", ptr("#000000"))
	var inAudio, inVideo, all []string
	for i := range 5 {
		id := storeEquipment(t, env, a, fmt.Sprintf("speaker %d", i), audio)
		inAudio, all = append(inAudio, id), append(all, id)
		id = storeEquipment(t, env, a, fmt.Sprintf("panel %d", i), video)
		inVideo, all = append(inVideo, id), append(all, id)
		storeEquipment(t, env, b, "b speaker", bAudio)
	}
	none := storeEquipment(t, env, a, "cable", "")
	all = append(all, none)

	tests := []struct {
		category string
		want     []string
	}{
		{audio, inAudio},
		{"Audio", inAudio},
		{"aUDIO", inAudio},
		{"video walls", inVideo},
		{video, inVideo},
		{"Video", nil},
		{"Audi", nil},
		{bAudio, nil},
		{uuid.NewString(), nil},
		{"%", nil},
		// Free-text filters are trimmed: white space alone is no filter,
		// like an empty value.
		{" Audio ", inAudio},
		{"   ", all},
	}
	for _, tt := range tests {
		got := crudtest.Walk(t, a, path+"?category="+url.QueryEscape(tt.category), 3, nil)
		if len(got) != len(tt.want) {
			t.Errorf("category=%q: got %d items, want %d", tt.category, len(got), len(tt.want))
			continue
		}
		crudtest.AssertExactlyOnce(t, got, tt.want)
	}
	crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, path, 4, nil), all)
	// A cursor goes on with the same category spelled otherwise, and a
	// name copied with an invisible character finds it.
	crudtest.CursorsSurviveSpelling(t, a, path, "category", "audio", "Audio", " AUDIO", "\ufeffaudio")
	crudtest.CursorsSurviveSpelling(t, a, path, "category", audio, strings.ToUpper(audio))
	if got := crudtest.Walk(t, a, path+"?category="+url.QueryEscape("\ufeffAudio\u200b"), 3, nil); len(got) != len(inAudio) {
		t.Errorf("category with a byte order mark and a zero-width space: %d items, want %d", len(got), len(inAudio))
	}

	audioRef := map[string]any{"id": audio, "name": "Audio", "color": "#1E88E5"}
	videoRef := map[string]any{"id": video, "name": "Video Walls", "color": nil}
	t.Run("expand on list", func(t *testing.T) {
		r := a.Get(path + "?limit=100&expand=category")
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		for _, it := range r.List() {
			cat, present := it["category"]
			switch {
			case !present:
				t.Errorf("%v: no category key", it["name"])
			case it["category_id"] == nil && cat != nil:
				t.Errorf("%v: category %v, want null", it["name"], cat)
			case it["category_id"] == audio && !crudtest.Same(cat, audioRef):
				t.Errorf("%v: category %v, want %v", it["name"], cat, audioRef)
			case it["category_id"] == video && !crudtest.Same(cat, videoRef):
				t.Errorf("%v: category %v, want %v", it["name"], cat, videoRef)
			}
		}
		plain := a.Get(path + "?limit=100")
		for _, it := range plain.List() {
			if _, present := it["category"]; present {
				t.Fatalf("category inlined without expand: %v", it)
			}
		}
	})
	t.Run("expand on detail", func(t *testing.T) {
		r := a.Get(path + "/" + inAudio[0] + "?expand=category")
		if r.Status != 200 || !crudtest.Same(r.Data()["category"], audioRef) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		r = a.Get(path + "/" + none + "?expand=category")
		if v, present := r.Data()["category"]; r.Status != 200 || !present || v != nil {
			t.Fatalf("no category: %d %s", r.Status, r.Body)
		}
		if r := a.Get(path + "/" + inAudio[0]); r.Status != 200 {
			t.Fatal(r.Status)
		} else if _, present := r.Data()["category"]; present {
			t.Fatalf("category inlined without expand: %s", r.Body)
		}
	})
	t.Run("expand with a filter", func(t *testing.T) {
		r := a.Get(path + "?category=audio&expand=category")
		if r.Status != 200 || len(r.List()) != len(inAudio) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("one query for the whole page", func(t *testing.T) {
		items, err := equipment.List(context.Background(), env.Svc.DB, a.OrgID(), storage.PageRequest{Limit: 100}, equipment.ListFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var n queryCounter
		expanded, err := equipment.Expand(context.Background(), env.Svc.DB.WithQueryHook(&n), a.OrgID(), items.Items)
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 || len(expanded) != len(all) {
			t.Fatalf("Expand of %d items ran %d queries, want 1", len(expanded), n)
		}
	})
}

type queryCounter int

func (c *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	*c++
	return ctx
}

func (c *queryCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

func TestEquipmentPaging(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	cat := storeCategory(t, env, a, "Rigging", nil)
	var want []string
	for i := range 30 {
		want = append(want, storeEquipment(t, env, a, fmt.Sprintf("motor %d", i), cat))
		storeEquipment(t, env, b, "other", "")
	}
	n := 30
	got := crudtest.Walk(t, a, path+"?category=rigging&expand=category", 7, func(int) {
		want = append(want, storeEquipment(t, env, a, fmt.Sprintf("motor %d", n), cat))
		storeEquipment(t, env, a, "uncategorised", "")
		n++
	})
	crudtest.AssertExactlyOnce(t, got, want)
}

func TestEquipmentScopes(t *testing.T) {
	env := apitest.New(t)
	tests := []struct {
		scope  tenancy.Scope
		method string
		path   string
		want   int
	}{
		{tenancy.EquipmentRead, "GET", path, 200},
		{tenancy.EquipmentRead, "GET", path + "/{id}", 200},
		{tenancy.EquipmentRead, "GET", categories, 200},
		{tenancy.EquipmentRead, "GET", categories + "/{cat}", 200},
		{tenancy.EquipmentRead, "POST", path, 403},
		{tenancy.EquipmentRead, "PATCH", path + "/{id}", 403},
		{tenancy.EquipmentRead, "POST", categories, 403},
		{tenancy.EquipmentRead, "PATCH", categories + "/{cat}", 403},
		{tenancy.EquipmentWrite, "GET", path, 403},
		{tenancy.EquipmentWrite, "GET", categories, 403},
		// A PATCH answers the record: it needs the read scope too.
		{tenancy.EquipmentWrite, "PATCH", path + "/{id}", 403},
		{tenancy.EquipmentWrite, "PATCH", categories + "/{cat}", 403},
		{tenancy.EquipmentReservationsRead, "GET", path, 403},
	}
	for _, tt := range tests {
		o := env.NewOrgWithKey("S", apikey.Live, tt.scope)
		cat := storeCategory(t, env, o, "c", nil)
		id := storeEquipment(t, env, o, "e", cat)
		p := strings.NewReplacer("{id}", id, "{cat}", cat).Replace(tt.path)
		r := o.Do(tt.method, p, map[string]any{})
		if r.Status != tt.want || (tt.want == 403 && r.ErrorCode() != "insufficient_scope") {
			t.Errorf("%s %s with %s: %d %s, want %d", tt.method, tt.path, tt.scope, r.Status, r.ErrorCode(), tt.want)
		}
	}
}

func TestEquipmentRejects(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	foreignCat := storeCategory(t, env, b, "Audio", nil)
	id := storeEquipment(t, env, a, "one", "")
	storeEquipment(t, env, a, "two", "")
	item := path + "/" + id
	bad := func(method, p, name, field string, body any) crudtest.Case {
		return crudtest.Case{Name: name, Method: method, Path: p, Body: body, Status: 422, Code: "validation_error", Field: field}
	}
	with := func(k string, v any) map[string]any { return map[string]any{"name": "item", k: v} }
	cases := []crudtest.Case{
		bad("POST", path, "missing name", "name", map[string]any{"brand": "d&b"}),
		bad("POST", path, "empty body", "name", map[string]any{}),
		bad("POST", path, "name array", "name", map[string]any{"name": []int{1}}),
		bad("POST", path, "category of another org", "category_id", with("category_id", foreignCat)),
		bad("POST", path, "category unknown", "category_id", with("category_id", uuid.NewString())),
		bad("POST", path, "category not uuid", "category_id", with("category_id", "Audio")),
		bad("POST", path, "stock negative", "stock_quantity", with("stock_quantity", -1)),
		bad("POST", path, "stock fraction", "stock_quantity", with("stock_quantity", 1.5)),
		bad("POST", path, "stock string", "stock_quantity", with("stock_quantity", "4")),
		bad("POST", path, "daily_rate negative", "daily_rate", with("daily_rate", -10)),
		bad("POST", path, "daily_rate 3 decimals", "daily_rate", with("daily_rate", 10.005)),
		bad("POST", path, "daily_rate string", "daily_rate", with("daily_rate", "10.00")),
		bad("POST", path, "daily_rate too large", "daily_rate", with("daily_rate", 1e13)),
		bad("POST", path, "length zero", "case_length_in", with("case_length_in", 0)),
		bad("POST", path, "width negative", "case_width_in", with("case_width_in", -2)),
		bad("POST", path, "height string", "case_height_in", with("case_height_in", "20")),
		bad("POST", path, "weight boolean", "weight_lbs", with("weight_lbs", true)),
		bad("POST", path, "unknown case_type", "case_type", with("case_type", "cardboard")),
		bad("POST", path, "unknown status", "status", with("status", "lost")),
		bad("POST", path, "status null", "status", with("status", nil)),
		bad("POST", path, "100 kB brand", "brand", with("brand", strings.Repeat("b", 100<<10))),
		bad("PATCH", item, "patch category of another org", "category_id", map[string]any{"category_id": foreignCat}),
		bad("PATCH", item, "patch unknown status", "status", map[string]any{"status": "broken"}),
		bad("PATCH", item, "patch weight zero", "weight_lbs", map[string]any{"weight_lbs": 0}),
		bad("PATCH", item, "patch name empty", "name", map[string]any{"name": ""}),
		{Name: "patch unknown id", Method: "PATCH", Path: path + "/" + uuid.NewString(), Body: map[string]any{"name": "x"}, Status: 404, Code: "not_found"},
		{Name: "patch unknown id with an unknown category", Method: "PATCH", Path: path + "/" + uuid.NewString(),
			Body: map[string]any{"category_id": uuid.NewString()}, Status: 404, Code: "not_found"},
		bad("GET", path+"?category="+strings.Repeat("c", 201), "category too long", "category", nil),
		bad("GET", item+"?expand=categories", "detail unknown expand", "expand", nil),
		bad("GET", path+"?expand=category,event", "list unknown expand beside a known one", "expand", nil),
	}
	cases = append(cases, crudtest.BodyCases("POST", path, "name")...)
	patch := crudtest.BodyCases("PATCH", item, "serial_number")
	for i := range patch {
		patch[i].Name = "patch " + patch[i].Name
	}
	cases = append(cases, patch...)
	storeCategory(t, env, a, "c1", nil)
	storeCategory(t, env, a, "c2", nil)
	cases = append(cases, crudtest.ListCases(path, crudtest.Cursor(t, a, path), crudtest.Cursor(t, a, categories))...)
	crudtest.Rejects(t, env, a, "equipment", cases)
}
