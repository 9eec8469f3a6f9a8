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
	first, err := store.ClaimDue(ctx, db, 100, 2, time.Minute, store.Shares{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range first {
		per[c.EndpointID.String()]++
	}
	if per[ep1] != 2 || per[ep2] != 2 || per[ep3] != 0 {
		t.Fatalf("first claim per endpoint: %v, want 2, 2 and none of the disabled one", per)
	}
	again, err := store.ClaimDue(ctx, db, 100, 2, time.Minute, store.Shares{})
	if err != nil || len(again) != 0 {
		t.Fatalf("second claim while the leases live: %d claims, %v", len(again), err)
	}
	// Completing one frees one slot of that endpoint only.
	code := 204
	if _, err := store.Complete(ctx, db, &first[0], store.Outcome{StartedAt: first[0].Now, ResponseStatus: &code}); err != nil {
		t.Fatal(err)
	}
	third, err := store.ClaimDue(ctx, db, 100, 2, time.Minute, store.Shares{})
	if err != nil || len(third) != 1 || third[0].EndpointID != first[0].EndpointID {
		t.Fatalf("after one completion: %d claims, %v", len(third), err)
	}
	// An expired lease is due again (a pod died holding it).
	if _, err := db.NewRaw("UPDATE webhook_deliveries SET leased_until = clock_timestamp() - interval '1 second', next_attempt_at = clock_timestamp() - interval '1 second' WHERE organization_id = ? AND id = ?",
		a.ID, first[1].ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	fourth, err := store.ClaimDue(ctx, db, 100, 2, time.Minute, store.Shares{})
	if err != nil || len(fourth) != 1 || fourth[0].ID != first[1].ID || fourth[0].LeaseOwner == first[1].LeaseOwner {
		t.Fatalf("expired lease: %d claims, %v", len(fourth), err)
	}
	// The old holder can no longer complete it, and is told so.
	if done, err := store.Complete(ctx, db, &first[1], store.Outcome{StartedAt: first[1].Now, ResponseStatus: &code}); err != nil || !done.LeaseLost {
		t.Fatalf("a stale claim's completion: %+v, %v; want LeaseLost", done, err)
	}
	var status string
	if err := db.NewRaw("SELECT status FROM webhook_deliveries WHERE organization_id = ? AND id = ?", a.ID, first[1].ID).Scan(ctx, &status); err != nil || status != "pending" {
		t.Errorf("a stale claim completed the delivery: %s %v", status, err)
	}
	// The current holder's completion is not lost.
	if done, err := store.Complete(ctx, db, &fourth[0], store.Outcome{StartedAt: fourth[0].Now, ResponseStatus: &code}); err != nil || done.LeaseLost {
		t.Fatalf("the current claim's completion: %+v, %v", done, err)
	}
}

// TestClaimFailedAtCommitLeasesNothing: a claim whose COMMIT fails returns
// no deliveries. Its UPDATE had returned them, but their leases were never
// held: a worker that sent them anyway found nothing to record, and the
// delivery, still due, was sent again by the next claim. A deferred
// constraint trigger fails this organization's first claim at COMMIT (a
// dropped connection at that instant cannot be had on demand).
func TestClaimFailedAtCommitLeasesNothing(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	register(t, a, newReceiver(t), "client.created")
	createClient(t, a, "claimed at a failed commit")
	ctx := context.Background()
	db := env.Svc.DB
	fanOutOne(t, db)
	for _, ddl := range []string{
		`CREATE SEQUENCE claim_commit_fails`,
		`CREATE FUNCTION fail_first_claim() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval('claim_commit_fails') = 1 THEN
				RAISE EXCEPTION 'the COMMIT of a claim fails';
			END IF;
			RETURN NULL;
		END $$`,
		`CREATE CONSTRAINT TRIGGER fail_first_claim AFTER UPDATE ON webhook_deliveries
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
			WHEN (NEW.organization_id = '` + a.ID.String() + `' AND NEW.lease_owner IS NOT NULL)
			EXECUTE FUNCTION fail_first_claim()`,
	} {
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_, _ = db.ExecContext(ctx, `DROP TRIGGER fail_first_claim ON webhook_deliveries`)
		_, _ = db.ExecContext(ctx, `DROP FUNCTION fail_first_claim()`)
		_, _ = db.ExecContext(ctx, `DROP SEQUENCE claim_commit_fails`)
	})
	claims, err := store.ClaimDue(ctx, db, 100, 4, time.Minute, store.Shares{})
	if err == nil || len(claims) != 0 {
		t.Fatalf("claim failed at COMMIT: %d claims, error %v; want none and the error", len(claims), err)
	}
	again, err := store.ClaimDue(ctx, db, 100, 4, time.Minute, store.Shares{})
	if err != nil || len(again) != 1 {
		t.Fatalf("the next claim: %d claims, %v; want the delivery, whose lease was never held", len(again), err)
	}
}
