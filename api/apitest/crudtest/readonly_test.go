package crudtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// readOnlyBeyondCommon are, for every v2 resource written with POST and
// PATCH, the fields its records show that no body writes, beyond
// crudtest.CommonReadOnly: computed ones and the expansions that inline a
// record into it (docs/decisions.md, "POST refuses unknown fields").
// An expansion nested in another (an event's reservations' equipment) is a
// field of that one's records, not of this one.
var readOnlyBeyondCommon = map[string][]string{
	"/events":                 {"equipment_reservations"},
	"/clients":                nil,
	"/crew_members":           nil,
	"/equipment":              {"category"},
	"/equipment_categories":   nil,
	"/vehicles":               nil,
	"/equipment_reservations": {"overbooked", "equipment", "event", "vehicle"},
	"/quotes":                 {"total_amount", "client", "event"},
	"/invoices":               {"total_amount", "client", "event"},
	"/pick_lists":             {"event", "items"},
	"/pick_list_items":        {"equipment"},
	"/webhook_endpoints":      {"previous_secret_expires_at", "failing_since", "created_by_key_id", "secret"},
}

// TestEveryResourceIsListed: every collection of the OpenAPI document with
// a POST and a PATCH of its records is in readOnlyBeyondCommon, so that a
// new resource is checked by TestReadOnlyFields.
func TestEveryResourceIsListed(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.MustJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	for path, ops := range doc.Paths {
		item, ok := doc.Paths[path+"/{id}"]
		if ops["post"] == nil || !ok || item["patch"] == nil {
			continue
		}
		if _, ok := readOnlyBeyondCommon[path]; !ok {
			t.Errorf("%s takes POST and PATCH but is not in readOnlyBeyondCommon", path)
		}
	}
	for path := range readOnlyBeyondCommon {
		if _, ok := doc.Paths[path]; !ok {
			t.Errorf("readOnlyBeyondCommon lists %s, which the document does not", path)
		}
	}
}

// TestReadOnlyFields: on every v2 resource, each common read-only field
// and each field beyond them (an expansion echoed from a GET with ?expand
// among them) is 422 "is read-only" in a POST body and ignored, with an
// ignored_fields warning, in a PATCH body.
func TestReadOnlyFields(t *testing.T) {
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 100_000 }))
	o := env.NewOrg("A")
	made := map[string]string{}
	window := map[string]any{"start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z"}
	with := func(a, b map[string]any) map[string]any {
		out := map[string]any{}
		for _, m := range []map[string]any{a, b} {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	// In order: a body may name the records made before it.
	rows := []struct {
		path   string
		table  string
		create func() map[string]any
	}{
		{"/clients", "clients", func() map[string]any { return map[string]any{"name": "Client"} }},
		{"/events", "events", func() map[string]any {
			return with(window, map[string]any{"name": "Gala", "venue": "Pier 4", "client_id": made["/clients"]})
		}},
		{"/crew_members", "crew_members", func() map[string]any { return map[string]any{"first_name": "Dana", "last_name": "Okafor"} }},
		{"/equipment_categories", "equipment_categories", func() map[string]any { return map[string]any{"name": "Audio"} }},
		{"/equipment", "equipment", func() map[string]any {
			return map[string]any{"name": "Amp", "category_id": made["/equipment_categories"], "stock_quantity": 1000}
		}},
		{"/vehicles", "vehicles", func() map[string]any { return map[string]any{"name": "Truck"} }},
		{"/equipment_reservations", "equipment_reservations", func() map[string]any {
			return with(window, map[string]any{"equipment_id": made["/equipment"], "event_id": made["/events"], "vehicle_id": made["/vehicles"]})
		}},
		{"/quotes", "quotes", func() map[string]any {
			return map[string]any{"title": "Gala", "client_id": made["/clients"], "event_id": made["/events"]}
		}},
		{"/invoices", "invoices", func() map[string]any {
			return map[string]any{"due_date": "2026-07-01", "client_id": made["/clients"], "event_id": made["/events"]}
		}},
		{"/pick_lists", "pick_lists", func() map[string]any { return map[string]any{"name": "Gala", "event_id": made["/events"]} }},
		{"/pick_list_items", "pick_list_items", func() map[string]any {
			return map[string]any{"pick_list_id": made["/pick_lists"], "equipment_id": made["/equipment"]}
		}},
		{"/webhook_endpoints", "webhook_endpoints", func() map[string]any {
			return map[string]any{"url": "https://8.8.8.8/read-only", "enabled_events": []string{"*"}}
		}},
	}
	if len(rows) != len(readOnlyBeyondCommon) {
		t.Fatalf("%d resources made, readOnlyBeyondCommon lists %d", len(rows), len(readOnlyBeyondCommon))
	}
	for _, row := range rows {
		path := "/api/v2" + row.path
		fields, ok := readOnlyBeyondCommon[row.path]
		if !ok {
			t.Fatalf("%s is not in readOnlyBeyondCommon", row.path)
		}
		res := o.Post(path, row.create())
		if res.Status != 201 {
			t.Fatalf("POST %s: %d %s", path, res.Status, res.Body)
		}
		made[row.path] = res.Data()["id"].(string)
		t.Run(strings.TrimPrefix(row.path, "/"), func(t *testing.T) {
			crudtest.ReadOnlyFields(t, env, o, crudtest.ReadOnly{Path: path, Item: path + "/" + made[row.path],
				Table: row.table, Create: row.create(), Fields: fields})
		})
	}
}
