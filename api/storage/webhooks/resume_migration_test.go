package webhooks_test

import (
	"database/sql"
	"testing"

	"github.com/google/uuid"
)

// TestTheResumeMigrationKeepsDisabledEndpointsPlaces: the migration that
// keeps a disabled endpoint's place in the feed gives the endpoints
// disabled before it the place their cursor stopped at (a disabled
// endpoint's cursor does not move), and none to an enabled one; rolled
// back, it drops the columns.
func TestTheResumeMigrationKeepsDisabledEndpointsPlaces(t *testing.T) {
	c := rollBackBefore(t, "20261210030000", "20261211010000_webhook_endpoint_resume_place")
	org, enabled, disabled := uuid.New(), uuid.New(), uuid.New()
	c.exec("INSERT INTO organizations (id, name) VALUES (?, 'Org')", org)
	for id, status := range map[uuid.UUID]string{enabled: "enabled", disabled: "disabled"} {
		c.exec(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret, status, feed_position, feed_seq)
			VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00', ?, '4242'::xid8, 7)`, id, org, status)
	}
	c.up()
	place := func(id uuid.UUID) (position, seq sql.NullInt64) {
		t.Helper()
		if err := c.db.NewRaw("SELECT disabled_position, disabled_seq FROM webhook_endpoints WHERE id = ?", id).
			Scan(c.ctx, &position, &seq); err != nil {
			t.Fatal(err)
		}
		return position, seq
	}
	if p, s := place(disabled); p.Int64 != 4242 || s.Int64 != 7 {
		t.Errorf("the disabled endpoint's place: %v, %v; want 4242, 7 (its cursor)", p, s)
	}
	if p, s := place(enabled); p.Valid || s.Valid {
		t.Errorf("the enabled endpoint's place: %v, %v; want none", p, s)
	}
	c.downDropsColumns("webhook_endpoints", "disabled_position", "disabled_seq")
}
