package webhooks_test

import (
	"context"
	"testing"
	"time"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
)

// TestClaimCapsPerEndpoint drives the queue's fan-out and claim directly
// (the worker is off): at most perEndpoint deliveries of one endpoint are
// leased at once, across claims; another endpoint is not held back; a
// disabled endpoint's deliveries are never claimed; an expired lease is
// claimed again.
func TestClaimCapsPerEndpoint(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	r1, r2, r3 := newReceiver(t), newReceiver(t), newReceiver(t)
	ep1 := register(t, a, r1, "client.created")
	ep2 := register(t, a, r2, "client.created")
	ep3 := register(t, a, r3, "client.created")
	if r := a.Patch(endpoints+"/"+ep3, map[string]any{"status": "disabled"}); r.Status != 200 {
		t.Fatal(r.Status)
	}
	for i := 0; i < 5; i++ {
		createClient(t, a, "queued")
	}
	ctx := context.Background()
	db := env.Svc.DB
	// The fan-out takes changes as they pass the visibility horizon, which
	// another test's open transaction may hold back for a moment.
	queued := 0
	waitFor(t, "10 deliveries fanned out (5 changes to 2 enabled endpoints)", func() bool {
		res, err := store.FanOut(ctx, db, 100)
		if err != nil || res.Full {
			t.Fatalf("fan-out: %+v, %v", res, err)
		}
		queued += res.Queued
		return queued >= 10
	})
	if queued != 10 {
		t.Fatalf("fan-out queued %d deliveries, want 10", queued)
	}
	per := map[string]int{}
	first, err := store.ClaimDue(ctx, db, 100, 2, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range first {
		per[c.EndpointID.String()]++
	}
	if per[ep1] != 2 || per[ep2] != 2 || per[ep3] != 0 {
		t.Fatalf("first claim per endpoint: %v, want 2, 2 and none of the disabled one", per)
	}
	again, err := store.ClaimDue(ctx, db, 100, 2, time.Minute)
	if err != nil || len(again) != 0 {
		t.Fatalf("second claim while the leases live: %d claims, %v", len(again), err)
	}
	// Completing one frees one slot of that endpoint only.
	code := 204
	if err := store.Complete(ctx, db, &first[0], store.Outcome{StartedAt: first[0].Now, ResponseStatus: &code}); err != nil {
		t.Fatal(err)
	}
	third, err := store.ClaimDue(ctx, db, 100, 2, time.Minute)
	if err != nil || len(third) != 1 || third[0].EndpointID != first[0].EndpointID {
		t.Fatalf("after one completion: %d claims, %v", len(third), err)
	}
	// An expired lease is due again (a pod died holding it).
	if _, err := db.NewRaw("UPDATE webhook_deliveries SET leased_until = clock_timestamp() - interval '1 second', next_attempt_at = clock_timestamp() - interval '1 second' WHERE organization_id = ? AND id = ?",
		a.ID, first[1].ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	fourth, err := store.ClaimDue(ctx, db, 100, 2, time.Minute)
	if err != nil || len(fourth) != 1 || fourth[0].ID != first[1].ID || fourth[0].LeaseOwner == first[1].LeaseOwner {
		t.Fatalf("expired lease: %d claims, %v", len(fourth), err)
	}
	// The old holder can no longer complete it.
	if err := store.Complete(ctx, db, &first[1], store.Outcome{StartedAt: first[1].Now, ResponseStatus: &code}); err != nil {
		t.Fatal(err)
	}
	var status string
	if err := db.NewRaw("SELECT status FROM webhook_deliveries WHERE organization_id = ? AND id = ?", a.ID, first[1].ID).Scan(ctx, &status); err != nil || status != "pending" {
		t.Errorf("a stale claim completed the delivery: %s %v", status, err)
	}
}
