package webhooks_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestTheResumeMigrationKeepsDisabledEndpointsPlaces: the migration that
// keeps a disabled endpoint's place in the feed gives the endpoints
// disabled before it the place their cursor stopped at (a disabled
// endpoint's cursor does not move), and none to an enabled one; rolled
// back, it drops the columns.
func TestTheResumeMigrationKeepsDisabledEndpointsPlaces(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenDirect(t)
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	const before, resume = "20261210030000", "20261211010000_webhook_endpoint_resume_place"
	if down, err := m.Down(ctx, database.DownTo{Migration: before}); err != nil || !slices.Contains(down, resume) {
		t.Fatalf("down to %s: %v %v, want %s among them", before, down, err, resume)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(query, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	org, enabled, disabled := uuid.New(), uuid.New(), uuid.New()
	exec("INSERT INTO organizations (id, name) VALUES (?, 'Org')", org)
	for id, status := range map[uuid.UUID]string{enabled: "enabled", disabled: "disabled"} {
		exec(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret, status, feed_position, feed_seq)
			VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00', ?, '4242'::xid8, 7)`, id, org, status)
	}
	if up, err := m.Up(ctx); err != nil || !slices.Contains(up, resume) {
		t.Fatalf("up: %v %v, want %s among them", up, err, resume)
	}
	place := func(id uuid.UUID) (position, seq sql.NullInt64) {
		t.Helper()
		if err := db.NewRaw("SELECT disabled_position, disabled_seq FROM webhook_endpoints WHERE id = ?", id).
			Scan(ctx, &position, &seq); err != nil {
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

	if _, err := m.Down(ctx, database.DownTo{Migration: before}); err != nil {
		t.Fatal(err)
	}
	var columns int
	if err := db.NewRaw(`SELECT count(*) FROM information_schema.columns
		WHERE table_name = 'webhook_endpoints' AND column_name IN ('disabled_position', 'disabled_seq')`).Scan(ctx, &columns); err != nil || columns != 0 {
		t.Fatalf("after down: %d place columns (%v), want none", columns, err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
}
