package database_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestUpRaisesTheFeedOffsetOnAnotherCluster: the cluster `migrate up`
// records decides with the transaction counter rule (docs/changes.md, "A
// moved database"). A database that changed clusters is served with a
// warning, not refused, and `migrate up` raises the offset so that new
// changes follow every stored position by the margin, also when the new
// counter is already past them (a dump taken while the old server kept
// running: its later cursors are above the stored positions), but leaves
// it when the next position is already the margin above them; the first
// run of this release only records the cluster, on top of the counter
// rule. Each case ends recorded, silent on a second run.
func TestUpRaisesTheFeedOffsetOnAnotherCluster(t *testing.T) {
	const (
		anotherCluster = "UPDATE feed_cluster SET system_identifier = system_identifier # 1"
		firstRun       = "DELETE FROM feed_cluster"
	)
	cases := []struct {
		name  string
		setup []string
		// shift raises the stored positions, as a restore on a cluster
		// whose counter is behind brings them (move).
		shift int64
		// warned and refused are what serve makes of the database; notice
		// what `migrate up` announces ("" for nothing), raised whether the
		// offset grows.
		warned, refused bool
		notice          string
		raised          bool
	}{
		{name: "another cluster whose counter is past the stored positions", setup: []string{anotherCluster},
			warned: true, notice: "cluster changed", raised: true},
		{name: "another cluster whose counter is behind", setup: []string{anotherCluster}, shift: 1_000_000,
			refused: true, notice: "at or above the next position", raised: true},
		{name: "another cluster, the next position already the margin past", setup: []string{anotherCluster,
			`CREATE OR REPLACE FUNCTION feed_position_offset() RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT 2000000000::bigint $$`},
			warned: true, notice: "so the offset stays"},
		{name: "the first run of this release", setup: []string{firstRun}},
		{name: "the first run, the counter behind", setup: []string{firstRun}, shift: 1_000_000,
			refused: true, notice: "at or above the next position", raised: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db := pgtest.OpenDirect(t)
			cluster := scalar(t, db, "SELECT system_identifier FROM pg_control_system()")
			if got := scalar(t, db, "SELECT system_identifier FROM feed_cluster"); got != cluster {
				t.Fatalf("a migrated database records the cluster %d, want %d", got, cluster)
			}
			org, client := uuid.New(), uuid.New()
			if _, err := db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'Moved')", org).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := db.NewRaw("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'Before')", client, org).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			for _, q := range tc.setup {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			if tc.shift != 0 {
				move(t, db, tc.shift)
			}
			stored := scalar(t, db, "SELECT max(position::text::bigint) FROM changes")
			offset := scalar(t, db, "SELECT feed_position_offset()")

			warning, refusal := movedFeed(t, db)
			if (refusal != "") != tc.refused || tc.refused && !strings.Contains(refusal, "run `eventapi migrate up`") {
				t.Fatalf("serve's refusal %q, want one: %v", refusal, tc.refused)
			}
			if !tc.refused && (warning != "") != tc.warned || warning != "" && !strings.Contains(warning, "run it") {
				t.Fatalf("serve's warning %q, want one: %v", warning, tc.warned)
			}

			notices := migrateUp(t, db)
			if tc.notice == "" && len(notices) != 0 || tc.notice != "" && (len(notices) != 1 || !strings.Contains(notices[0], tc.notice)) {
				t.Fatalf("Up announced %q, want %q", notices, tc.notice)
			}
			if got := scalar(t, db, "SELECT system_identifier FROM feed_cluster"); got != cluster {
				t.Fatalf("Up recorded the cluster %d, want %d", got, cluster)
			}
			raised := scalar(t, db, "SELECT feed_position_offset()")
			if raised < offset || (raised > offset) != tc.raised {
				t.Fatalf("offset %d after Up, from %d; want raised: %v", raised, offset, tc.raised)
			}
			if _, err := db.NewRaw("UPDATE clients SET name = 'After' WHERE id = ? AND organization_id = ?", client, org).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			after := scalar(t, db, "SELECT position::text::bigint FROM changes WHERE object_id = ? ORDER BY seq DESC LIMIT 1", client)
			// A cursor the old server handed out after the copy was taken
			// is above every stored position, and within the margin.
			if tc.raised && after < stored+database.FeedOffsetMargin {
				t.Fatalf("the change written after Up is at %d, want at least the stored %d plus the margin", after, stored)
			}
			if after <= stored {
				t.Fatalf("the change written after Up is at %d, not after the stored %d", after, stored)
			}

			if warning, refusal := movedFeed(t, db); warning != "" || refusal != "" {
				t.Fatalf("MovedFeed after Up: %q, %q", warning, refusal)
			}
			if n := migrateUp(t, db); len(n) != 0 {
				t.Fatalf("a second Up announced %q, want nothing", n)
			}
			if again := scalar(t, db, "SELECT feed_position_offset()"); again != raised {
				t.Fatalf("a second Up moved the offset from %d to %d", raised, again)
			}
		})
	}
}

// TestCurrentClusterWithoutPrivilege: a role that may not call
// pg_control_system() (a managed service may revoke it) gets no
// identifier and no error, and the feed keeps the transaction counter rule
// alone. The function's grant is the test database's own (pg_proc is per
// database); the role is the server's, made once and left without
// privileges.
func TestCurrentClusterWithoutPrivilege(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenDirect(t)
	if _, err := db.ExecContext(ctx, "REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC"); err != nil {
		t.Fatal(err)
	}
	id, err := database.CurrentCluster(ctx, asUnprivileged(t, db))
	if err != nil || id.Valid {
		t.Fatalf("the identifier read without the privilege: %v, %v; want none and no error", id, err)
	}
}
