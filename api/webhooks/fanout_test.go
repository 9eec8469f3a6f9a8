package webhooks_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
)

// TestFanOutFollowsTheFeed drives the fan-out directly (the worker is off).
// Each endpoint gets, once and in feed order, the changes of its own
// organization that it wants and that were made while it was enabled: not
// those from before its registration, not those of another organization,
// not those made while it was disabled, and nothing again on a later pass.
// ("Before" means visible in the feed before.)
// A pass takes at most its batch per endpoint and says when there is more.
func TestFanOutFollowsTheFeed(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a, b := env.NewOrg("A"), env.NewOrg("B")
	ctx := context.Background()
	// fanOut runs passes of one change per endpoint until every change
	// has passed the horizon and been taken, and counts the passes that
	// said there was more.
	fanOut := func(want int) (full int) {
		t.Helper()
		queued := 0
		waitFor(t, fmt.Sprintf("%d deliveries fanned out", want), func() bool {
			res, err := store.FanOut(ctx, env.Svc.DB, 1)
			if err != nil {
				t.Fatal(err)
			}
			queued += res.Queued
			if res.Full {
				full++
			}
			return queued >= want && !res.Full
		})
		if queued != want {
			t.Fatalf("fan-out queued %d deliveries, want %d", queued, want)
		}
		return full
	}
	// queuedFor lists an endpoint's deliveries as type:client name, in the
	// order they were queued.
	queuedFor := func(o *apitest.Org, endpoint string) []string {
		t.Helper()
		var got []string
		err := env.Svc.DB.NewRaw(`SELECT d.type || ':' || (ch.data ->> 'name') FROM webhook_deliveries d
			JOIN changes ch ON ch.organization_id = d.organization_id AND ch.seq = d.change_seq
			WHERE d.organization_id = ? AND d.endpoint_id = ? ORDER BY d.created_at`, o.ID, endpoint).Scan(ctx, &got)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	// inFeed waits until A's feed shows n changes: a change visible in the
	// feed before an endpoint is registered or enabled again is never sent
	// to it (one whose transaction is still open may be).
	inFeed := func(n int) {
		t.Helper()
		waitFor(t, fmt.Sprintf("%d changes in the feed", n), func() bool {
			return len(a.Get("/api/v2/changes?limit=100").List()) >= n
		})
	}

	all := register(t, a, newReceiver(t))
	updates := register(t, a, newReceiver(t), "client.updated")
	createClient(t, a, "before")
	inFeed(1)
	late := register(t, a, newReceiver(t))
	other := register(t, b, newReceiver(t))
	id := createClient(t, a, "after")
	if r := a.Patch("/api/v2/clients/"+id, map[string]any{"name": "renamed"}); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if full := fanOut(3 + 1 + 2); full == 0 {
		t.Error("a pass of one change per endpoint never said it had more")
	}
	want := map[string][]string{
		all:     {"client.created:before", "client.created:after", "client.updated:renamed"},
		updates: {"client.updated:renamed"},
		late:    {"client.created:after", "client.updated:renamed"},
		other:   nil,
	}
	owner := map[string]*apitest.Org{all: a, updates: a, late: a, other: b}
	for ep, w := range want {
		if got := queuedFor(owner[ep], ep); !slices.Equal(got, w) {
			t.Errorf("endpoint %s: queued %v, want %v", ep, got, w)
		}
	}

	// Disabled, the endpoint misses what happens; enabled again, it
	// starts from there.
	for i, status := range []string{"disabled", "enabled"} {
		if r := a.Patch(endpoints+"/"+all, map[string]any{"status": status}); r.Status != 200 {
			t.Fatalf("%s: %d %s", status, r.Status, r.Body)
		}
		createClient(t, a, "while "+status)
		inFeed(4 + i)
	}
	fanOut(1 + 2)
	if got, w := queuedFor(a, all), append(want[all], "client.created:while enabled"); !slices.Equal(got, w) {
		t.Errorf("after a disabled spell: queued %v, want %v", got, w)
	}
	// A pass with nothing new queues nothing and locks no endpoint (a row
	// lock would stamp the endpoint's xmax: a write per endpoint per pass).
	stamps := func() []string {
		var out []string
		if err := env.Svc.DB.NewRaw("SELECT xmax::text FROM webhook_endpoints WHERE organization_id = ? ORDER BY id", a.ID).Scan(ctx, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := stamps()
	if res, err := store.FanOut(ctx, env.Svc.DB, 100); err != nil || res.Queued != 0 {
		t.Fatalf("a pass with nothing new: %+v, %v", res, err)
	}
	if after := stamps(); !slices.Equal(before, after) {
		t.Errorf("an idle pass locked endpoints: xmax %v -> %v", before, after)
	}
}
