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

// TestDeliveriesListFiltersByStatus: ?status keeps the deliveries of one
// status, pages through them with cursors of its own, refuses a status it
// does not know, and another organization's key still finds no endpoint.
func TestDeliveriesListFiltersByStatus(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	for _, name := range []string{"One Ltd", "Two Ltd", "Three Ltd"} {
		id := createClient(t, a, name)
		waitFor(t, "the delivery of "+name, func() bool { return created(rcv)[id] == 1 })
	}
	rcv.mu.Lock()
	rcv.reply = func() (int, string) { return http.StatusGone, "" }
	rcv.mu.Unlock()
	createClient(t, a, "Gone Ltd")
	waitFor(t, "the failed delivery", func() bool {
		return a.Get(endpoints + "/" + ep).Data()["status"] == "disabled"
	})

	list := func(query string) []map[string]any {
		res := a.Get(endpoints + "/" + ep + "/deliveries?" + query)
		if res.Status != http.StatusOK {
			t.Fatalf("?%s: %d %s", query, res.Status, res.Body)
		}
		return res.List()
	}
	statuses := func(ds []map[string]any) (out []string) {
		for _, d := range ds {
			out = append(out, d["status"].(string))
		}
		return out
	}
	if got := statuses(list("status=failed")); len(got) != 1 || got[0] != "failed" {
		t.Fatalf("?status=failed: %v", got)
	}
	if got := statuses(list("status=pending")); len(got) != 0 {
		t.Fatalf("?status=pending: %v", got)
	}
	if got := statuses(list("")); len(got) != 4 {
		t.Fatalf("unfiltered: %v", got)
	}
	// Two pages of the succeeded ones, by a cursor of that list.
	first := a.Get(endpoints + "/" + ep + "/deliveries?status=succeeded&limit=2")
	cursor, _ := first.JSON()["pagination"].(map[string]any)["next_cursor"].(string)
	if len(first.List()) != 2 || cursor == "" {
		t.Fatalf("the first page of succeeded deliveries: %s", first.Body)
	}
	rest := list("status=succeeded&limit=2&cursor=" + cursor)
	if got := statuses(append(first.List(), rest...)); len(got) != 3 || got[0] != "succeeded" || got[2] != "succeeded" {
		t.Fatalf("succeeded over two pages: %v", got)
	}
	for _, q := range []string{"status=failed&cursor=" + cursor, "cursor=" + cursor} {
		if res := a.Get(endpoints + "/" + ep + "/deliveries?" + q); res.Status != http.StatusUnprocessableEntity ||
			res.FieldIssue("cursor") == "" {
			t.Errorf("?%s (a cursor of the succeeded list): %d %s", q, res.Status, res.Body)
		}
	}
	if res := a.Get(endpoints + "/" + ep + "/deliveries?status=gone"); res.Status != http.StatusUnprocessableEntity ||
		res.FieldIssue("status") == "" {
		t.Errorf("?status=gone: %d %s", res.Status, res.Body)
	}
	if res := b.Get(endpoints + "/" + ep + "/deliveries?status=failed"); res.Status != http.StatusNotFound {
		t.Errorf("org B's ?status=failed of A's endpoint: %d %s", res.Status, res.Body)
	}
}
