package webhooks_test

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
)

// TestDisableKeepsTheChangesAlreadyVisible: a change listed in the feed
// while the endpoint was enabled is delivered even when the endpoint is
// disabled before the fan-out reached it, and enabled again after. The
// process runs no worker, so the fan-out runs only when the test calls it:
// the race a poll interval leaves open, made certain.
func TestDisableKeepsTheChangesAlreadyVisible(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	before := createClient(t, a, "Visible before the disable")
	waitFor(t, "the change in the feed", func() bool { return inFeed(a, before) })
	if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "disabled"}); r.Status != 200 {
		t.Fatalf("disable: %d %s", r.Status, r.Body)
	}
	during := createClient(t, a, "Made while disabled")
	if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "enabled"}); r.Status != 200 {
		t.Fatalf("enable: %d %s", r.Status, r.Body)
	}
	after := createClient(t, a, "Made after the enable")
	waitFor(t, "the last change in the feed", func() bool { return inFeed(a, after) })
	if _, err := webhooks.FanOut(context.Background(), env.Svc.DB, 500); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range deliveries(t, a, ep) {
		res := a.Get("/api/v2/changes?type=client.created&limit=100")
		for _, c := range res.List() {
			if c["id"] == d["change_id"] {
				got[c["object_id"].(string)] = true
			}
		}
	}
	// The change made while the endpoint was disabled may be sent or not:
	// re-enabling starts at the horizon, which lags while any transaction
	// that began before it is open (docs/webhooks.md), as under the other
	// packages' load. The two others must be.
	if !got[before] || !got[after] {
		t.Fatalf("deliveries for %v; want the change visible before the disable (%s) and the one after the enable (%s) (made while disabled: %s)",
			got, before, after, during)
	}
}

// inFeed reports whether o's change feed lists the creation of client id.
func inFeed(o *apitest.Org, id string) bool {
	for _, c := range o.Get("/api/v2/changes?type=client.created&limit=100").List() {
		if c["object_id"] == id {
			return true
		}
	}
	return false
}
