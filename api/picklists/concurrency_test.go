package picklists_test

import (
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestConcurrentReparentingNeverMakesACycle makes two items each other's
// parent at the same time, through two instances: at most one may win.
func TestConcurrentReparentingNeverMakesACycle(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	instances := []*apitest.Org{a, a.Via(env.Replica())}
	pl := ok(t, a.Post(lists, body("name", "Cases")), 201)["id"].(string)
	for round := 0; round < 15; round++ {
		x := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "case X")), 201)["id"].(string)
		y := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "case Y")), 201)["id"].(string)
		var wg sync.WaitGroup
		status := make([]int, 2)
		for i, p := range [][2]string{{x, y}, {y, x}} {
			wg.Add(1)
			go func(i int, item, parent string) {
				defer wg.Done()
				status[i] = instances[i].Patch(items+"/"+item, body("parent_item_id", parent)).Status
			}(i, p[0], p[1])
		}
		wg.Wait()
		if status[0] == 200 && status[1] == 200 {
			t.Fatalf("round %d: both re-parentings succeeded: the two items are each other's parent", round)
		}
		if status[0] != 200 && status[1] != 200 {
			t.Fatalf("round %d: neither re-parenting succeeded: %v", round, status)
		}
	}
}

// TestItemWritesMoveThePickListsUpdatedAt: creating, changing and deleting an
// item each move the list's updated_at.
func TestItemWritesMoveThePickListsUpdatedAt(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	pl := ok(t, a.Post(lists, body("name", "Polled")), 201)
	stamp := func(d map[string]any) time.Time {
		t.Helper()
		ts, err := time.Parse(time.RFC3339Nano, d["updated_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	last := stamp(pl)
	id := pl["id"].(string)
	step := func(what string, res *apitest.Response, status int) {
		t.Helper()
		ok(t, res, status)
		now := stamp(ok(t, a.Get(lists+"/"+id), 200))
		if !now.After(last) {
			t.Fatalf("%s: pick list updated_at %s did not move past %s", what, now, last)
		}
		last = now
	}
	res := a.Post(items, body("pick_list_id", id, "custom_description", "Truss"))
	item := res.Data()["id"].(string)
	step("create item", res, 201)
	step("patch item", a.Patch(items+"/"+item, body("stage", "loaded")), 200)
	step("delete item", a.Delete(items+"/"+item), 204)
}
