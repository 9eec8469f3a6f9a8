package isolation_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// Entries for the booking resources: equipment reservations, quotes,
// invoices, pick lists and pick list items.
func init() {
	register(map[string]Fixture{
		"equipment_reservations": {Table: "equipment_reservations", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/equipment_reservations", reservationBody(t, s, o))
		}},
		"quotes": {Table: "quotes", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/quotes", quoteBody(t, s, o))
		}},
		"invoices": {Table: "invoices", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/invoices", invoiceBody(t, s, o))
		}},
		"pick_lists": {Table: "pick_lists", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/pick_lists", map[string]any{"name": "Pick list"})
		}},
		"pick_list_items": {Table: "pick_list_items", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/pick_list_items", itemBody(t, s, o))
		}},
	}, map[string]Route{
		"GET /api/v2/equipment_reservations":        {Fixture: "equipment_reservations"},
		"POST /api/v2/equipment_reservations":       {Fixture: "equipment_reservations", Body: reservationBody},
		"GET /api/v2/equipment_reservations/:id":    {Fixture: "equipment_reservations"},
		"PATCH /api/v2/equipment_reservations/:id":  {Fixture: "equipment_reservations", Body: rename("notes")},
		"DELETE /api/v2/equipment_reservations/:id": {Fixture: "equipment_reservations"},

		"GET /api/v2/quotes":       {Fixture: "quotes"},
		"POST /api/v2/quotes":      {Fixture: "quotes", Body: quoteBody},
		"GET /api/v2/quotes/:id":   {Fixture: "quotes"},
		"PATCH /api/v2/quotes/:id": {Fixture: "quotes", Body: rename("title")},

		"GET /api/v2/invoices":       {Fixture: "invoices"},
		"POST /api/v2/invoices":      {Fixture: "invoices", Body: invoiceBody},
		"GET /api/v2/invoices/:id":   {Fixture: "invoices"},
		"PATCH /api/v2/invoices/:id": {Fixture: "invoices", Body: rename("notes")},

		"GET /api/v2/pick_lists":       {Fixture: "pick_lists"},
		"POST /api/v2/pick_lists":      {Fixture: "pick_lists", Body: rename("name")},
		"GET /api/v2/pick_lists/:id":   {Fixture: "pick_lists"},
		"PATCH /api/v2/pick_lists/:id": {Fixture: "pick_lists", Body: rename("name")},

		"POST /api/v2/pick_list_items":       {Fixture: "pick_list_items", Body: itemBody},
		"PATCH /api/v2/pick_list_items/:id":  {Fixture: "pick_list_items", Body: rename("notes")},
		"DELETE /api/v2/pick_list_items/:id": {Fixture: "pick_list_items"},
	})
}

// reservationBody reserves the shared equipment (no stock limit) of o.
func reservationBody(t testing.TB, s *Suite, o *apitest.Org) map[string]any {
	return map[string]any{"equipment_id": s.Shared(t, "equipment", o),
		"start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T20:00:00Z"}
}

func quoteBody(testing.TB, *Suite, *apitest.Org) map[string]any {
	return map[string]any{"title": "Quote", "line_items": []any{
		map[string]any{"description": "Labour", "quantity": 3, "unit_price": 45.5}}}
}

func invoiceBody(testing.TB, *Suite, *apitest.Org) map[string]any {
	return map[string]any{"title": "Invoice", "due_date": "2026-12-01"}
}

func itemBody(t testing.TB, s *Suite, o *apitest.Org) map[string]any {
	return map[string]any{"pick_list_id": s.Shared(t, "pick_lists", o), "custom_description": "Cable trunk"}
}
