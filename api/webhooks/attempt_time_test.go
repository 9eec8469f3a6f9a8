package webhooks_test

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestAnAttemptStartsBeforeItsReceiptAndItsRecord: an attempt's started_at
// is the database's clock reckoned from the claim's reading of it, which
// must never put it after the receiver got the request, nor after the
// delivery's updated_at written when the attempt was recorded (the
// receiver, the service and PostgreSQL share this machine's clock). It was
// reckoned from before the claim was asked for, and so came one claim
// late: 0.3 to 29 ms after the receipt in a review, after the record in
// half the attempts.
func TestAnAttemptStartsBeforeItsReceiptAndItsRecord(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	var mu sync.Mutex
	got := map[string]time.Time{} // webhook-id → when the receiver had the body
	rcv.hold = func(req *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if _, seen := got[req.Header.Get("webhook-id")]; !seen {
			got[req.Header.Get("webhook-id")] = time.Now()
		}
	}
	ep := register(t, a, rcv, "client.created")
	const n = 5
	for _, name := range []string{"One", "Two", "Three", "Four", "Five"} {
		createClient(t, a, name+" Ltd")
	}
	var ds []map[string]any
	waitFor(t, "every delivery succeeded", func() bool {
		ds = deliveries(t, a, ep)
		done := 0
		for _, d := range ds {
			if d["status"] == "succeeded" {
				done++
			}
		}
		return done == n
	})
	mu.Lock()
	defer mu.Unlock()
	for _, d := range ds {
		attempt := d["attempts"].([]any)[0].(map[string]any)
		started := parseTime(t, attempt["started_at"])
		ms := time.Duration(attempt["duration_ms"].(float64)) * time.Millisecond
		updated := parseTime(t, d["updated_at"])
		received, ok := got[d["change_id"].(string)]
		if !ok {
			t.Fatalf("no receipt of delivery %v", d)
		}
		// PostgreSQL keeps microseconds, rounded.
		if started.Sub(received) > time.Microsecond {
			t.Errorf("started_at %v is %v after the receiver had the request", started, started.Sub(received))
		}
		if started.Add(ms).Sub(updated) > time.Microsecond {
			t.Errorf("started_at %v + %v is after the delivery's updated_at %v", started, ms, updated)
		}
	}
}
