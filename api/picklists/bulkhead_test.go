package picklists_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
)

// TestLargeReadsWaitForTheBulkhead: with one slot taken, a pick list's
// detail, a list with items and a PATCH (whose answer carries every item)
// wait for it (docs/architecture.md,
// "Memory"); a list without items does not; both answer once it is free.
func TestLargeReadsWaitForTheBulkhead(t *testing.T) {
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 100_000; c.LargeReads = 1 }))
	a := env.NewOrg("A")
	pl := ok(t, a.Post(lists, body("name", "Stage left")), 201)["id"].(string)
	ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "case")), 201)

	release := env.HoldLargeReads()
	results := a.SendWhileHeld(t,
		func() *apitest.Response { return a.Get(lists + "/" + pl) },
		func() *apitest.Response { return a.Get(lists + "?expand=items") },
		func() *apitest.Response { return a.Patch(lists+"/"+pl, map[string]any{}) })
	if res := a.Get(lists); res.Status != 200 {
		t.Fatalf("list without items while the slot was held: %d %s", res.Status, res.Body)
	}
	select {
	case res := <-results:
		t.Fatalf("a large read answered (%d) while the only slot was held", res.Status)
	default:
	}
	release()
	for range 3 {
		if res := <-results; res.Status != 200 {
			t.Fatalf("after the slot was freed: %d %s", res.Status, res.Body)
		}
	}
}
