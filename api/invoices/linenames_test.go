package invoices_test

import (
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestALineOfEquipmentIsNamedAtTheWrite: a line of equipment sent without
// a description (absent, null or empty) gets the equipment's name as it is
// then, and keeps it when the equipment is renamed; a description sent
// stays; a line without equipment keeps its own. The change of the write
// carries the names too, so a reader without equipment:read sees them.
func TestALineOfEquipmentIsNamedAtTheWrite(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("Named lines")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("SD12 mixing console", nil, nil)

	inv := ok(t, a.Post(base, body("due_date", "2026-06-30", "line_items", []any{
		line("equipment_id", eq.String(), "quantity", 1, "unit_price", 450),
		line("equipment_id", eq.String(), "description", nil, "quantity", 1, "unit_price", 10),
		line("equipment_id", eq.String(), "description", "", "quantity", 1, "unit_price", 10),
		line("equipment_id", eq.String(), "description", "Spare console", "quantity", 1, "unit_price", 300),
		line("description", "Labour", "quantity", 2, "unit_price", 35),
	})), 201)
	want := []string{"SD12 mixing console", "SD12 mixing console", "SD12 mixing console", "Spare console", "Labour"}
	check := func(what string, ls []map[string]any) {
		t.Helper()
		if len(ls) != len(want) {
			t.Fatalf("%s: %d lines, want %d", what, len(ls), len(want))
		}
		for i, l := range ls {
			if l["description"] != want[i] {
				t.Errorf("%s: line %d description %q, want %q", what, i, l["description"], want[i])
			}
		}
	}
	check("POST", lines(inv))

	id := inv["id"].(string)
	if res := a.Patch("/api/v2/equipment/"+eq.String(), map[string]any{"name": "SD12 console (sold)"}); res.Status != 200 {
		t.Fatalf("rename: %d %s", res.Status, res.Body)
	}
	check("GET after the equipment's rename", lines(ok(t, a.Get(base+"/"+id), 200)))

	// The feed shows a change once every transaction older than it has
	// ended, on the whole server (docs/changes.md): wait for it.
	var changes []map[string]any
	for deadline := time.Now().Add(30 * time.Second); len(changes) == 0 && time.Now().Before(deadline); {
		if changes = a.Get("/api/v2/changes?type=invoice.created").List(); len(changes) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(changes) != 1 {
		t.Fatalf("%d invoice.created changes, want 1", len(changes))
	}
	data, _ := changes[0]["data"].(map[string]any)
	var fromFeed []map[string]any
	items, _ := data["line_items"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		fromFeed = append(fromFeed, m)
	}
	check("the change", fromFeed)

	// A PATCH of the lines names them with the name the equipment has now.
	p := ok(t, a.Patch(base+"/"+id, body("line_items", []any{line("equipment_id", eq.String(), "quantity", 1, "unit_price", 1)})), 200)
	if ls := lines(p); len(ls) != 1 || ls[0]["description"] != "SD12 console (sold)" {
		t.Errorf("PATCH lines: %v, want the current name", p["line_items"])
	}
}
