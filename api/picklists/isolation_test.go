package picklists_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestIsolation proves org B never sees, changes or references org A's pick
// lists and items.
func TestIsolation(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	ra, rb := bookingtest.For(env, a), bookingtest.For(env, b)
	aEv, aEq := ra.Event("A show"), ra.Equipment("A amp", nil, nil)
	bEq := rb.Equipment("B amp", nil, nil)

	aPL := ok(t, a.Post(lists, body("name", "A list", "event_id", aEv.String())), 201)["id"].(string)
	ok(t, a.Post(lists, body("name", "A second")), 201)
	aItem := ok(t, a.Post(items, body("pick_list_id", aPL, "equipment_id", aEq.String())), 201)["id"].(string)
	bPL := ok(t, b.Post(lists, body("name", "B list")), 201)["id"].(string)
	bItem := ok(t, b.Post(items, body("pick_list_id", bPL, "equipment_id", bEq.String())), 201)["id"].(string)

	bookingtest.Isolated(t, a, b, lists, aPL, body("status", "in_progress"), false)
	bookingtest.Isolated(t, b, a, lists, bPL, body("name", "x"), false)
	for _, who := range []struct {
		name string
		res  int
	}{
		{"patch", b.Patch(items+"/"+aItem, body("stage", "loaded")).Status},
		{"delete", b.Delete(items + "/" + aItem).Status},
	} {
		if who.res != 404 {
			t.Errorf("B %s of A's item: %d", who.name, who.res)
		}
	}
	if its := itemsOf(ok(t, a.Get(lists+"/"+aPL), 200)); len(its) != 1 || its[0]["stage"] != "pending" {
		t.Errorf("A's items after B's attempts: %v", its)
	}
	if n := bookingtest.NotListed(t, b, lists+"?expand=items,equipment,category,event", aPL); n != 1 {
		t.Errorf("B lists %d pick lists", n)
	}
	bookingtest.NotListed(t, b, lists+"?event_id="+aEv.String(), aPL)
	bookingtest.NotListed(t, a, lists, bPL)
	bookingtest.ForeignCursor(t, a, b, lists)

	// References across organizations are refused before anything is written.
	want(t, b.Post(lists, body("name", "x", "event_id", aEv.String())), 422, "validation_error")
	want(t, b.Post(items, body("pick_list_id", aPL, "custom_description", "x")), 422, "validation_error")
	want(t, b.Post(items, body("pick_list_id", bPL, "equipment_id", aEq.String())), 422, "validation_error")
	want(t, b.Post(items, body("pick_list_id", bPL, "custom_description", "x", "parent_item_id", aItem)), 422, "validation_error")
	want(t, b.Patch(items+"/"+bItem, body("equipment_id", aEq.String())), 422, "validation_error")
	want(t, b.Patch(items+"/"+bItem, body("parent_item_id", aItem)), 422, "validation_error")
	if n := rb.Count("pick_list_items"); n != 1 {
		t.Errorf("B has %d items", n)
	}
	if n := ra.Count("pick_list_items"); n != 1 {
		t.Errorf("A has %d items", n)
	}
}
