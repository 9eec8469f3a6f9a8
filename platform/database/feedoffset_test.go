package database_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// move simulates a move to a cluster whose transaction counter is behind:
// a database of the same cluster shares the counter, so the stored
// positions are raised instead, by shift, as a restore would bring them.
func move(t *testing.T, db bun.IDB, shift int64) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		"UPDATE changes SET position = (position::text::bigint + ?)::text::xid8",
		"UPDATE webhook_endpoints SET feed_position = (feed_position::text::bigint + ?)::text::xid8",
		"UPDATE change_retention_marks SET position = (position::text::bigint + ?)::text::xid8",
	} {
		if _, err := db.NewRaw(q, shift).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// scalar reads one int64.
func scalar(t *testing.T, db bun.IDB, q string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := db.NewRaw(q, args...).Scan(context.Background(), &v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// migrateUp runs Up and returns what it announced.
func migrateUp(t *testing.T, db *bun.DB) []string {
	t.Helper()
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	m.Notify = func(msg string) { notices = append(notices, msg) }
	if _, err := m.Up(context.Background()); err != nil {
		t.Fatal(err)
	}
	return notices
}

// movedFeed is what serve would make of the database: the warning it
// would log and the refusal it would stop with ("" for none).
func movedFeed(t *testing.T, db *bun.DB) (warning, refusal string) {
	t.Helper()
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	warning, err = m.MovedFeed(context.Background())
	if errors.Is(err, database.ErrUnmendedMove) {
		return warning, err.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	return warning, ""
}

// TestUpRaisesTheFeedOffsetOnAMovedDatabase: `migrate up` leaves the
// offset alone on a database that was not moved; on one whose stored
// positions (changes, endpoint cursors, retention marks) are ahead of the
// transaction counter it raises the offset, says so, and from then on every
// new position, the horizon and a new or re-enabled endpoint's cursor are
// above every stored position; a second run finds nothing to do.
func TestUpRaisesTheFeedOffsetOnAMovedDatabase(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenDirect(t)
	org := uuid.New()
	if _, err := db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'Moved')", org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	client := uuid.New()
	if _, err := db.NewRaw("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'Before')", client, org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	endpoint := uuid.New()
	if _, err := db.NewRaw(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret)
		VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00')`, endpoint, org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewRaw(`INSERT INTO change_retention_marks (organization_id, position, seq)
		SELECT organization_id, position, seq FROM changes WHERE organization_id = ?`, org).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	if n := migrateUp(t, db); len(n) != 0 {
		t.Fatalf("a database that was not moved: Up announced %q", n)
	}
	if off := scalar(t, db, "SELECT feed_position_offset()"); off != 0 {
		t.Fatalf("offset %d on a database that was not moved, want 0", off)
	}
	if warning, refusal := movedFeed(t, db); warning != "" || refusal != "" {
		t.Fatalf("MovedFeed on a database that was not moved: %q, %q", warning, refusal)
	}

	const shift = 1_000_000
	move(t, db, shift)
	// The mark stands highest, as a purged change of a busy organization
	// may: the detection counts it too.
	if _, err := db.NewRaw("UPDATE change_retention_marks SET position = (position::text::bigint + ?)::text::xid8", shift).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	stored := scalar(t, db, "SELECT position::text::bigint FROM change_retention_marks WHERE organization_id = ?", org)
	if _, msg := movedFeed(t, db); !strings.Contains(msg, fmt.Sprintf("stored positions reach %d", stored)) ||
		!strings.Contains(msg, "run `eventapi migrate up`") {
		t.Fatalf("MovedFeed before Up: %q, want the stored position %d and the command that mends it", msg, stored)
	}

	notices := migrateUp(t, db)
	if len(notices) != 1 || !strings.Contains(notices[0], "raising the feed's position offset from 0 to") {
		t.Fatalf("Up announced %q, want the raise", notices)
	}
	if off := scalar(t, db, "SELECT feed_position_offset()"); off <= shift {
		t.Fatalf("offset %d after the move, want above the shift %d", off, shift)
	}
	if _, err := db.NewRaw("UPDATE clients SET name = 'After' WHERE id = ? AND organization_id = ?", client, org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	after := scalar(t, db, "SELECT position::text::bigint FROM changes WHERE object_id = ? ORDER BY seq DESC LIMIT 1", client)
	if after < stored+database.FeedOffsetMargin {
		t.Fatalf("the change written after the move is at %d, want at least the stored %d plus the margin", after, stored)
	}
	if h := scalar(t, db, "SELECT feed_horizon()::text::bigint"); h <= stored {
		t.Fatalf("horizon %d, want above every stored position (%d)", h, stored)
	}
	if _, err := db.NewRaw(`UPDATE webhook_endpoints SET status = 'disabled' WHERE id = ?`, endpoint).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewRaw(`UPDATE webhook_endpoints SET status = 'enabled' WHERE id = ?`, endpoint).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if p := scalar(t, db, "SELECT feed_position::text::bigint FROM webhook_endpoints WHERE id = ?", endpoint); p <= stored {
		t.Fatalf("a re-enabled endpoint starts at %d, below the stored positions (%d)", p, stored)
	}
	fresh := uuid.New()
	if _, err := db.NewRaw(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret)
		VALUES (?, ?, 'https://example.com/new', '{*}', '\x00')`, fresh, org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if p := scalar(t, db, "SELECT feed_position::text::bigint FROM webhook_endpoints WHERE id = ?", fresh); p <= stored {
		t.Fatalf("a new endpoint starts at %d, below the stored positions (%d)", p, stored)
	}

	if warning, refusal := movedFeed(t, db); warning != "" || refusal != "" {
		t.Fatalf("MovedFeed after Up raised the offset: %q, %q", warning, refusal)
	}
	offset := scalar(t, db, "SELECT feed_position_offset()")
	if n := migrateUp(t, db); len(n) != 0 {
		t.Fatalf("a second Up announced %q, want nothing", n)
	}
	if again := scalar(t, db, "SELECT feed_position_offset()"); again != offset {
		t.Fatalf("a second Up moved the offset from %d to %d", offset, again)
	}
}

// TestDownRefusesARaisedOffset: rolling back the offset's migration on a
// moved database would put every new change behind the stored ones.
func TestDownRefusesARaisedOffset(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenDirect(t)
	if _, err := db.ExecContext(ctx, `CREATE OR REPLACE FUNCTION feed_position_offset() RETURNS bigint
		LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT 5::bigint $$`); err != nil {
		t.Fatal(err)
	}
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	for {
		down, err := m.Down(ctx, database.DownTo{All: true})
		if err != nil {
			if !strings.Contains(err.Error(), "position offset is 5") {
				t.Fatalf("down: %v, want the offset's refusal", err)
			}
			return
		}
		if len(down) == 0 {
			t.Fatal("every migration rolled back with a raised offset")
		}
	}
}
