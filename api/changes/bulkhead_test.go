package changes_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestLargeAnswersWaitForTheBulkhead: with the one slot of the bulkhead
// taken, a page of the change feed and a quote's and an invoice's detail
// wait for it (docs/architecture.md, "Memory"), and so do an empty PATCH
// of each (which answers the same detail); a quote list does not;
// all answer once the slot is free.
func TestLargeAnswersWaitForTheBulkhead(t *testing.T) {
	env := apitest.New(t, apitest.WithOneLargeReadSlot())
	a := env.NewOrg("A")
	quote := a.Post("/api/v2/quotes", map[string]any{"title": "Main stage"})
	invoice := a.Post("/api/v2/invoices", map[string]any{"due_date": "2027-01-31"})
	if quote.Status != 201 || invoice.Status != 201 {
		t.Fatalf("quote %d %s, invoice %d %s", quote.Status, quote.Body, invoice.Status, invoice.Body)
	}

	release := env.HoldLargeReads()
	details := []string{"/api/v2/quotes/" + quote.Data()["id"].(string), "/api/v2/invoices/" + invoice.Data()["id"].(string)}
	sends := []func() *apitest.Response{func() *apitest.Response { return a.Get(feedPath) }}
	for _, path := range details {
		sends = append(sends, func() *apitest.Response { return a.Get(path) },
			func() *apitest.Response { return a.Patch(path, map[string]any{}) })
	}
	results := a.SendWhileHeld(t, sends...)
	if res := a.Get("/api/v2/quotes"); res.Status != 200 {
		t.Fatalf("quote list while the slot was held: %d %s", res.Status, res.Body)
	}
	for _, res := range apitest.ReleaseAndCollect(t, results, len(sends), release) {
		if res.Status != 200 {
			t.Fatalf("after the slot was freed: %d %s", res.Status, res.Body)
		}
	}
}
