package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestGiveUpDisablesOnlyAfterTheWholeRetryWindow: a delivery that gives up
// disables its endpoint only when the endpoint's run of failures has lasted
// RetryFor (3 days); a run of 2 days (a success 2 days ago) keeps it enabled.
func TestGiveUpDisablesOnlyAfterTheWholeRetryWindow(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, client, exec := orgWithAChange(t, db, "Boundary")
	for _, tt := range []struct {
		run          time.Duration
		wantDisabled bool
	}{{48 * time.Hour, false}, {71 * time.Hour, false}, {73 * time.Hour, true}} {
		endpoint, delivery, owner := uuid.New(), uuid.New(), uuid.New()
		now := time.Now()
		failingSince, firstFailed := now.Add(-tt.run), now.Add(-80*time.Hour)
		exec(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret, failing_since, enabled_at)
			VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00', ?, ?)`, endpoint, org, failingSince, now.Add(-100*time.Hour))
		exec(`INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, change_id, change_seq, type, attempt_count, first_failed_at, lease_owner, leased_until)
			SELECT ?, organization_id, ?, id, seq, type, 5, ?, ?, clock_timestamp() + interval '1 minute'
			FROM changes WHERE organization_id = ? AND object_id = ?`, delivery, endpoint, firstFailed, owner, org, client)
		c := &webhooks.Claim{ID: delivery, OrganizationID: org, EndpointID: endpoint, LeaseOwner: owner, Now: now, FirstFailedAt: &firstFailed}
		msg := "refused"
		done, err := webhooks.Complete(ctx, db, c, webhooks.Outcome{StartedAt: now, Duration: time.Millisecond, Error: &msg,
			GiveUp: true, RetryFor: 72 * time.Hour, ChangedAt: now.Add(-81 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		var status string
		if err := db.NewRaw("SELECT status FROM webhook_endpoints WHERE organization_id = ? AND id = ?", org, endpoint).Scan(ctx, &status); err != nil {
			t.Fatal(err)
		}
		if !done.GaveUp || done.Disabled != tt.wantDisabled || (status == "disabled") != tt.wantDisabled {
			t.Errorf("run of %v: %+v, endpoint %s; want disabled %v", tt.run, done, status, tt.wantDisabled)
		}
	}
}
