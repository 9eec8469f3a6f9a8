package reservations_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/rest"
)

// TestExpandedListPagesWaitForTheBulkhead: the event a page of reservations
// inlines is repeated for each of them, so its text counts once per
// reservation: with the one slot of large reads taken, a page of short
// reservations that inlines an event of long name and venue past
// rest.LargePageBytes waits for it, and is answered once it is free; the
// same page without the expansion is answered at once (docs/architecture.md,
// "Memory").
func TestExpandedListPagesWaitForTheBulkhead(t *testing.T) {
	env := apitest.New(t, apitest.WithOneLargeReadSlot())
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	// the longest name and venue, of four-byte characters
	name, venue := strings.Repeat("😀", 200), strings.Repeat("😀", 300)
	ev := rows.Insert("events", map[string]any{"name": name, "venue": venue,
		"start_date": "2026-05-01T08:00:00Z", "end_date": "2026-05-04T08:00:00Z"})
	n := rest.LargePageBytes/(len(name)+len(venue)) + 1
	for i := range n {
		eq := rows.Equipment(fmt.Sprintf("Par can %d", i), nil, nil) // one reservation per equipment and event
		if res := a.Post(base, reserve(eq, 1, 3, "event_id", ev.String())); res.Status != 201 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	}

	release := env.HoldLargeReads()
	results := a.GetWhileHeld(t, base+"?limit=100&expand=event")
	if res := a.Get(base + "?limit=100"); res.Status != 200 || len(res.List()) != n {
		t.Fatalf("the page without its event while the slot was held: %d %.200s", res.Status, res.Body)
	}
	res := apitest.ReleaseAndCollect(t, results, 1, release)[0]
	if res.Status != 200 || len(res.List()) != n {
		t.Fatalf("the expanded page once the slot was freed: %d, %d reservations, want %d", res.Status, len(res.List()), n)
	}
	for _, r := range res.List() {
		if e, _ := r["event"].(map[string]any); e == nil || e["venue"] != venue {
			t.Fatalf("a reservation without its event: %v", r["event"])
		}
	}
}
