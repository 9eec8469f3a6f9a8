package roundtrip_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/platform/config"
)

// resource is one v2 collection with a PATCH operation.
type resource struct {
	// path is the collection, e.g. /api/v2/clients.
	path string
	// create returns a valid create body; deps are the ids made so far.
	create func(deps map[string]string) map[string]any
	// field is the writable field the round trip changes, to value.
	field string
	value any
	// parent, when set, is the collection whose GET carries the record in
	// its items (pick list items have no GET of their own).
	parent string
}

var (
	start = "2026-09-01T10:00:00Z"
	end   = "2026-09-03T10:00:00Z"
	line  = []any{map[string]any{"description": "Stage deck", "quantity": 2, "unit_price": 150}}
)

// resources lists every v2 resource with PATCH, in creation order (later ones
// reference earlier ones through deps, keyed by path).
var resources = []resource{
	{"/api/v2/clients", func(map[string]string) map[string]any { return map[string]any{"name": "Round Trip Co"} }, "notes", "changed", ""},
	{"/api/v2/events", func(d map[string]string) map[string]any {
		return map[string]any{"name": "Gala", "start_date": start, "end_date": end, "venue": "Hall", "client_id": d["/api/v2/clients"]}
	}, "venue", "Other hall", ""},
	{"/api/v2/crew_members", func(map[string]string) map[string]any {
		return map[string]any{"first_name": "Ada", "last_name": "Lovelace"}
	}, "role", "rigger", ""},
	{"/api/v2/equipment_categories", func(map[string]string) map[string]any { return map[string]any{"name": "Audio"} }, "name", "Sound", ""},
	{"/api/v2/equipment", func(d map[string]string) map[string]any {
		return map[string]any{"name": "Mixer", "stock_quantity": 5, "category_id": d["/api/v2/equipment_categories"]}
	}, "model", "X32", ""},
	{"/api/v2/vehicles", func(map[string]string) map[string]any { return map[string]any{"name": "Truck 1"} }, "model", "Actros", ""},
	{"/api/v2/equipment_reservations", func(d map[string]string) map[string]any {
		return map[string]any{"equipment_id": d["/api/v2/equipment"], "event_id": d["/api/v2/events"],
			"vehicle_id": d["/api/v2/vehicles"], "start_date": start, "end_date": end}
	}, "notes", "front left", ""},
	{"/api/v2/quotes", func(d map[string]string) map[string]any {
		return map[string]any{"title": "Gala quote", "client_id": d["/api/v2/clients"], "line_items": line}
	}, "title", "Gala quote v2", ""},
	{"/api/v2/invoices", func(d map[string]string) map[string]any {
		return map[string]any{"due_date": "2026-10-01", "event_id": d["/api/v2/events"], "line_items": line}
	}, "notes", "net 30", ""},
	{"/api/v2/pick_lists", func(d map[string]string) map[string]any {
		return map[string]any{"name": "Gala pull", "event_id": d["/api/v2/events"]}
	}, "notes", "dock B", ""},
	{"/api/v2/pick_list_items", func(d map[string]string) map[string]any {
		return map[string]any{"pick_list_id": d["/api/v2/pick_lists"], "equipment_id": d["/api/v2/equipment"]}
	}, "notes", "fragile", "/api/v2/pick_lists"},
	{"/api/v2/webhook_endpoints", func(map[string]string) map[string]any {
		return map[string]any{"url": "http://127.0.0.1:9/hook", "enabled_events": []any{"quote.approved"}} // no delivery runs
	}, "description", "load planner", ""},
}

// TestEveryPatchOperationHasARoundTrip fails when the document gains a PATCH
// operation that resources does not cover.
func TestEveryPatchOperationHasARoundTrip(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.MustJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, r := range resources {
		covered[strings.TrimPrefix(r.path, "/api/v2")+"/{id}"] = true
	}
	for path, ops := range doc.Paths {
		if _, ok := ops["patch"]; ok && !covered[path] {
			t.Errorf("PATCH %s has no round-trip case in resources", path)
		}
	}
}

func TestRoundTripOnEveryResource(t *testing.T) {
	// The webhook endpoint's URL is a loopback one, allowed as in development.
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.Webhook.AllowPrivate = true }))
	org := env.NewOrg("Round Trip House")
	deps := map[string]string{}
	for _, r := range resources {
		created := org.Post(r.path, r.create(deps))
		if created.Status != 201 {
			t.Fatalf("POST %s: %d %s", r.path, created.Status, created.Body)
		}
		deps[r.path] = created.Data()["id"].(string)
	}
	for _, r := range resources {
		t.Run(strings.TrimPrefix(r.path, "/api/v2/"), func(t *testing.T) {
			item := r.path + "/" + deps[r.path]
			read := func() map[string]any { return get(t, org, r, deps) }
			before := read()
			body := read()
			if _, ok := body[r.field]; !ok {
				t.Fatalf("GET %s has no %s", item, r.field)
			}
			body[r.field] = r.value
			body["not_a_field"] = true // a typo is ignored and reported too

			p := org.Patch(item, body)
			if p.Status != 200 {
				t.Fatalf("PATCH the whole record back: %d %s", p.Status, p.Body)
			}
			if got := p.Data()[r.field]; !reflect.DeepEqual(got, r.value) {
				t.Errorf("PATCH answered %s = %v, want %v", r.field, got, r.value)
			}

			// Only the changed field (and updated_at) moved; the rest is as
			// it was, though the body carried read-only values too.
			after := read()
			for k, v := range before {
				if k == r.field || k == "updated_at" {
					continue
				}
				if k == "line_items" {
					// Sent back, the lines are written again as a new set:
					// the same lines under new ids.
					v, after[k] = withoutIDs(v), withoutIDs(after[k])
				}
				if !reflect.DeepEqual(after[k], v) {
					t.Errorf("%s changed: %v → %v", k, v, after[k])
				}
			}
			if after[r.field] != r.value {
				t.Errorf("GET after PATCH: %s = %v, want %v", r.field, after[r.field], r.value)
			}

			// The warning names the read-only fields and the typo, never a
			// field that was written.
			ignored := ignoredFields(t, p)
			for _, f := range []string{"id", "demo", "created_at", "updated_at", "not_a_field"} {
				if _, has := before[f]; !has && f != "not_a_field" {
					continue // webhook endpoints carry no demo flag
				}
				if !slices.Contains(ignored, f) {
					t.Errorf("warnings omit %s: %v", f, ignored)
				}
			}
			if _, ok := before["line_items"]; ok && !slices.Contains(ignored, "line_items[0].id") {
				t.Errorf("warnings omit the line's read-only id: %v", ignored)
			}
			if slices.Contains(ignored, r.field) {
				t.Errorf("warnings name the written field %s: %v", r.field, ignored)
			}
		})
	}
}

// get reads the record of r as a client would: its own GET, or its entry in
// the parent's items.
func get(t *testing.T, org *apitest.Org, r resource, deps map[string]string) map[string]any {
	t.Helper()
	path := r.path + "/" + deps[r.path]
	if r.parent != "" {
		path = r.parent + "/" + deps[r.parent]
	}
	res := org.Get(path)
	if res.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	if r.parent == "" {
		return res.Data()
	}
	items, _ := res.Data()["items"].([]any)
	for _, it := range items {
		if m, _ := it.(map[string]any); m["id"] == deps[r.path] {
			return m
		}
	}
	t.Fatalf("GET %s: no item %s in %s", path, deps[r.path], res.Body)
	return nil
}

// withoutIDs drops the id of each line of a line_items value.
func withoutIDs(v any) any {
	lines, _ := v.([]any)
	out := make([]any, 0, len(lines))
	for _, l := range lines {
		m := map[string]any{}
		for k, x := range l.(map[string]any) {
			if k != "id" {
				m[k] = x
			}
		}
		out = append(out, m)
	}
	return out
}

// ignoredFields returns details.fields of the response's ignored_fields
// warning (failing when there is none).
func ignoredFields(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	var body struct {
		Warnings []struct {
			Code    string `json:"code"`
			Details struct {
				Fields []string `json:"fields"`
			} `json:"details"`
		} `json:"warnings"`
	}
	r.Decode(t, &body)
	for _, w := range body.Warnings {
		if w.Code == "ignored_fields" {
			if !sort.StringsAreSorted(w.Details.Fields) {
				t.Errorf("ignored fields are not sorted: %v", w.Details.Fields)
			}
			return w.Details.Fields
		}
	}
	t.Fatalf("no ignored_fields warning in %s", r.Body)
	return nil
}

// TestPatchStillRefusesBadWritableFields: leniency covers fields that are not
// written; a writable field with a bad value is still a 422 naming every bad
// field (and only those), nothing is written, and POST still refuses
// read-only and unknown fields.
func TestPatchStillRefusesBadWritableFields(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Strict House")
	c := org.Post("/api/v2/clients", map[string]any{"name": "Strict Co"})
	if c.Status != 201 {
		t.Fatalf("POST: %d %s", c.Status, c.Body)
	}
	item := "/api/v2/clients/" + c.Data()["id"].(string)
	before := org.Get(item).Data()

	body := org.Get(item).Data()
	body["name"], body["email"], body["notes"] = 5, "not-an-email", "would be written"
	p := org.Patch(item, body)
	if p.Status != 422 || p.ErrorCode() != "validation_error" {
		t.Fatalf("PATCH with bad writable fields: %d %s", p.Status, p.Body)
	}
	if got := issueFields(t, p); !slices.Equal(got, []string{"email", "name"}) {
		t.Errorf("bad fields named = %v, want [email name]", got)
	}
	if after := org.Get(item).Data(); !reflect.DeepEqual(after, before) {
		t.Errorf("a refused PATCH wrote: %v → %v", before, after)
	}

	for _, f := range []string{"created_at", "not_a_field"} {
		p := org.Post("/api/v2/clients", map[string]any{"name": "Other Co", f: "x"})
		if p.Status != 422 || !slices.Contains(issueFields(t, p), f) {
			t.Errorf("POST with %s: %d %s", f, p.Status, p.Body)
		}
	}
}

// issueFields returns the sorted details.fields[].field of a validation_error.
func issueFields(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	var body struct {
		Error struct {
			Details struct {
				Fields []struct {
					Field string `json:"field"`
				} `json:"fields"`
			} `json:"details"`
		} `json:"error"`
	}
	r.Decode(t, &body)
	var out []string
	for _, f := range body.Error.Details.Fields {
		out = append(out, f.Field)
	}
	sort.Strings(out)
	return out
}
