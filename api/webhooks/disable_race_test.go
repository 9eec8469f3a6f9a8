package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
)

// TestDisableStopsClaimsNotYetSent: an endpoint disabled after a worker
// claimed its delivery but before the request started gets no request. The
// worker is held at one step of the delivery while the endpoint is
// disabled, by a PATCH or as a give-up of another delivery disables it;
// the claim is handed back unsent and unrecorded, and the delivery is sent
// once the endpoint is enabled again. Until then every delivery already
// claimed, up to the endpoint's cap, was still sent.
func TestDisableStopsClaimsNotYetSent(t *testing.T) {
	byPatch := func(t *testing.T, _ *apitest.Env, a *apitest.Org, ep string) {
		if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "disabled"}); r.Status != 200 {
			t.Fatalf("disable: %d %s", r.Status, r.Body)
		}
	}
	byGiveUp := func(t *testing.T, env *apitest.Env, a *apitest.Org, ep string) {
		// What Complete writes when another delivery fails for good.
		if _, err := env.Svc.DB.NewRaw(`UPDATE webhook_endpoints SET status = 'disabled',
				failing_since = coalesce(failing_since, clock_timestamp()) WHERE organization_id = ? AND id = ?`, a.ID, ep).
			Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		at      pause
		disable func(*testing.T, *apitest.Env, *apitest.Org, string)
	}{
		{"claimed, not loaded; a PATCH", newPause("the webhook worker's message", false), byPatch},
		{"rendered, not sent; a PATCH", newPause("jsonb_populate_record", true), byPatch},
		{"rendered, not sent; a give-up", newPause("jsonb_populate_record", true), byGiveUp},
	} {
		t.Run(tc.name, func(t *testing.T) { disableBeforeTheRequest(t, tc.at, tc.disable) })
	}
}

func disableBeforeTheRequest(t *testing.T, at pause, disable func(*testing.T, *apitest.Env, *apitest.Org, string)) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	// A long lease: the pause never spends it, so the request would go.
	startWorker(t, env, []bun.QueryHook{at}, func(w *config.Webhook) { w.Lease = time.Minute })
	id := createClient(t, a, "claimed before the disable")
	at.wait(t)
	disable(t, env, a, ep)
	close(at.resume)

	type state struct {
		Leased   bool   `bun:"leased"`
		Status   string `bun:"status"`
		Attempts int    `bun:"attempt_count"`
		Recorded int    `bun:"recorded"`
	}
	var s state
	waitFor(t, "the claim handed back or completed", func() bool {
		err := env.Svc.DB.NewRaw(`SELECT d.lease_owner IS NOT NULL AS leased, d.status, d.attempt_count,
				(SELECT count(*) FROM webhook_delivery_attempts x WHERE x.organization_id = d.organization_id AND x.delivery_id = d.id) AS recorded
			FROM webhook_deliveries d WHERE d.organization_id = ? AND d.endpoint_id = ?`, a.ID, ep).Scan(context.Background(), &s)
		if err != nil {
			t.Fatal(err)
		}
		return !s.Leased
	})
	if n := len(rcv.Messages()) + len(rcv.Bad()); n != 0 {
		t.Fatalf("the disabled endpoint got %d requests from a claim made before the disable", n)
	}
	if s.Status != "pending" || s.Attempts != 0 || s.Recorded != 0 {
		t.Fatalf("delivery after its claim was handed back: %+v; want pending, no attempt", s)
	}
	if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "enabled"}); r.Status != 200 {
		t.Fatalf("enable: %d %s", r.Status, r.Body)
	}
	waitFor(t, "the delivery sent once the endpoint is enabled", func() bool { return created(rcv)[id] == 1 })
}
