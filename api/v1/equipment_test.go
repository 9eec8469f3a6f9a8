package v1_test

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
)

func TestEquipmentList(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	fa, fb := fix(t, env, a), fix(t, env, b)

	audio := fa.category("Audio")
	zebra := fa.equipment(equipment{name: "Zebra Mixer", status: "on_job", brand: ptr("Yamaha"), model: ptr("QL5"),
		serial: ptr("SN-1"), caseTyp: ptr("road_case"), category: &audio,
		length: ptr(48.5), width: ptr(30.0), height: ptr(20.25), weight: ptr(150.0)})
	apple := fa.equipment(equipment{name: "apple light"})
	mic1 := fa.equipment(equipment{name: "Mic"})
	mic2 := fa.equipment(equipment{name: "Mic"})
	cable := fa.equipment(equipment{name: "cable", status: "retired"})
	foreign := fb.equipment(equipment{name: "Aardvark", category: ptr(fb.category("Audio"))})

	mics := []string{mic1, mic2}
	slices.Sort(mics) // equal names: id ascending
	want := append([]string{apple, cable}, append(mics, zebra)...)

	r := get(env, a.Key, "/api/v1/equipment")
	wantStatus(t, r, http.StatusOK)
	if got := ids(r); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v (alphabetical name, then id)", got, want)
	}
	if m := meta(r); m["org_id"] != a.ID.String() || m["page"] != 1.0 || m["total"] != 5.0 || len(m) != 3 {
		t.Fatalf("meta %v", m)
	}
	if r.Header.Get("Deprecation") != "true" || r.Header.Get("Sunset") == "" {
		t.Errorf("deprecation headers missing: %v", r.Header)
	}
	if _, err := http.ParseTime(r.Header.Get("Sunset")); err != nil {
		t.Errorf("Sunset %q is not an HTTP date", r.Header.Get("Sunset"))
	}

	first := r.List()[len(want)-1]
	wantFields := map[string]any{
		"id": zebra, "name": "Zebra Mixer", "model": "QL5", "manufacturer": "Yamaha", "serial_number": "SN-1",
		"category": "Audio", "status": "on_job", "case_length_in": 48.5, "case_width_in": 30.0,
		"case_height_in": 20.25, "weight_lbs": 150.0, "case_type": "road_case", "organization_id": a.ID.String(),
	}
	checkFields(t, first, wantFields, "created_at", "updated_at")
	checkFields(t, r.List()[0], map[string]any{"name": "apple light", "category": nil, "manufacturer": nil,
		"model": nil, "serial_number": nil, "status": "available", "case_length_in": nil, "weight_lbs": nil, "case_type": nil},
		"id", "created_at", "updated_at", "case_width_in", "case_height_in", "organization_id")

	// Org B sees only its own record.
	rb := get(env, b.Key, "/api/v1/equipment")
	if got := ids(rb); !slices.Equal(got, []string{foreign}) || meta(rb)["total"] != 1.0 || meta(rb)["org_id"] != b.ID.String() {
		t.Fatalf("org B list: %s", rb.Body)
	}

	// Paging walks every record once, then ends with an empty page.
	var walked []string
	for page := 1; page <= 3; page++ {
		p := get(env, a.Key, "/api/v1/equipment?limit=2&page="+strconv.Itoa(page))
		wantStatus(t, p, http.StatusOK)
		if meta(p)["page"] != float64(page) || meta(p)["total"] != 5.0 {
			t.Fatalf("page %d meta %v", page, meta(p))
		}
		walked = append(walked, ids(p)...)
	}
	if !slices.Equal(walked, want) {
		t.Fatalf("paged %v, want %v", walked, want)
	}
	for _, path := range []string{"/api/v1/equipment?limit=2&page=4", "/api/v1/equipment?page=2", "/api/v1/equipment?limit=5&page=2"} {
		end := get(env, a.Key, path)
		wantStatus(t, end, http.StatusOK)
		if d, ok := end.JSON()["data"].([]any); !ok || len(d) != 0 || meta(end)["total"] != 5.0 {
			t.Fatalf("%s: want empty data with total 5: %s", path, end.Body)
		}
	}
	if p := get(env, a.Key, "/api/v1/equipment?limit=100"); len(ids(p)) != 5 {
		t.Fatalf("limit=100: %s", p.Body)
	}
}

func TestEquipmentGet(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	cat := fix(t, env, a).category("Lighting")
	id := fix(t, env, a).equipment(equipment{name: "Par 64", brand: ptr("Altman"), category: &cat, caseTyp: ptr("pelican")})
	other := fix(t, env, b).equipment(equipment{name: "B's"})

	r := get(env, a.Key, "/api/v1/equipment/"+id)
	wantStatus(t, r, http.StatusOK)
	checkFields(t, r.Data(), map[string]any{"id": id, "name": "Par 64", "manufacturer": "Altman", "category": "Lighting",
		"case_type": "pelican", "organization_id": a.ID.String()},
		"model", "serial_number", "status", "case_length_in", "case_width_in", "case_height_in", "weight_lbs", "created_at", "updated_at")
	if m := meta(r); len(m) != 1 || m["org_id"] != a.ID.String() {
		t.Fatalf("meta %v", m)
	}
	if r.Header.Get("Deprecation") != "true" || r.Header.Get("Sunset") == "" {
		t.Errorf("deprecation headers missing")
	}

	for name, c := range map[string]struct{ key, path string }{
		"other org's id":        {a.Key, "/api/v1/equipment/" + other},
		"own id from other org": {b.Key, "/api/v1/equipment/" + id},
		"unknown uuid":          {a.Key, "/api/v1/equipment/" + uuid.NewString()},
		"not a uuid":            {a.Key, "/api/v1/equipment/not-a-uuid"},
	} {
		t.Run(name, func(t *testing.T) {
			wantV1Error(t, get(env, c.key, c.path), http.StatusNotFound, "NOT_FOUND")
		})
	}
}

func TestEquipmentPatch(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	cat := fix(t, env, a).category("Video")
	id := fix(t, env, a).equipment(equipment{name: "Projector", status: "maintenance", brand: ptr("Barco"), serial: ptr("P-1"),
		category: &cat, length: ptr(10.0), width: ptr(11.0), height: ptr(12.0), weight: ptr(13.0), caseTyp: ptr("soft_case")})
	path := "/api/v1/equipment/" + id

	read := func() map[string]any { t.Helper(); return readOK(t, env, a.Key, path) }

	ok := []struct {
		name string
		body string
		want map[string]any
	}{
		{"case_length_in", `{"case_length_in": 40}`, map[string]any{"case_length_in": 40.0}},
		{"case_width_in", `{"case_width_in": 22.5}`, map[string]any{"case_width_in": 22.5}},
		{"case_height_in", `{"case_height_in": 0.5}`, map[string]any{"case_height_in": 0.5}},
		{"weight_lbs", `{"weight_lbs": 99.75}`, map[string]any{"weight_lbs": 99.75}},
		{"case_type road_case", `{"case_type": "road_case"}`, map[string]any{"case_type": "road_case"}},
		{"case_type pelican", `{"case_type": "pelican"}`, map[string]any{"case_type": "pelican"}},
		{"case_type soft_case", `{"case_type": "soft_case"}`, map[string]any{"case_type": "soft_case"}},
		{"all five", `{"case_length_in": 1, "case_width_in": 2, "case_height_in": 3, "weight_lbs": 4, "case_type": "road_case"}`,
			map[string]any{"case_length_in": 1.0, "case_width_in": 2.0, "case_height_in": 3.0, "weight_lbs": 4.0, "case_type": "road_case"}},
		{"read-only fields ignored", `{"weight_lbs": 5, "name": "Renamed", "status": "retired", "serial_number": "X", "category": "Other", "manufacturer": "Acme", "id": "` + uuid.NewString() + `"}`,
			map[string]any{"weight_lbs": 5.0}},
	}
	for _, c := range ok {
		t.Run("ok/"+c.name, func(t *testing.T) {
			before := read()
			r := a.Patch(path, c.body)
			wantStatus(t, r, http.StatusOK)
			if m := meta(r); len(m) != 1 || m["org_id"] != a.ID.String() {
				t.Fatalf("meta %v", m)
			}
			got := r.Data()
			for k, v := range before {
				want, changed := c.want[k]
				switch {
				case changed && got[k] != want:
					t.Errorf("%s = %v, want %v", k, got[k], want)
				case !changed && k != "updated_at" && got[k] != v:
					t.Errorf("%s changed from %v to %v", k, v, got[k])
				}
			}
			if !later(got["updated_at"], before["updated_at"]) {
				t.Errorf("updated_at %v not after %v", got["updated_at"], before["updated_at"])
			}
			if after := read(); !equalMaps(after, got) {
				t.Errorf("GET after PATCH %v differs from PATCH response %v", after, got)
			}
		})
	}

	bad := []struct {
		name, body, field string
	}{
		{"zero length", `{"case_length_in": 0}`, "case_length_in"},
		{"negative width", `{"case_width_in": -1}`, "case_width_in"},
		{"string height", `{"case_height_in": "x"}`, "case_height_in"},
		{"null weight", `{"weight_lbs": null}`, "weight_lbs"},
		{"zero weight", `{"weight_lbs": 0}`, "weight_lbs"},
		{"negative weight", `{"weight_lbs": -1}`, "weight_lbs"},
		{"string weight", `{"weight_lbs": "x"}`, "weight_lbs"},
		{"numeric string", `{"weight_lbs": "12"}`, "weight_lbs"},
		{"huge", `{"weight_lbs": 1e400}`, "weight_lbs"},
		{"unknown case_type", `{"case_type": "cardboard"}`, "case_type"},
		{"case_type number", `{"case_type": 3}`, "case_type"},
		{"case_type null", `{"case_type": null}`, "case_type"},
		{"one bad among good", `{"weight_lbs": 5, "case_length_in": -2}`, "case_length_in"},
		{"unknown field", `{"weight_lbs": 5, "weight_lb": 5}`, "weight_lb"},
		{"no writable field", `{}`, "writable field"},
		{"only read-only fields", `{"name": "Renamed", "status": "retired"}`, "writable field"},
		{"array body", `[{"weight_lbs": 5}]`, "body"},
		{"invalid JSON", `{"weight_lbs": `, "JSON"},
		{"empty body", ``, "JSON"},
		{"a name given twice", `{"weight_lbs": 5, "weight_lbs": 6}`, `"weight_lbs" more than once`},
	}
	for _, c := range bad {
		t.Run("bad/"+c.name, func(t *testing.T) {
			before := read()
			r := env.Send(apitest.Request{Method: "PATCH", Path: path, Key: a.Key, Body: []byte(c.body)})
			wantV1Error(t, r, http.StatusBadRequest, "BAD_REQUEST", c.field)
			if after := read(); !equalMaps(before, after) {
				t.Errorf("record changed by a rejected PATCH: %v -> %v", before, after)
			}
		})
	}
	t.Run("both bad fields named", func(t *testing.T) {
		r := a.Patch(path, `{"case_length_in": 0, "case_type": "box"}`)
		wantV1Error(t, r, http.StatusBadRequest, "BAD_REQUEST", "case_length_in", "case_type", "road_case, soft_case, pelican")
	})

	t.Run("isolation", func(t *testing.T) {
		before := read()
		wantV1Error(t, b.Patch(path, `{"weight_lbs": 1}`), http.StatusNotFound, "NOT_FOUND")
		if after := read(); !equalMaps(before, after) {
			t.Errorf("org B changed org A's record")
		}
		own := fix(t, env, b).equipment(equipment{name: "B thing"})
		wantV1Error(t, a.Patch("/api/v1/equipment/"+own, `{"weight_lbs": 1}`), http.StatusNotFound, "NOT_FOUND")
		wantV1Error(t, a.Patch("/api/v1/equipment/"+uuid.NewString(), `{"weight_lbs": 1}`), http.StatusNotFound, "NOT_FOUND")
		wantV1Error(t, a.Patch("/api/v1/equipment/nope", `{"weight_lbs": 1}`), http.StatusNotFound, "NOT_FOUND")
	})
}

// TestEquipmentPatchSendsBackNulls: a record read with GET can be sent back
// with PATCH although some writable fields are null: a null over a stored
// null is a no-op, over a stored value still 400 (docs/v1.md, "PATCH
// /equipment/{id}").
func TestEquipmentPatchSendsBackNulls(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	id := fix(t, env, a).equipment(equipment{name: "12\" box truss", length: ptr(120.0), weight: ptr(40.0)})
	path := "/api/v1/equipment/" + id
	read := func() map[string]any { t.Helper(); return readOK(t, env, a.Key, path) }

	t.Run("unchanged record is a no-op", func(t *testing.T) {
		before := read()
		r := a.Patch(path, before)
		wantStatus(t, r, http.StatusOK)
		if got := r.Data(); !equalMaps(got, before) {
			t.Fatalf("sending back the record read changed it (updated_at included): %v -> %v", before, got)
		}
	})
	for _, c := range []struct {
		name string
		body string
	}{
		{"null case_type alone", `{"case_type": null}`},
		{"every stored null", `{"case_width_in": null, "case_height_in": null, "case_type": null}`},
		{"stored values and nulls", `{"case_length_in": 120, "case_width_in": null, "weight_lbs": 40}`},
	} {
		t.Run("no-op/"+c.name, func(t *testing.T) {
			before := read()
			r := a.Patch(path, c.body)
			wantStatus(t, r, http.StatusOK)
			if got := r.Data(); !equalMaps(got, before) {
				t.Fatalf("a PATCH of stored values and nulls changed the record: %v -> %v", before, got)
			}
		})
	}
	t.Run("one dimension changed", func(t *testing.T) {
		before := read()
		sent := maps.Clone(before)
		sent["weight_lbs"] = 44.0
		r := a.Patch(path, sent)
		wantStatus(t, r, http.StatusOK)
		got := r.Data()
		for _, f := range []string{"case_width_in", "case_height_in", "case_type"} {
			if got[f] != nil {
				t.Errorf("%s = %v, want it still null", f, got[f])
			}
		}
		if got["weight_lbs"] != 44.0 || got["case_length_in"] != 120.0 || !later(got["updated_at"], before["updated_at"]) {
			t.Fatalf("want weight_lbs 44, case_length_in 120 and a later updated_at: %v", got)
		}
	})

	bad := []struct{ name, body string }{
		{"null over a stored weight", `{"weight_lbs": null}`},
		{"null over a stored weight beside stored nulls", `{"weight_lbs": null, "case_type": null, "case_width_in": null}`},
	}
	for _, c := range bad {
		t.Run("bad/"+c.name, func(t *testing.T) {
			before := read()
			wantV1Error(t, a.Patch(path, c.body), http.StatusBadRequest, "BAD_REQUEST",
				"weight_lbs: cannot be cleared through v1 (null over a stored value): leave it out, or clear it with v2")
			if after := read(); !equalMaps(before, after) {
				t.Errorf("record changed by a rejected PATCH: %v -> %v", before, after)
			}
		})
	}
	t.Run("every bad field named", func(t *testing.T) {
		r := a.Patch(path, `{"weight_lbs": null, "case_length_in": null, "case_width_in": -1, "case_type": null}`)
		wantV1Error(t, r, http.StatusBadRequest, "BAD_REQUEST", "weight_lbs", "case_length_in", "case_width_in")
		if msg := r.JSON()["error"].(map[string]any)["message"].(string); strings.Contains(msg, "case_type") {
			t.Errorf("message %q names case_type, which is stored null", msg)
		}
	})
	t.Run("unknown or foreign id", func(t *testing.T) {
		wantV1Error(t, b.Patch(path, `{"case_type": null}`), http.StatusNotFound, "NOT_FOUND")
		wantV1Error(t, a.Patch("/api/v1/equipment/"+uuid.NewString(), `{"case_type": null, "weight_lbs": 0}`),
			http.StatusNotFound, "NOT_FOUND")
	})
}

// checkFields asserts exact values for want and presence for the rest, and
// that the record has no other fields.
func checkFields(t *testing.T, got map[string]any, want map[string]any, present ...string) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	for _, k := range present {
		if _, ok := got[k]; !ok {
			t.Errorf("field %s missing", k)
		}
	}
	if len(got) != len(want)+len(present) {
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		t.Errorf("fields %s, want exactly %d", strings.Join(keys, ","), len(want)+len(present))
	}
	for _, k := range []string{"created_at", "updated_at"} {
		if s, ok := got[k].(string); ok {
			if ts, err := time.Parse(time.RFC3339Nano, s); err != nil || !strings.HasSuffix(s, "Z") || ts.IsZero() {
				t.Errorf("%s %q is not RFC 3339 UTC", k, s)
			}
		}
	}
}

func later(a, b any) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a.(string))
	tb, err2 := time.Parse(time.RFC3339Nano, b.(string))
	return err1 == nil && err2 == nil && ta.After(tb)
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestListsAreAlphabetical: v1 orders names by letter first, then accent,
// then case (docs/v1.md, "Ordering"), whatever the database's collation:
// accented names sort among their letters, not after "z" as in code point
// order, and identical names go by id.
func TestListsAreAlphabetical(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	fa := fix(t, env, a)
	var want []string
	for _, name := range []string{"Äpfel", "apple", "Apple", "Bühne", "bumper", "Éclairage", "eclipse", "Öl", "zulu"} {
		want = append(want, fa.equipment(equipment{name: name}))
	}
	// Created in an order that is not the answer's.
	dup1, dup2 := fa.equipment(equipment{name: "Mic"}), fa.equipment(equipment{name: "Mic"})
	dups := []string{dup1, dup2}
	slices.Sort(dups)
	want = slices.Insert(want, 7, dups...) // after "eclipse", before "Öl"
	r := get(env, a.Key, "/api/v1/equipment?limit=100")
	wantStatus(t, r, http.StatusOK)
	if got := ids(r); !slices.Equal(got, want) {
		t.Fatalf("equipment order %v, want %v: %s", ids(r), want, r.Body)
	}

	var crew []string
	for _, n := range [][2]string{{"Zoë", "Ådams"}, {"ann", "adams"}, {"Ann", "Adams"}, {"Émile", "Baker"}, {"Ole", "Ørsted"}, {"Jo", "Smith"}} {
		crew = append(crew, fa.crew(n[0], n[1], nil, nil, nil))
	}
	// By last name first: "adams", "Adams", then "Ådams" (accent before case
	// only within equal letters), whatever the first names.
	wantCrew := []string{crew[1], crew[2], crew[0], crew[3], crew[4], crew[5]}
	rc := get(env, a.Key, "/api/v1/crew?limit=100")
	wantStatus(t, rc, http.StatusOK)
	if got := ids(rc); !slices.Equal(got, wantCrew) {
		t.Fatalf("crew order %v, want %v: %s", ids(rc), wantCrew, rc.Body)
	}
}

// readOK GETs path with key and returns the record, failing unless 200.
func readOK(t *testing.T, env *apitest.Env, key, path string) map[string]any {
	t.Helper()
	r := get(env, key, path)
	wantStatus(t, r, http.StatusOK)
	return r.Data()
}
