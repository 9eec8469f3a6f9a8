package changes_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestWritesThatChangeNothingLeaveNoChange sends every resource a PATCH of
// the values it already holds: each answers 200 with the record as stored,
// updated_at unmoved, and the feed gains nothing (an integration that writes
// back what a webhook told it must not start a loop). A PATCH that does
// change something still records its change, and so does a document whose
// line items are replaced by equal ones (the lines get new ids).
func TestWritesThatChangeNothingLeaveNoChange(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")

	client := create(t, a, "/api/v2/clients", map[string]any{"name": "Client", "email": "c@client.example"})
	event := create(t, a, "/api/v2/events", map[string]any{"name": "Gala", "client_id": client["id"],
		"start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z", "venue": "Pier 4"})
	crew := create(t, a, "/api/v2/crew_members", map[string]any{"first_name": "Dana", "last_name": "Okafor"})
	cat := create(t, a, "/api/v2/equipment_categories", map[string]any{"name": "Audio", "color": "#1E88E5"})
	eq := create(t, a, "/api/v2/equipment", map[string]any{"name": "Amp", "category_id": cat["id"], "stock_quantity": 4})
	truck := create(t, a, "/api/v2/vehicles", map[string]any{"name": "Truck", "status": "available"})
	res := create(t, a, "/api/v2/equipment_reservations", map[string]any{"equipment_id": eq["id"], "event_id": event["id"],
		"quantity": 2, "start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T20:00:00Z"})
	lines := []any{map[string]any{"description": "Hire", "quantity": 2, "unit_price": 12.5}}
	invoice := create(t, a, "/api/v2/invoices", map[string]any{"title": "Invoice", "due_date": "2026-12-01", "line_items": lines})
	quote := create(t, a, "/api/v2/quotes", map[string]any{"title": "Quote", "event_id": event["id"], "line_items": lines})
	list := create(t, a, "/api/v2/pick_lists", map[string]any{"name": "Stage left"})
	item := create(t, a, "/api/v2/pick_list_items", map[string]any{"pick_list_id": list["id"], "custom_description": "case", "quantity": 3})
	list = get(t, a, "/api/v2/pick_lists/"+list["id"].(string)) // the item moved its updated_at

	same := []struct {
		path string
		body map[string]any
		was  map[string]any // as created
	}{
		{"/api/v2/clients/" + client["id"].(string), map[string]any{"name": "Client", "email": "c@client.example"}, client},
		{"/api/v2/events/" + event["id"].(string), map[string]any{"name": "Gala", "venue": "Pier 4",
			"start_date": "2026-06-01T18:00:00Z", "status": event["status"]}, event},
		{"/api/v2/crew_members/" + crew["id"].(string), map[string]any{"first_name": "Dana"}, crew},
		{"/api/v2/equipment_categories/" + cat["id"].(string), map[string]any{"name": "Audio", "color": "#1E88E5"}, cat},
		{"/api/v2/equipment/" + eq["id"].(string), map[string]any{"name": "Amp", "stock_quantity": 4, "category_id": cat["id"]}, eq},
		{"/api/v2/vehicles/" + truck["id"].(string), map[string]any{"name": "Truck", "status": "available"}, truck},
		{"/api/v2/equipment_reservations/" + res["id"].(string), map[string]any{"quantity": 2, "start_date": "2026-06-01T08:00:00Z"}, res},
		{"/api/v2/invoices/" + invoice["id"].(string), map[string]any{"title": "Invoice", "due_date": "2026-12-01"}, invoice},
		{"/api/v2/quotes/" + quote["id"].(string), map[string]any{"title": "Quote", "status": quote["status"]}, quote},
		{"/api/v2/pick_lists/" + list["id"].(string), map[string]any{"name": "Stage left", "status": list["status"]}, list},
		{"/api/v2/pick_list_items/" + item["id"].(string), map[string]any{"quantity": 3, "custom_description": "case"}, item},
	}
	before := settle(t, a, "", holds(item["id"]))
	for _, s := range same {
		got := patch(t, a, s.path, s.body)
		if got["updated_at"] != s.was["updated_at"] {
			t.Errorf("PATCH %s of the stored values moved updated_at from %v to %v", s.path, s.was["updated_at"], got["updated_at"])
		}
	}
	if now := get(t, a, "/api/v2/pick_lists/"+list["id"].(string)); now["updated_at"] != list["updated_at"] {
		t.Errorf("a PATCH of an item's stored values moved its pick list's updated_at from %v to %v", list["updated_at"], now["updated_at"])
	}

	// Writes that change something still count: a new name, and an
	// invoice's line items replaced by equal ones.
	patch(t, a, "/api/v2/clients/"+client["id"].(string), map[string]any{"name": "Renamed"})
	patch(t, a, "/api/v2/invoices/"+invoice["id"].(string), map[string]any{"line_items": lines})
	marker := create(t, a, "/api/v2/clients", map[string]any{"name": "Marker"})
	after := settle(t, a, "", holds(marker["id"]))
	got := types(after[len(before):])
	want := []string{"client.created", "client.updated", "invoice.updated"} // sorted, as types gives them
	if len(got) != len(want) {
		t.Fatalf("after the PATCHes of stored values and three real writes the feed gained %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("the feed gained %v, want %v", got, want)
		}
	}
}
