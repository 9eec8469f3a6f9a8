package quotes_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestSuppliedNumbersDoNotBreakAutomaticOnes races creates that supply
// numbers in the automatic range against creates that send none: a create
// without a number must never get a 409, and no number is used twice.
func TestSuppliedNumbersDoNotBreakAutomaticOnes(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	instances := []*apitest.Org{a, a.Via(env.Replica())}
	const n = 24
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b := body("title", fmt.Sprint("q", i))
			supplied := i%2 == 1
			if supplied {
				b["quote_number"] = fmt.Sprintf("Q-%06d", i/2+1)
			}
			res := instances[i%2].Post(base, b)
			switch {
			case res.Status == 201:
				got[i], _ = res.Data()["quote_number"].(string)
			case supplied && res.Status == 409:
				// the automatic sequence reached this number first: fine
			default:
				t.Errorf("create %d (supplied=%v): %d %s", i, supplied, res.Status, res.Body)
			}
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, q := range got {
		if q != "" && seen[q] {
			t.Fatalf("number %s used twice: %v", q, got)
		}
		seen[q] = true
	}
}
