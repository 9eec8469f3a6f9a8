package reservations_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestIsolation proves org B never sees, changes or references org A's
// reservations and the records they point at.
func TestIsolation(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	ra, rb := bookingtest.For(env, a), bookingtest.For(env, b)
	aEq, aEv, aTruck := ra.Equipment("A amp", bookingtest.Stock(1), nil), ra.Event("A show"), ra.Vehicle("A truck", "available")
	bEq, bEv := rb.Equipment("B amp", bookingtest.Stock(1), nil), rb.Event("B show")

	mine := a.Post(base, reserve(aEq, 1, 3, "event_id", aEv.String(), "vehicle_id", aTruck.String()))
	if mine.Status != 201 {
		t.Fatalf("%d %s", mine.Status, mine.Body)
	}
	aID := mine.Data()["id"].(string)
	a.Post(base, reserve(aEq, 5, 6))
	theirs := b.Post(base, reserve(bEq, 1, 3, "event_id", bEv.String()))
	bID := theirs.Data()["id"].(string)

	bookingtest.Isolated(t, a, b, base, aID, body("quantity", 1), true)
	bookingtest.Isolated(t, b, a, base, bID, body("notes", "x"), true)
	if n := bookingtest.NotListed(t, b, base+"?expand=equipment,event,vehicle", aID); n != 1 {
		t.Errorf("B lists %d reservations, want 1", n)
	}
	bookingtest.NotListed(t, b, base+"?event_id="+aEv.String(), aID)
	bookingtest.NotListed(t, b, base+"?vehicle_id="+aTruck.String(), aID)
	bookingtest.NotListed(t, a, base, bID)
	bookingtest.ForeignCursor(t, a, b, base)

	// B cannot reference A's equipment, event or vehicle.
	for field, res := range map[string]*apitest.Response{
		"equipment_id": b.Post(base, reserve(aEq, 1, 2)),
		"event_id":     b.Post(base, reserve(bEq, 4, 5, "event_id", aEv.String())),
		"vehicle_id":   b.Post(base, reserve(bEq, 4, 5, "vehicle_id", aTruck.String())),
	} {
		want(t, res, 422, "validation_error")
		if fields(res) != field {
			t.Errorf("B referencing A's %s: fields %q", field, fields(res))
		}
	}
	for field, v := range map[string]string{"equipment_id": aEq.String(), "event_id": aEv.String(), "vehicle_id": aTruck.String()} {
		res := b.Patch(base+"/"+bID, body(field, v))
		want(t, res, 422, "validation_error")
		if fields(res) != field {
			t.Errorf("patch %s: fields %q", field, fields(res))
		}
	}
	if n := rb.Count("equipment_reservations"); n != 1 {
		t.Errorf("B has %d reservations", n)
	}
	// A's stock is A's alone: B's reservation of its own equipment with the
	// same window never conflicts with A's, and A's conflicts name only A's.
	res := a.Post(base, reserve(aEq, 1, 2))
	want(t, res, 422, "overbook_blocked")
	if ids, _ := details(res)["conflicting_reservation_ids"].([]any); len(ids) != 1 || ids[0] != aID {
		t.Errorf("conflicts = %v", ids)
	}
}
