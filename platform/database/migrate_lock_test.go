package database_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// The migration that adds a column to changes (20261206010000) takes the
// table's lock in short attempts (lock_for_migration): behind a reader
// that keeps changes in use, it waits without queueing the writes of
// records, each of which inserts a change, behind its own wait
// (docs/helm.md, "Upgrades and migrations"). A plain ALTER TABLE would
// hold every writer until the reader ends.
func TestChangesColumnWaitsWithoutQueueingWrites(t *testing.T) {
	ctx := context.Background()
	db := openMigrationPool(t, pgtest.NewEmptyDatabase(t))
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Down(ctx, database.DownTo{Migration: "20261205020000"}); err != nil {
		t.Fatal(err)
	}

	reader, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reader.Rollback() })
	if _, err := reader.ExecContext(ctx, "SELECT count(*) FROM changes"); err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() { _, err := m.Up(ctx); done <- err }()
	waitWhileUp(t, db, done, "a session waiting for the lock of changes", `SELECT EXISTS (SELECT 1 FROM pg_locks
		WHERE relation = 'changes'::regclass AND mode = 'AccessExclusiveLock' AND NOT granted)`)

	// Each round is what a record's write does to changes (an INSERT takes
	// ROW EXCLUSIVE). It gets through while the migration waits.
	for range 3 {
		if err := writeToChanges(ctx, db); err != nil {
			t.Fatalf("a write to changes while the migration waits for its lock: %v", err)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("up returned %v while a reader held changes", err)
	default:
	}

	if err := reader.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("up after the reader ended: %v", err)
	}
	var has bool
	if err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM information_schema.columns
		WHERE table_name = 'changes' AND column_name = 'rendered_size')`).Scan(ctx, &has); err != nil || !has {
		t.Fatalf("changes.rendered_size after up: %v, %v", has, err)
	}
}

// writeToChanges takes the lock an INSERT into changes takes, in a
// transaction of its own, and gives up after 30 s or the pool's statement
// timeout: a writer queued behind a migration that waits for a reader
// would wait as long as the reader.
func writeToChanges(ctx context.Context, db *bun.DB) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "LOCK TABLE changes IN ROW EXCLUSIVE MODE")
		return err
	})
}
