package clients_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/rest"
)

// TestLargeListPagesWaitForTheBulkhead: with the one slot of large reads
// taken, a page of clients whose notes pass rest.LargePageBytes waits for
// it and is answered, whole, once it is free; a page of short clients is
// answered at once (docs/architecture.md, "Memory").
func TestLargeListPagesWaitForTheBulkhead(t *testing.T) {
	env := apitest.New(t, apitest.WithOneLargeReadSlot())
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	const short = 3
	for i := range short {
		rows.Insert("clients", map[string]any{"name": fmt.Sprintf("short %d", i)})
	}
	notes := strings.Repeat("<", 10_000) // the longest notes: 60,000 bytes as rendered
	long := rest.LargePageBytes/len(notes) + 1
	for i := range long {
		rows.Insert("clients", map[string]any{"name": fmt.Sprintf("long %d", i), "notes": notes})
	}

	release := env.HoldLargeReads()
	results := a.GetWhileHeld(t, path+"?limit=100")
	if res := a.Get(path + fmt.Sprintf("?limit=%d", short)); res.Status != 200 || len(res.List()) != short {
		t.Fatalf("a page of short clients while the slot was held: %d %.200s", res.Status, res.Body)
	}
	res := apitest.ReleaseAndCollect(t, results, 1, release)[0]
	if res.Status != 200 || len(res.List()) != short+long {
		t.Fatalf("the large page once the slot was freed: %d, %d clients, want %d", res.Status, len(res.List()), short+long)
	}
	if again := a.Get(path + "?limit=100"); string(again.Body) != string(res.Body) {
		t.Fatal("the large page answered under the bound differs from the same page answered at once")
	}
}
