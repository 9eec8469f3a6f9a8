package invoices_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestIsolation proves org B never sees, changes or references org A's
// invoices and the records they point at.
func TestIsolation(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	ra := bookingtest.For(env, a)
	aCl, aEv, aEq := ra.Client("A client"), ra.Event("A show"), ra.Equipment("A amp", nil, nil)
	aQ := ok(t, a.Post(base, body("due_date", "2026-06-30", "client_id", aCl.String(), "event_id", aEv.String(),
		"line_items", []any{line("equipment_id", aEq.String(), "quantity", 1, "unit_price", 10)})), 201)["id"].(string)
	ok(t, a.Post(base, body("due_date", "2026-06-30")), 201)
	bQ := ok(t, b.Post(base, body("due_date", "2026-06-30")), 201)["id"].(string)

	bookingtest.Isolated(t, a, b, base, aQ, body("status", "void"), false)
	bookingtest.Isolated(t, b, a, base, bQ, body("title", "x"), false)
	if n := bookingtest.NotListed(t, b, base+"?expand=client,event", aQ); n != 1 {
		t.Errorf("B lists %d quotes", n)
	}
	bookingtest.NotListed(t, a, base, bQ)
	bookingtest.ForeignCursor(t, a, b, base)
	for field, bd := range map[string]any{
		"client_id":                            body("due_date", "2026-06-30", "client_id", aCl.String()),
		"event_id":                             body("due_date", "2026-06-30", "event_id", aEv.String()),
		"line_items[0].equipment_id":           body("due_date", "2026-06-30", "line_items", []any{line("equipment_id", aEq.String(), "quantity", 1, "unit_price", 1)}),
		"client_id,line_items[0].equipment_id": body("due_date", "2026-06-30", "client_id", aCl.String(), "line_items", []any{line("equipment_id", aEq.String(), "quantity", 1, "unit_price", 1)}),
	} {
		res := b.Post(base, bd)
		want(t, res, 422, "validation_error")
		if fields(res) != field {
			t.Errorf("%s: fields %q", field, fields(res))
		}
		want(t, b.Patch(base+"/"+bQ, bd), 422, "validation_error")
	}
}
