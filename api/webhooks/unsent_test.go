package webhooks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// unsentReason is the error a delivery failed for failures of ours shows.
const unsentReason = "not sent: eventapi could not prepare the message (our failure, not the endpoint's)"

// TestOurFailureIsNotTheEndpoints: a delivery the worker cannot prepare for
// a failure of ours (its message not loaded, its change not rendered, its
// endpoint's secret not opened) is handed back to wait a minute, with no
// attempt recorded and the endpoint's failure window untouched (before
// 2.8.3 these were the endpoint's failed attempts, and a fault of ours
// disabled a healthy receiver). Once such failures have lasted the retry
// window (moved back in the database: three days cannot pass in a test),
// the delivery is failed, the reason recorded as an attempt that sent
// nothing, and the endpoint stays enabled and not failing. Before, it was
// tried every minute until the feed's purge deleted it 30 days later, and
// one whose message did not load was handed back due at once, to be
// claimed again at once, in a loop.
func TestOurFailureIsNotTheEndpoints(t *testing.T) {
	for _, tc := range []struct {
		name string
		// fail is a statement of the worker's that fails.
		fail failQuery
		// spoil, run before the worker starts, breaks what is ours.
		spoil string
	}{
		{"message not loaded", failQuery{marker: "the webhook worker's message"}, ""},
		{"change not rendered", failQuery{}, `UPDATE changes SET data = data || '{"created_at": "never"}' WHERE organization_id = ?`},
		{"secret not opened", failQuery{}, `UPDATE webhook_endpoints SET secret = '\x00'::bytea WHERE organization_id = ?`},
	} {
		t.Run(tc.name, func(t *testing.T) { ourFailure(t, tc.fail, tc.spoil) })
	}
}

func ourFailure(t *testing.T, fail failQuery, spoil string) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	ctx := context.Background()
	db := env.Svc.DB
	createClient(t, a, "not prepared")
	if spoil != "" {
		if _, err := db.NewRaw(spoil, a.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	startWorker(t, env, []bun.QueryHook{fail}, nil)

	s := triedOnce(t, db, a, ep)
	if s.Attempts != 0 || s.Recorded != 0 || s.Failing || !s.WaitsAMinute || !s.Unprepared {
		t.Fatalf("after a failure to prepare: %+v; want no attempt, the endpoint not failing, due again in a minute, its run of our failures begun", s)
	}
	// The run of our failures began four days ago, and the delivery is due.
	res, err := db.NewRaw(`UPDATE webhook_deliveries SET unprepared_since = clock_timestamp() - interval '4 days', next_attempt_at = clock_timestamp()
		WHERE organization_id = ? AND endpoint_id = ? AND lease_owner IS NULL`, a.ID, ep).Exec(ctx)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("moving the first failure back: %d rows, %v", n, err)
	}
	waitFor(t, "the delivery tried again", func() bool {
		var status string
		if err := db.NewRaw(`SELECT status FROM webhook_deliveries WHERE organization_id = ? AND endpoint_id = ?`, a.ID, ep).
			Scan(ctx, &status); err != nil {
			t.Fatal(err)
		}
		return status != "pending"
	})
	d := deliveries(t, a, ep)[0]
	at := d["attempts"].([]any)
	if d["status"] != "failed" || d["next_attempt_at"] != nil || d["attempt_count"] != float64(1) || len(at) != 1 {
		t.Fatalf("delivery past the window: %v; want failed, with one attempt", d)
	}
	if x := at[0].(map[string]any); x["error"] != unsentReason || x["response_status"] != nil || x["duration_ms"] != float64(0) {
		t.Errorf("the recorded reason: %v; want %q, no response, no duration", x, unsentReason)
	}
	if e := a.Get(endpoints + "/" + ep).Data(); e["status"] != "enabled" || e["failing_since"] != nil {
		t.Errorf("endpoint after a delivery failed for our failures: %v; want enabled, not failing", e)
	}
	if n := len(rcv.Messages()) + len(rcv.Bad()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
}

// unprepared is a delivery's state after a failure of ours.
type unprepared struct {
	Attempts     int  `bun:"attempt_count"`
	Recorded     int  `bun:"recorded"`
	Leased       bool `bun:"leased"`
	WaitsAMinute bool `bun:"waits"`
	Unprepared   bool `bun:"unprepared"`
	Failing      bool `bun:"failing"`
}

// triedOnce waits for the one delivery of o's endpoint ep to be tried and
// handed back, and returns its state.
func triedOnce(t *testing.T, db *bun.DB, o *apitest.Org, ep string) unprepared {
	t.Helper()
	var s unprepared
	waitFor(t, "the delivery tried once", func() bool {
		var got []unprepared
		if err := db.NewRaw(`SELECT d.attempt_count, d.lease_owner IS NOT NULL AS leased,
				d.next_attempt_at > clock_timestamp() + interval '30 seconds' AS waits,
				d.unprepared_since IS NOT NULL AS unprepared,
				(SELECT count(*) FROM webhook_delivery_attempts x WHERE x.organization_id = d.organization_id AND x.delivery_id = d.id) AS recorded,
				(SELECT e.failing_since IS NOT NULL FROM webhook_endpoints e WHERE e.organization_id = d.organization_id AND e.id = d.endpoint_id) AS failing
			FROM webhook_deliveries d WHERE d.organization_id = ? AND d.endpoint_id = ?`, o.ID, ep).Scan(context.Background(), &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			return false
		}
		s = got[0]
		return !s.Leased && (s.Attempts > 0 || s.Recorded > 0 || s.WaitsAMinute)
	})
	return s
}

// TestOurFailureLogsTheWaitItGot: the error line of a delivery that could
// not be prepared states the wait it really got, cut to the end of the
// retry window (20 s here), not the minute it would wait inside it.
func TestOurFailureLogsTheWaitItGot(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	register(t, a, newReceiver(t), "client.created")
	createClient(t, a, "not prepared")
	if _, err := env.Svc.DB.NewRaw(`UPDATE webhook_endpoints SET secret = '\x00'::bytea WHERE organization_id = ?`, a.ID).
		Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out logtest.Buffer
	startLoggedWorker(t, env, nil, func(w *config.Webhook) { w.RetryFor = 20 * time.Second }, telemetry.NewLogger(&out, "info"))
	var line map[string]any
	waitFor(t, "the error line", func() bool {
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.Contains(l, "preparing a delivery failed") {
				return json.Unmarshal([]byte(l), &line) == nil
			}
		}
		return false
	})
	if line["retry_in"] != "20s" {
		t.Errorf("retry_in %v, want 20s (the end of the retry window): %v", line["retry_in"], line)
	}
}
