package delivery

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// failedPolls counts the failed statements of each loop of the worker: the
// claim loop's BEGIN and the fan-out's statement. A loop sends the next
// statement only after it recorded the previous failure.
type failedPolls struct {
	mu            sync.Mutex
	claim, fanOut int
}

func (*failedPolls) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (f *failedPolls) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if e.Err == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case e.Query == "BEGIN":
		f.claim++
	case strings.Contains(e.Query, "the webhook fan-out"):
		f.fanOut++
	}
}

func (f *failedPolls) counts() (claim, fanOut int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.claim, f.fanOut
}

// warnings counts the WARN lines of out per message.
func warnings(out *logtest.Buffer) map[string]int {
	perMessage := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["level"] == "WARN" {
			perMessage[rec["msg"].(string)]++
		}
	}
	return perMessage
}

// eventually polls cond every poll until it holds, and fails the test
// with what it is waiting for after a deadline.
func eventually(t *testing.T, poll time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(poll) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
	}
}

// TestFailuresAreLoggedOncePerInterval: while the database is gone both
// loops fail on every poll, and each logs its failures once per
// failureLogInterval, counted, not once per poll: once both loops logged
// their first failure and then each failed several polls more, there is
// still one line of each.
func TestFailuresAreLoggedOncePerInterval(t *testing.T) {
	const morePolls = 5
	failed := &failedPolls{}
	db := pgtest.Open(t)
	_ = db.Close() // every query fails at once
	sealer, err := seal.New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	var out logtest.Buffer
	cfg := config.Webhook{Workers: 1, PollInterval: 5 * time.Millisecond, Timeout: time.Second, Lease: 2 * time.Second,
		EndpointConcurrency: 1, BackoffBase: time.Second, BackoffMax: time.Second, RetryFor: time.Hour}
	w := Start(db.WithQueryHook(failed), sealer, telemetry.NewLogger(&out, "info"), cfg)
	defer w.Stop()

	eventually(t, cfg.PollInterval, "a warning of each loop", func() bool { return len(warnings(&out)) == 2 })
	// One poll more than morePolls: a loop sends a statement only after it
	// recorded the failure of the one before.
	claim, fanOut := failed.counts()
	eventually(t, cfg.PollInterval, "more failed polls", func() bool {
		c, f := failed.counts()
		return c > claim+morePolls && f > fanOut+morePolls
	})
	for msg, n := range warnings(&out) {
		if n != 1 {
			t.Errorf("%q logged %d times over %d failed polls or more, want once:\n%s", msg, n, morePolls, out.String())
		}
	}
}
