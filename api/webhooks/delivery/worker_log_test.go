package delivery

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// TestFailuresAreLoggedOncePerInterval: while the database is gone both
// loops fail on every poll, and each logs its failures once per
// failureLogInterval, counted, not once per poll. The worker polls every
// 5 ms for half a second, about a hundred failures per loop.
func TestFailuresAreLoggedOncePerInterval(t *testing.T) {
	db := pgtest.Open(t)
	_ = db.Close() // every query fails at once
	sealer, err := seal.New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	var out logtest.Buffer
	w := Start(db, sealer, telemetry.NewLogger(&out, "info"),
		config.Webhook{Workers: 1, PollInterval: 5 * time.Millisecond, Timeout: time.Second, Lease: 2 * time.Second,
			EndpointConcurrency: 1, BackoffBase: time.Second, BackoffMax: time.Second, RetryFor: time.Hour})
	time.Sleep(500 * time.Millisecond)
	w.Stop()
	perMessage := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["level"] == "WARN" {
			perMessage[rec["msg"].(string)]++
		}
	}
	if len(perMessage) != 2 {
		t.Fatalf("warnings %v, want one of each loop:\n%s", perMessage, out.String())
	}
	for msg, n := range perMessage {
		if n != 1 {
			t.Errorf("%q logged %d times in 0.5 s, want once", msg, n)
		}
	}
}
