package planning_test

import (
	"net/url"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestPlanningAnswersWaitForTheBulkhead: with the one slot of the
// large-read bulkhead taken, an availability answer, a batch and a truck's
// load wait for it (docs/architecture.md, "Memory"); all answer once the
// slot is free.
func TestPlanningAnswersWaitForTheBulkhead(t *testing.T) {
	env := apitest.New(t, apitest.WithOneLargeReadSlot())
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Amp", bookingtest.Stock(2), nil)
	truck := a.Post("/api/v2/vehicles", map[string]any{"name": "Truck", "status": "available"}).Data()["id"].(string)
	window := "start=" + url.QueryEscape(day(1)) + "&end=" + url.QueryEscape(day(9))
	paths := []string{
		"/api/v2/equipment/" + eq.String() + "/availability?" + window,
		"/api/v2/availability?equipment_id=" + eq.String() + "&" + window,
		"/api/v2/vehicles/" + truck + "/load?" + window,
	}
	release := env.HoldLargeReads()
	var sends []func() *apitest.Response
	for _, p := range paths {
		sends = append(sends, func() *apitest.Response { return a.Get(p) })
	}
	results := a.SendWhileHeld(t, sends...)
	for _, res := range apitest.ReleaseAndCollect(t, results, len(sends), release) {
		if res.Status != 200 {
			t.Fatalf("after the slot was freed: %d %s", res.Status, res.Body)
		}
	}
}
