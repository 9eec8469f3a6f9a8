package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/eventapi/eventapi/api/rest"
)

// comparedJSON is the encoder of a test's app: every response body is
// rendered by the production encoder (rest.Encode) and by encoding/json,
// encoding/json's bytes are sent, and a difference fails the test when it
// ends (the encoding runs on the server's goroutines, which may outlive a
// failing test's own).
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
	return func(v any) ([]byte, error) {
		std, err := json.Marshal(v)
		fast, ferr := rest.Encode(v)
		if (err == nil) != (ferr == nil) || !bytes.Equal(std, fast) {
			mu.Lock()
			if len(diffs) < 5 {
				diffs = append(diffs, fmt.Sprintf("%T:\n  fast %s (%v)\n  std  %s (%v)", v, fast, ferr, std, err))
			}
			mu.Unlock()
		}
		return std, err
	}
}
