package webhooks_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestGoneDisablesTheEndpoint: a receiver answering 410 Gone has asked for
// no more messages (Standard Webhooks): its delivery fails and the
// endpoint is disabled after that one attempt, not retried for the retry
// window.
func TestGoneDisablesTheEndpoint(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	rcv.reply = func() (int, string) { return http.StatusGone, "" }
	ep := register(t, a, rcv, "client.created")
	createClient(t, a, "Gone Ltd")
	waitFor(t, "the endpoint disabled", func() bool {
		return a.Get(endpoints + "/" + ep).Data()["status"] == "disabled"
	})
	ds := deliveries(t, a, ep)
	if len(ds) != 1 || ds[0]["status"] != "failed" || ds[0]["attempt_count"] != float64(1) {
		t.Fatalf("deliveries after a 410: %v", ds)
	}
	attempts := ds[0]["attempts"].([]any)
	if text, _ := attempts[0].(map[string]any)["error"].(string); !strings.Contains(text, "410 Gone") {
		t.Fatalf("the attempt is recorded as %q", text)
	}
}

// TestRetryAfterIsHonoured: a receiver answering 429 with Retry-After gets
// its next attempt no sooner than it asked, where the backoff's first wait
// is at most 5 s.
func TestRetryAfterIsHonoured(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	rcv.reply = func() (int, string) { return http.StatusTooManyRequests, "600" }
	ep := register(t, a, rcv, "client.created")
	createClient(t, a, "Busy Ltd")
	var d map[string]any
	waitFor(t, "the first attempt", func() bool {
		ds := deliveries(t, a, ep)
		if len(ds) != 1 || ds[0]["attempt_count"].(float64) < 1 || ds[0]["next_attempt_at"] == nil {
			return false
		}
		d = ds[0]
		return true
	})
	attempt := d["attempts"].([]any)[0].(map[string]any)
	started := parseTime(t, attempt["started_at"])
	next := parseTime(t, d["next_attempt_at"])
	if wait := next.Sub(started); wait < 590*time.Second {
		t.Fatalf("the next attempt %v after the first, want the 600 s Retry-After asked for", wait)
	}
	if d["status"] != "pending" {
		t.Fatalf("delivery %v, want pending", d)
	}
}

// parseTime reads an RFC 3339 time of a response.
func parseTime(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("time %v: %v", v, err)
	}
	return at
}
