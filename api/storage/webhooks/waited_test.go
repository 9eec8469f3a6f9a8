package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// TestSuccessSaysWhetherItWaitedOnItsReceiver: a recorded success says
// whether the delivery's delay was its receiver's (Completed.Waited, the
// delivery lag's wait label): after failed attempts of its own, when it
// ends its endpoint's run of failures, when that run ended after the change
// was written, or when the endpoint was re-enabled after it; not for a
// first attempt to an endpoint without troubles since the change. A
// success whose lease was lost records nothing on the delivery (Attempts 0).
func TestSuccessSaysWhetherItWaitedOnItsReceiver(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, client, exec := orgWithAChange(t, db, "Waited")
	var changedAt time.Time
	if err := db.NewRaw("SELECT created_at FROM changes WHERE organization_id = ? AND object_id = ?", org, client).Scan(ctx, &changedAt); err != nil {
		t.Fatal(err)
	}
	before, after := changedAt.Add(-time.Hour), changedAt.Add(time.Hour)
	tests := []struct {
		name                  string
		attempts              int        // the delivery's attempts before this one
		failingSince          *time.Time // the endpoint's
		recoveredAt           *time.Time
		enabledAt             time.Time
		leaseLost             bool
		wantAttempts          int
		wantWaited, recovered bool // recovered: the success set recovered_at
	}{
		{"first attempt, endpoint without troubles", 0, nil, nil, before, false, 1, false, false},
		{"after failed attempts of its own", 2, nil, nil, before, false, 3, true, false},
		{"ends the endpoint's run of failures", 0, &before, nil, before, false, 1, true, true},
		{"the endpoint recovered after the change", 0, nil, &after, before, false, 1, true, false},
		{"the endpoint recovered before the change", 0, nil, &before, before, false, 1, false, false},
		{"the endpoint re-enabled after the change", 0, nil, nil, after, false, 1, true, false},
		{"the lease lost: nothing recorded on the delivery", 0, nil, nil, before, true, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			endpoint, delivery, owner := uuid.New(), uuid.New(), uuid.New()
			exec(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret, failing_since, recovered_at, enabled_at)
				VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00', ?, ?, ?)`, endpoint, org, tt.failingSince, tt.recoveredAt, tt.enabledAt)
			leasedTo := owner
			if tt.leaseLost {
				leasedTo = uuid.New()
			}
			exec(`INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, change_id, change_seq, type, attempt_count, lease_owner, leased_until)
				SELECT ?, organization_id, ?, id, seq, type, ?, ?, clock_timestamp() + interval '1 minute'
				FROM changes WHERE organization_id = ? AND object_id = ?`, delivery, endpoint, tt.attempts, leasedTo, org, client)
			c := &webhooks.Claim{ID: delivery, OrganizationID: org, EndpointID: endpoint, LeaseOwner: owner, Now: time.Now()}
			done, err := webhooks.Complete(ctx, db, c, webhooks.Outcome{StartedAt: time.Now(), Duration: time.Millisecond, ChangedAt: changedAt})
			if err != nil {
				t.Fatal(err)
			}
			if done.Attempts != tt.wantAttempts || done.Waited != tt.wantWaited || done.LeaseLost != tt.leaseLost {
				t.Errorf("attempts %d waited %v lease lost %v, want %d %v %v", done.Attempts, done.Waited, done.LeaseLost, tt.wantAttempts, tt.wantWaited, tt.leaseLost)
			}
			var state struct {
				FailingSince *time.Time `bun:"failing_since"`
				RecoveredAt  *time.Time `bun:"recovered_at"`
			}
			if err := db.NewRaw("SELECT failing_since, recovered_at FROM webhook_endpoints WHERE organization_id = ? AND id = ?", org, endpoint).Scan(ctx, &state); err != nil {
				t.Fatal(err)
			}
			moved := state.RecoveredAt != nil && (tt.recoveredAt == nil || !state.RecoveredAt.Equal(*tt.recoveredAt))
			if state.FailingSince != nil || moved != tt.recovered {
				t.Errorf("endpoint after: failing_since %v, recovered_at %v (set by the success: %v, want %v)", state.FailingSince, state.RecoveredAt, moved, tt.recovered)
			}
		})
	}
}

// TestAnEndpointWithoutAKeyRecordsNone: an endpoint registered without a
// key (uuid.Nil) records no key, NULL, not the nil UUID.
func TestAnEndpointWithoutAKeyRecordsNone(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org := uuid.New()
	if _, err := db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'Keyless')", org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New(make([]byte, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	e, err := webhooks.CreateEndpoint(ctx, db, tenancy.Tenant{Org: tenancy.OrganizationID{UUID: org}}, sealer,
		webhooks.NewEndpoint{URL: "https://example.com/hook", EnabledEvents: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	var stored *uuid.UUID
	if err := db.NewRaw("SELECT created_by_key_id FROM webhook_endpoints WHERE organization_id = ? AND id = ?", org, e.ID).Scan(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	if e.CreatedByKeyID != nil || stored != nil {
		t.Fatalf("created_by_key_id %v, stored %v; want none", e.CreatedByKeyID, stored)
	}
}
