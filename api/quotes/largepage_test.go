package quotes_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
)

// TestLargeListPagesWaitForTheBulkhead: with the one slot of large reads
// taken, a page of quotes whose notes pass rest.LargePageBytes waits for
// it and is answered once it is free; a page of short quotes is answered
// at once (docs/architecture.md, "Memory").
func TestLargeListPagesWaitForTheBulkhead(t *testing.T) {
	env := apitest.New(t, apitest.WithOneLargeReadSlot())
	a := env.NewOrg("A")
	const short = 2
	for i := range short {
		ok(t, a.Post(base, body("title", fmt.Sprintf("short %d", i))), 201)
	}
	notes := strings.Repeat("<", 10_000)
	long := rest.LargePageBytes/(2*len(notes)) + 1
	for i := range long {
		ok(t, a.Post(base, body("title", fmt.Sprintf("long %d", i), "notes", notes, "internal_notes", notes)), 201)
	}

	release := env.HoldLargeReads()
	results := a.GetWhileHeld(t, base+"?limit=100")
	if res := a.Get(base + fmt.Sprintf("?limit=%d", short)); res.Status != 200 || len(res.List()) != short {
		t.Fatalf("a page of short quotes while the slot was held: %d %.200s", res.Status, res.Body)
	}
	res := apitest.ReleaseAndCollect(t, results, 1, release)[0]
	if res.Status != 200 || len(res.List()) != short+long {
		t.Fatalf("the large page once the slot was freed: %d, %d quotes, want %d", res.Status, len(res.List()), short+long)
	}
}
