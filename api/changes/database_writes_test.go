package changes_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestDeletionsInTheDatabaseAreRecordedAsGetRendersThem deletes records in
// the database itself (the API deletes none of these) and reads the feed:
// every record the foreign keys' SET NULL changed has an .updated change
// equal to GET, with a newer updated_at; equipment named by a quote's line
// leaves the line its name (GET's lines still PATCH back) and the quote a
// change; a deleted quote's last state carries its lines
// (docs/changes.md, "What is recorded").
func TestDeletionsInTheDatabaseAreRecordedAsGetRendersThem(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	id := func(rec map[string]any) string { return rec["id"].(string) }

	client := create(t, a, "/api/v2/clients", map[string]any{"name": "Client"})
	event := create(t, a, "/api/v2/events", map[string]any{"name": "Gala", "client_id": id(client),
		"start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z", "venue": "Pier 4"})
	cat := create(t, a, "/api/v2/equipment_categories", map[string]any{"name": "Audio"})
	amp := create(t, a, "/api/v2/equipment", map[string]any{"name": "Amp", "category_id": id(cat), "stock_quantity": 4})
	mixer := create(t, a, "/api/v2/equipment", map[string]any{"name": "Mixer", "stock_quantity": 2})
	speaker := create(t, a, "/api/v2/equipment", map[string]any{"name": "Speaker", "stock_quantity": 2})
	truck := create(t, a, "/api/v2/vehicles", map[string]any{"name": "Truck", "status": "available"})
	res := create(t, a, "/api/v2/equipment_reservations", map[string]any{"equipment_id": id(amp), "quantity": 1,
		"vehicle_id": id(truck), "start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T20:00:00Z"})
	lines := []any{
		map[string]any{"equipment_id": id(mixer), "quantity": 2, "unit_price": 5},
		map[string]any{"equipment_id": id(mixer), "description": "Spare mixer", "quantity": 1, "unit_price": 5},
		map[string]any{"description": "Labour", "quantity": 1, "unit_price": 10},
		map[string]any{"equipment_id": id(speaker), "quantity": 1, "unit_price": 5},
	}
	quote := create(t, a, "/api/v2/quotes", map[string]any{"title": "Kept", "client_id": id(client), "event_id": id(event), "line_items": lines})
	// Only the equipment's deletion changes the invoice.
	invoice := create(t, a, "/api/v2/invoices", map[string]any{"due_date": "2026-12-31", "line_items": lines})
	doomed := create(t, a, "/api/v2/quotes", map[string]any{"title": "Doomed", "line_items": lines[2:3]})
	list := create(t, a, "/api/v2/pick_lists", map[string]any{"name": "Stage left", "event_id": id(event)})
	// Only the equipment's deletion changes the kit and its item.
	kit := create(t, a, "/api/v2/pick_lists", map[string]any{"name": "Mixer kit"})
	item := create(t, a, "/api/v2/pick_list_items", map[string]any{"pick_list_id": id(kit), "equipment_id": id(mixer)})

	paths := map[string]string{
		id(quote): "/api/v2/quotes/", id(invoice): "/api/v2/invoices/", id(amp): "/api/v2/equipment/",
		id(res): "/api/v2/equipment_reservations/", id(list): "/api/v2/pick_lists/",
		id(kit): "/api/v2/pick_lists/",
	}
	before := map[string]map[string]any{}
	for rid, p := range paths {
		before[rid] = get(t, a, p+rid)
	}
	lastOfDoomed := get(t, a, "/api/v2/quotes/"+id(doomed))
	// The cursor after every change the API writes made: the last of them,
	// the kit item's creation, listed (the feed lists a change once every
	// transaction begun before it has ended).
	settle(t, a, "", holds(id(item)))
	_, cursor := follow(t, a, "", "")

	ctx := context.Background()
	// Both records named by the documents' lines in one statement: one
	// change per document.
	if _, err := env.Svc.DB.ExecContext(ctx, "DELETE FROM equipment WHERE organization_id = ? AND id IN (?, ?)",
		a.ID, id(mixer), id(speaker)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct{ table, id string }{
		{"clients", id(client)}, {"equipment_categories", id(cat)},
		{"vehicles", id(truck)}, {"events", id(event)}, {"quotes", id(doomed)},
	} {
		if _, err := env.Svc.DB.ExecContext(ctx, "DELETE FROM "+q.table+" WHERE organization_id = ? AND id = ?", a.ID, q.id); err != nil {
			t.Fatalf("DELETE FROM %s: %v", q.table, err)
		}
	}

	all := settleFrom(t, a, "", cursor, func(all []map[string]any) bool {
		for _, c := range all {
			if c["type"] == "quote.deleted" && c["object_id"] == id(doomed) {
				return true // the last deletion's change: every earlier one is listed
			}
		}
		return false
	})
	last := map[string]map[string]any{}
	invoiceChanges := 0
	for _, c := range all {
		last[c["object_id"].(string)] = c
		if c["object_id"] == id(invoice) {
			invoiceChanges++
		}
	}
	if invoiceChanges != 1 {
		t.Errorf("the invoice, changed by one statement, has %d changes, want 1", invoiceChanges)
	}
	for rid, p := range paths {
		now := get(t, a, p+rid)
		delete(now, "items") // a pick list's change leaves its items out
		c := last[rid]
		if c == nil {
			t.Errorf("%s%s changed in the database (%v), but the feed has no change of it", p, rid, now)
			continue
		}
		if c["type"] == "pick_list.deleted" || !reflect.DeepEqual(c["data"], now) {
			g, _ := json.Marshal(c["data"])
			w, _ := json.Marshal(now)
			t.Errorf("%s%s: last change %v differs from GET:\n got  %s\n want %s", p, rid, c["type"], g, w)
		}
		if now["updated_at"].(string) <= before[rid]["updated_at"].(string) {
			t.Errorf("%s%s: updated_at %v did not move past %v", p, rid, now["updated_at"], before[rid]["updated_at"])
		}
	}

	deleted := last[id(doomed)]
	if deleted["type"] != "quote.deleted" || !reflect.DeepEqual(deleted["data"], lastOfDoomed) {
		g, _ := json.Marshal(deleted["data"])
		w, _ := json.Marshal(lastOfDoomed)
		t.Errorf("%v of the quote deleted in the database, want its last state as GET rendered it:\n got  %s\n want %s",
			deleted["type"], g, w)
	}

	// The item, read in its list's detail (items have no GET of their own).
	items := get(t, a, "/api/v2/pick_lists/"+id(kit))["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("the kit holds %d items, want 1", len(items))
	}
	it := items[0].(map[string]any)
	if it["equipment_id"] != nil || it["custom_description"] != "Mixer" || it["updated_at"].(string) <= item["updated_at"].(string) ||
		last[id(item)] == nil || !reflect.DeepEqual(last[id(item)]["data"], it) {
		t.Errorf("the item after its equipment's deletion: %v (last change %v), want no equipment, the description \"Mixer\", "+
			"a newer updated_at and a change equal to it", it, last[id(item)])
	}
	q := get(t, a, "/api/v2/quotes/"+id(quote))
	got := q["line_items"].([]any)
	for i, want := range []string{"Mixer", "Spare mixer", "Labour", "Speaker"} {
		l := got[i].(map[string]any)
		if l["equipment_id"] != nil || l["description"] != want {
			t.Errorf("line %d after its equipment's deletion: %v, want no equipment and the description %q", i, l, want)
		}
	}
	back := make([]any, len(got))
	for i, l := range got {
		m := l.(map[string]any)
		back[i] = map[string]any{"equipment_id": m["equipment_id"], "description": m["description"],
			"quantity": m["quantity"], "unit_price": m["unit_price"]}
	}
	patch(t, a, "/api/v2/quotes/"+id(quote), map[string]any{"line_items": back})
}
