package database

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgerrcode"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// ErrMigratedMeanwhile marks a migration that another migrator applied, or
// rolled back, while this one ran it: its transaction is rolled back, so
// the schema holds the other migrator's work once. It happens only when
// the migration lock was lost (behind a pooler that ended the lock's
// transaction, docs/helm.md "Migrations"); running the command again
// finds the state as it is.
var ErrMigratedMeanwhile = errors.New("another migrator applied or rolled back this migration meanwhile (the migration lock was lost); run the command again")

// recordInTransaction is the hook bun runs after each migration's
// statements, in the migration's own transaction. It writes the
// migration's record when applying it and deletes the record when rolling
// it back, so that the schema change
// and its record commit together: bun records a migration only after its
// transaction committed, and a process that died between the two would
// leave a change applied but unrecorded, which the next `migrate up` would
// apply again and fail on ("relation … already exists"), keeping every pod
// from starting.
//
// The record is a plain insert against the unique index on the name, so a
// migration's changes commit at most once even if two migrators ran it
// (ErrMigratedMeanwhile). bun then writes the record again after the
// commit, as an upsert (WithUpsert) that updates the same row, and a
// rollback's delete by id after the commit finds nothing left to delete.
//
// A concurrent migration (migrate_concurrent.go) has no transaction: its
// record is written on its session right after its statements. A process
// that dies between the two leaves its indexes built and unrecorded, and
// the next `migrate up` runs it again, each statement then finding its
// work done (IF NOT EXISTS, IF EXISTS).
//
// A migration bun has not applied has no id yet (Migration.IsApplied), which
// tells applying from rolling back.
func recordInTransaction(ctx context.Context, conn bun.IConn, mg *migrate.Migration) error {
	if !mg.IsApplied() {
		_, err := conn.ExecContext(ctx, "INSERT INTO ? (name, group_id) VALUES (?, ?)",
			bun.Ident(migrationsTable), mg.Name, mg.GroupID)
		if isUniqueViolation(err) {
			return fmt.Errorf("record migration %s: %w", mg, ErrMigratedMeanwhile)
		}
		if err != nil {
			return fmt.Errorf("record migration %s: %w", mg, err)
		}
		return nil
	}
	res, err := conn.ExecContext(ctx, "DELETE FROM ? WHERE name = ?", bun.Ident(migrationsTable), mg.Name)
	if err != nil {
		return fmt.Errorf("remove the record of migration %s: %w", mg, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("remove the record of migration %s: %w", mg, ErrMigratedMeanwhile)
	}
	return nil
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	return HasCode(err, pgerrcode.UniqueViolation)
}
