package apitest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/eventapi/eventapi/api/rest"
)

// comparedJSON is the encoder of a test's app: every response body is
// rendered by the production encoder and by encoding/json, and a difference
// fails the test when it ends (the encoding runs on the server's goroutines,
// which may outlive a failing test's own).
func comparedJSON(t testing.TB) func(any) ([]byte, error) {
	var (
		mu    sync.Mutex
		diffs []string
	)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, d := range diffs {
			t.Errorf("rest.Encode differs from encoding/json: %s", d)
		}
	})
	return rest.Compared(func(v any, fast, std []byte) {
		mu.Lock()
		defer mu.Unlock()
		if len(diffs) < 5 {
			diffs = append(diffs, fmt.Sprintf("%T:\n  fast %s\n  std  %s", v, fast, std))
		}
	})
}
