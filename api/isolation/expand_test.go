package isolation_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestExpansionScopes: every ?expand value needs a read scope of the object
// type it inlines, the one(s) that type's GET route requires. A key lacking
// it gets 403 insufficient_scope with details.required listing them; a key
// holding it gets 200 with the records inlined. An expansion that takes no
// effect (nested in one not asked for) inlines nothing and needs no scope.
// Live and test keys alike.
func TestExpansionScopes(t *testing.T) {
	s := newSuite(t)
	a := s.A
	client := s.Make(t, "clients", a)
	event := s.Create(t, a, "/api/v2/events", map[string]any{"name": "Gala", "start_date": "2026-06-01T18:00:00Z",
		"end_date": "2026-06-02T02:00:00Z", "venue": "Pier 4", "client_id": client})
	equipment := s.Make(t, "equipment", a)
	vehicle := s.Make(t, "vehicles", a)
	reservation := s.Create(t, a, "/api/v2/equipment_reservations", map[string]any{"equipment_id": equipment,
		"event_id": event, "vehicle_id": vehicle, "start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T20:00:00Z"})
	quote := s.Create(t, a, "/api/v2/quotes", map[string]any{"title": "Quote", "client_id": client, "event_id": event,
		"line_items": []any{map[string]any{"description": "Labour", "quantity": 3, "unit_price": 45.5}}})
	invoice := s.Create(t, a, "/api/v2/invoices", map[string]any{"title": "Invoice", "due_date": "2026-12-01",
		"client_id": client, "event_id": event})
	pickList := s.Create(t, a, "/api/v2/pick_lists", map[string]any{"name": "Pick list", "event_id": event})
	s.Create(t, a, "/api/v2/pick_list_items", map[string]any{"pick_list_id": pickList, "equipment_id": equipment})

	const (
		ev  = tenancy.EventsRead
		eq  = tenancy.EquipmentRead
		res = tenancy.EquipmentReservationsRead
		pl  = tenancy.PickListsRead
	)
	type sc = []tenancy.Scope
	cases := []struct {
		path, expand string
		// lacking gets 403 with required; holding gets 200 with present set.
		lacking, holding sc
		required         []string
		present          string
	}{
		{"/api/v2/events/" + event, "equipment_reservations", sc{ev}, sc{ev, res}, []string{"equipment_reservations:read"}, "equipment_reservations.0"},
		{"/api/v2/events/" + event, "equipment_reservations,equipment", sc{ev, res}, sc{ev, res, eq}, []string{"equipment:read"}, "equipment_reservations.0.equipment.id"},
		{"/api/v2/events/" + event, "equipment_reservations,vehicle", sc{ev, eq}, sc{ev, res}, []string{"equipment_reservations:read"}, "equipment_reservations.0.vehicle.id"},
		{"/api/v2/jobs/" + event, "equipment_reservations,equipment,vehicle", sc{tenancy.JobsRead, res}, sc{tenancy.JobsRead, res, eq}, []string{"equipment:read"}, "equipment_reservations.0.equipment.id"},

		{"/api/v2/equipment_reservations/" + reservation, "equipment", sc{res}, sc{res, eq}, []string{"equipment:read"}, "equipment.id"},
		{"/api/v2/equipment_reservations/" + reservation, "event", sc{res}, sc{res, tenancy.JobsRead}, []string{"events:read", "jobs:read"}, "event.id"},
		{"/api/v2/equipment_reservations/" + reservation, "vehicle", nil, sc{res}, nil, "vehicle.id"},
		{"/api/v2/equipment_reservations", "equipment", sc{res}, sc{res, eq}, []string{"equipment:read"}, "0.equipment.id"},

		{"/api/v2/equipment/" + equipment, "category", nil, sc{eq}, nil, "category.id"},
		{"/api/v2/equipment", "category", nil, sc{eq}, nil, "0.category.id"},

		{"/api/v2/quotes/" + quote, "client", sc{tenancy.QuotesRead, ev}, sc{tenancy.QuotesRead, tenancy.ClientsRead}, []string{"clients:read"}, "client.id"},
		{"/api/v2/quotes/" + quote, "event", sc{tenancy.QuotesRead}, sc{tenancy.QuotesRead, ev}, []string{"events:read", "jobs:read"}, "event.id"},
		{"/api/v2/quotes", "client", sc{tenancy.QuotesRead}, sc{tenancy.QuotesRead, tenancy.ClientsRead}, []string{"clients:read"}, "0.client.id"},
		{"/api/v2/invoices/" + invoice, "client", sc{tenancy.InvoicesRead}, sc{tenancy.InvoicesRead, tenancy.ClientsRead}, []string{"clients:read"}, "client.id"},
		{"/api/v2/invoices", "event", sc{tenancy.InvoicesRead}, sc{tenancy.InvoicesRead, tenancy.JobsRead}, []string{"events:read", "jobs:read"}, "0.event.id"},

		{"/api/v2/pick_lists/" + pickList, "event", sc{pl}, sc{pl, ev}, []string{"events:read", "jobs:read"}, "event.id"},
		{"/api/v2/pick_lists/" + pickList, "items", nil, sc{pl}, nil, "items.0"},
		{"/api/v2/pick_lists/" + pickList, "items,equipment", sc{pl}, sc{pl, eq}, []string{"equipment:read"}, "items.0.equipment.id"},
		{"/api/v2/pick_lists/" + pickList, "items,equipment,category", sc{ev}, sc{ev, eq}, []string{"equipment:read"}, "items.0.equipment.category.id"},
		{"/api/v2/pick_lists", "items,equipment", sc{pl}, sc{pl, eq}, []string{"equipment:read"}, "0.items.0.equipment.id"},
		// The detail always carries its items, so equipment takes effect alone.
		{"/api/v2/pick_lists/" + pickList, "equipment", sc{pl}, sc{pl, eq}, []string{"equipment:read"}, "items.0.equipment.id"},
		// A vehicle's load inlines its reservations' records as they do (by
		// event_id, which needs an event read scope of its own).
		{"/api/v2/vehicles/" + vehicle + "/load?event_id=" + event, "equipment", sc{res, ev}, sc{res, ev, eq}, []string{"equipment:read"}, "reservations.0.equipment.id"},
		{"/api/v2/vehicles/" + vehicle + "/load?event_id=" + event, "event", sc{res}, sc{res, ev}, []string{"events:read", "jobs:read"}, "reservations.0.event.id"},
	}
	// Expansions that take no effect, asked for by a key without their
	// scopes: 200, and absent is not inlined.
	noEffect := []struct{ path, expand, absent string }{
		{"/api/v2/pick_lists", "equipment,category", "0.items"},
		{"/api/v2/pick_lists", "items,category", "0.items.0.equipment"},
		{"/api/v2/pick_lists/" + pickList, "category", "items.0.equipment"},
		{"/api/v2/events/" + event, "equipment,vehicle", "equipment_reservations"},
	}
	for _, mode := range []apikey.Mode{apikey.Live, apikey.Test} {
		for _, tc := range noEffect {
			path := tc.path + "?expand=" + tc.expand
			res := a.WithKey(mode, pl, ev).Get(path)
			if res.Status != http.StatusOK || present(res.JSON()["data"], tc.absent) {
				t.Errorf("%s key GET %s: %d %s, want 200 without %s", mode, path, res.Status, res.Body, tc.absent)
			}
		}
		for _, tc := range cases {
			sep := "?"
			if strings.Contains(tc.path, "?") {
				sep = "&"
			}
			path := tc.path + sep + "expand=" + tc.expand
			if tc.lacking != nil {
				res := a.WithKey(mode, tc.lacking...).Get(path)
				want := slices.Clone(tc.required)
				slices.Sort(want)
				if res.Status != http.StatusForbidden || res.ErrorCode() != "insufficient_scope" ||
					!slices.Equal(res.RequiredScopes(), want) {
					t.Errorf("%s key %v GET %s: %d %s, want 403 insufficient_scope requiring %v", mode, tc.lacking, path,
						res.Status, res.Body, tc.required)
				}
			}
			if tc.holding != nil {
				res := a.WithKey(mode, tc.holding...).Get(path)
				if res.Status != http.StatusOK || !present(res.JSON()["data"], tc.present) {
					t.Errorf("%s key %v GET %s: %d %s, want 200 with %s", mode, tc.holding, path, res.Status, res.Body, tc.present)
				}
			}
		}
	}
}

// present reports whether the dotted path (map keys, list indexes) leads to
// a non-null value in v.
func present(v any, path string) bool {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return v != nil
}
