package database_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestUpAdvancesSequencesBehindTheirColumns: a database moved by logical
// replication gets its rows but not its sequences (docs/changes.md, "A
// moved database"). With changes.seq and the migrations table's id
// started again low, every write that records a change fails as a
// duplicate; serve refuses the database naming `eventapi migrate up`, which
// advances both, says so, and leaves alone an identity column no index
// leads (reading its max would scan the table), then finds nothing to do.
func TestUpAdvancesSequencesBehindTheirColumns(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenDirect(t)
	org, client := uuid.New(), uuid.New()
	if _, err := db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'Replicated')", org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewRaw("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'One')", client, org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Two", "Three"} {
		if _, err := db.NewRaw("UPDATE clients SET name = ? WHERE id = ? AND organization_id = ?", name, client, org).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	seq := scalar(t, db, "SELECT max(seq) FROM changes")
	for _, q := range []string{
		"ALTER TABLE changes ALTER COLUMN seq RESTART WITH 1",
		"SELECT setval(pg_get_serial_sequence('schema_migrations', 'id'), 1, false)",
		// An identity column without an index, behind as well: not read.
		"CREATE TABLE unindexed (n bigint GENERATED ALWAYS AS IDENTITY, v int)",
		"INSERT INTO unindexed (v) SELECT g FROM generate_series(1, 3) g",
		"ALTER TABLE unindexed ALTER COLUMN n RESTART WITH 1",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_, err := db.NewRaw("UPDATE clients SET name = 'Lost' WHERE id = ? AND organization_id = ?", client, org).Exec(ctx)
	if !errs.Is(database.Error(err), errs.DuplicateRecord) {
		t.Fatalf("a write with changes.seq behind: %v, want a duplicate", err)
	}

	_, refusal := movedFeed(t, db)
	for _, want := range []string{"changes.seq", "schema_migrations.id", "run `eventapi migrate up`"} {
		if !strings.Contains(refusal, want) {
			t.Fatalf("serve's refusal %q, want %q in it", refusal, want)
		}
	}
	if strings.Contains(refusal, "unindexed") {
		t.Fatalf("serve's refusal %q reads the unindexed column", refusal)
	}

	notices := migrateUp(t, db)
	if len(notices) != 2 || !strings.Contains(notices[0], "changes_seq_seq") || !strings.Contains(notices[1], "schema_migrations_id_seq") ||
		!strings.Contains(notices[0], "advancing it") {
		t.Fatalf("Up announced %q, want the two sequences advanced", notices)
	}
	if _, err := db.NewRaw("UPDATE clients SET name = 'Kept' WHERE id = ? AND organization_id = ?", client, org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if got := scalar(t, db, "SELECT max(seq) FROM changes"); got != seq+1 {
		t.Fatalf("the change written after Up took seq %d, want %d", got, seq+1)
	}
	if warning, refusal := movedFeed(t, db); warning != "" || refusal != "" {
		t.Fatalf("MovedFeed after Up: %q, %q", warning, refusal)
	}
	if n := migrateUp(t, db); len(n) != 0 {
		t.Fatalf("a second Up announced %q, want nothing", n)
	}
}

// TestSequencesBehindWithoutPrivilege: a role that may not read the
// sequences or their tables (a service role granted only USAGE on
// sequences) gets no sequence behind and no error, so serve starts; the
// role that owns the schema sees the same sequence behind.
func TestSequencesBehindWithoutPrivilege(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenDirect(t)
	if _, err := db.ExecContext(ctx, "SELECT setval(pg_get_serial_sequence('schema_migrations', 'id'), 1, false)"); err != nil {
		t.Fatal(err)
	}
	if behind, err := database.SequencesBehind(ctx, db); err != nil || len(behind) != 1 {
		t.Fatalf("the owner: %d behind, %v; want the migrations table's sequence", len(behind), err)
	}
	conn := asUnprivileged(t, db)
	if behind, err := database.SequencesBehind(ctx, conn); err != nil || len(behind) != 0 {
		t.Fatalf("without privileges: %d behind, %v; want none and no error", len(behind), err)
	}
}
