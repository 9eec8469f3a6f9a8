package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestAHandBackAfterAReenableKeepsItsFreshWindow: a delivery claimed
// before a disable and a re-enable and handed back after them without an
// attempt of the endpoint's (Release: its worker stopping, or its last look
// saw the endpoint disabled; Unsent: a failure of ours) gets the fresh
// window of the re-enable at its next claim. It kept its old, spent one,
// and its first failure after the re-enable gave it up.
func TestAHandBackAfterAReenableKeepsItsFreshWindow(t *testing.T) {
	for _, how := range []string{"release", "unsent"} {
		t.Run(how, func(t *testing.T) {
			ctx := context.Background()
			db := pgtest.Open(t)
			b := seedBacklog(t, db, 3, webhooks.Enabled)
			claims, err := webhooks.ClaimDue(ctx, db, 100, 1, time.Minute, webhooks.Shares{})
			if err != nil {
				t.Fatal(err)
			}
			var c *webhooks.Claim
			for i := range claims {
				if claims[i].EndpointID == b.endpoint {
					c = &claims[i]
				}
			}
			if c == nil {
				t.Fatal("no claim")
			}
			for _, st := range []string{webhooks.Disabled, webhooks.Enabled} {
				if _, err := webhooks.UpdateEndpoint(ctx, db, b.org, b.endpoint, webhooks.EndpointPatch{Status: &st}, func([]string) error { return nil }); err != nil {
					t.Fatal(err)
				}
			}
			if how == "release" {
				err = webhooks.Release(ctx, db, c, 0)
			} else {
				var held bool
				held, err = webhooks.Unsent(ctx, db, c, webhooks.Unprepared{At: time.Now(), RetryIn: 0})
				if err == nil && !held {
					t.Fatal("Unsent says the claim no longer held the delivery")
				}
				// Handed back, the claim holds nothing: a second call
				// changes nothing and says so.
				if again, err := webhooks.Unsent(ctx, db, c, webhooks.Unprepared{At: time.Now(), GiveUp: true, Reason: "x"}); err != nil || again {
					t.Fatalf("Unsent of a claim already handed back: held %v, %v", again, err)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			again, err := webhooks.ClaimDue(ctx, db, 100, 100, time.Minute, webhooks.Shares{})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range again {
				if a.ID == c.ID {
					if a.FirstFailedAt != nil || a.WindowAttempts != 0 {
						t.Fatalf("re-claimed after the re-enable with the old window: first failure %v, %d failures in the window (one more failure gives up)", a.FirstFailedAt, a.WindowAttempts)
					}
					return
				}
			}
			t.Fatalf("the handed-back delivery was not claimed again")
		})
	}
}
