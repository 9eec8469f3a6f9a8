package webhooks_test

import (
	"bytes"
	"context"
	"testing"
)

// TestOneRefusedMessageDoesNotDisableAHealthyEndpoint: a receiver that takes
// every message but one, which it refuses for good, sees that one fail once
// its retry window has passed, and the endpoint stays enabled (it succeeded
// within the window), so the changes after it are still delivered. Disabled
// for the one message, the endpoint would lose every later change. An
// endpoint that fails everything is still disabled
// (TestGiveUpDisablesEndpoint).
//
// The window is the default's; the refused message's window is made to
// have passed in the database once the healthy message is through, so the
// order "success within the window, then the give-up" holds however slow
// the machine is (with a 1 s window, a loaded machine delivered the
// healthy message after the give-up and the test failed).
func TestOneRefusedMessageDoesNotDisableAHealthyEndpoint(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	rcv.refuse = func(body []byte) bool { return bytes.Contains(body, []byte("Poison Ltd")) }
	ep := register(t, a, rcv, "client.created")
	createClient(t, a, "Poison Ltd")
	// The endpoint's first delivery is the refused message's.
	var poisonID string
	waitFor(t, "the refused message's first attempt", func() bool {
		ds := deliveries(t, a, ep)
		if len(ds) != 1 || ds[0]["attempt_count"].(float64) < 1 {
			return false
		}
		poisonID = ds[0]["id"].(string)
		return true
	})
	poison := func() map[string]any {
		for _, d := range deliveries(t, a, ep) {
			if d["id"] == poisonID {
				return d
			}
		}
		t.Fatalf("the refused message's delivery %s is gone", poisonID)
		return nil
	}
	// A success within the poison's window.
	healthy := createClient(t, a, "Healthy Ltd")
	waitFor(t, "the healthy message", func() bool { return created(rcv)[healthy] == 1 })
	waitFor(t, "the refused message to fail for good", func() bool {
		// Its window over, and due: an attempt claimed meanwhile keeps
		// the first failure it read, so the update is made again on each
		// look while the delivery is not leased.
		_, err := env.Svc.DB.NewRaw(`UPDATE webhook_deliveries
				SET first_failed_at = clock_timestamp() - interval '4 days', next_attempt_at = clock_timestamp()
			WHERE organization_id = ? AND id = ? AND status = 'pending'
				AND (leased_until IS NULL OR leased_until <= clock_timestamp())`, a.ID, poisonID).Exec(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return poison()["status"] == "failed"
	})
	if e := a.Get(endpoints + "/" + ep).Data(); e["status"] != "enabled" {
		t.Fatalf("the endpoint after one refused message failed: %v", e)
	}
	after := createClient(t, a, "After Ltd")
	waitFor(t, "a change after the failed one", func() bool { return created(rcv)[after] == 1 })
}

// TestEnablingAnEnabledEndpointChangesNothing: PATCH status enabled on an
// endpoint that is enabled but failing leaves failing_since as it is; only
// a re-enable of a disabled endpoint ends the run, with fresh windows for
// its deliveries (TestGiveUpDisablesEndpoint). Clearing failing_since
// alone would make the endpoint look healthy until a delivery whose old
// window ran out disabled it.
func TestEnablingAnEnabledEndpointChangesNothing(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	rcv.Close()
	createClient(t, a, "Unheard Ltd")
	var since any
	waitFor(t, "the endpoint to be failing", func() bool {
		since = a.Get(endpoints + "/" + ep).Data()["failing_since"]
		return since != nil
	})
	r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "enabled"})
	if r.Status != 200 || r.Data()["status"] != "enabled" || r.Data()["failing_since"] != since {
		t.Errorf("PATCH status enabled on a failing, enabled endpoint: %d %s; want failing_since %v kept", r.Status, r.Body, since)
	}
}
