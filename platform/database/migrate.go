package database

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// The schema's migrations are the SQL files embedded below. A Migrator
// applies them (Up) while it holds the migration lock (migrate_lock.go),
// rolls them back (Down, migrate_down.go) and compares them with what the
// database records (Status, migrate_status.go).

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockID is the pg_advisory_xact_lock key that serializes migrators
// across pods ("eventapi" in ASCII, truncated to int64).
const migrationLockID = 0x6576656e74617069

// migrationsTable records the applied migrations (bun's table, renamed).
const migrationsTable = "schema_migrations"

// ErrNewerSchema marks a refusal to migrate a database that holds applied
// migrations this binary does not know: a newer release migrated it.
var ErrNewerSchema = errors.New("the database was migrated by a newer release")

// Migrations returns the embedded SQL migrations.
func Migrations() (*migrate.Migrations, error) {
	ms, _, err := discover(migrate.NewMigrations(), migrationFiles)
	return ms, err
}

// discover adds the migrations of fsys to ms and returns the statements of
// its concurrent ones (migrate_concurrent.go), which bun sees as empty.
func discover(ms *migrate.Migrations, fsys fs.FS) (*migrate.Migrations, map[string][]indexStatement, error) {
	plan, bunFS, err := concurrentFiles(fsys)
	if err != nil {
		return nil, nil, fmt.Errorf("discover migrations: %w", err)
	}
	if err := ms.Discover(bunFS); err != nil {
		return nil, nil, fmt.Errorf("discover migrations: %w", err)
	}
	return ms, plan, nil
}

// Migrator runs migrations under a PostgreSQL advisory lock, so two pods that
// start together wait for each other instead of racing.
type Migrator struct {
	db    *bun.DB
	known *migrate.Migrations
	m     *migrate.Migrator
	// concurrent holds the statements of the concurrent migrations by
	// file name (migrate_concurrent.go).
	concurrent map[string][]indexStatement
	// Pooler is the pool's Options.Pooler: behind a transaction pooler a
	// concurrent migration builds its indexes in transactions instead.
	Pooler string
	// Notify, when set, receives what an operation is about to do that its
	// caller should show before it happens: a wait for another migrator's
	// lock, a rollback of the whole schema, a raise of the change feed's
	// position offset.
	Notify func(msg string)
}

// NewMigrator returns a Migrator over the embedded migrations.
func NewMigrator(db *bun.DB) (*Migrator, error) {
	ms, plan, err := discover(migrate.NewMigrations(), migrationFiles)
	if err != nil {
		return nil, err
	}
	return newMigrator(db, ms, plan), nil
}

// newMigrator returns a Migrator over ms, whose concurrent migrations'
// statements are plan. Every migration runs with the session's timeouts
// lifted (beforeMigration) and is recorded, or its record removed, in its
// own transaction (recordInTransaction), or right after its statements
// for a concurrent one. WithUpsert makes bun's Init create a unique index
// on the migration's name, and turns bun's own record after the commit
// into an update of the row the transaction wrote.
func newMigrator(db *bun.DB, ms *migrate.Migrations, plan map[string][]indexStatement) *Migrator {
	m := &Migrator{db: db, known: ms, concurrent: plan}
	m.m = migrate.NewMigrator(db, ms,
		migrate.WithTableName(migrationsTable),
		migrate.WithLocksTableName("schema_migration_locks"),
		migrate.WithMarkAppliedOnSuccess(true),
		migrate.WithUpsert(true),
		migrate.BeforeMigration(m.beforeMigration),
		migrate.AfterMigration(recordInTransaction))
	return m
}

// liftTimeoutsSQL sets, for the rest of the transaction it runs in, every
// timeout that could cut a migration short to 0 (none): the pool's
// statement_timeout (Options.StatementTimeout, at least 15 s), or one set on the role or database
// (behind PgBouncer, docs/helm.md "Redis Cluster and PgBouncer"), would
// cancel a migration that copies a large table, and lock_timeout a wait for
// the migration lock. idle_in_transaction_session_timeout would end the lock
// transaction, idle while the migrations run on other connections, and the
// lock with it; transaction_timeout (PostgreSQL 17) would end either. Only
// the settings this server has are set, so the statement runs on every
// supported version. A setting made with is_local lasts until the
// transaction ends, so it never outlives it on a pooled server connection.
const liftTimeoutsSQL = `SELECT set_config(name, '0', true) ` + timeoutSettings

// timeoutSettings selects, from pg_settings, the timeouts a migration lifts
// that this server has.
const timeoutSettings = `FROM pg_settings
WHERE name IN ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout', 'transaction_timeout')`

// liftTimeouts runs liftTimeoutsSQL in tx.
func liftTimeouts(ctx context.Context, tx bun.IConn) error {
	if _, err := tx.ExecContext(ctx, liftTimeoutsSQL); err != nil {
		return fmt.Errorf("lift the migration's timeouts: %w", err)
	}
	return nil
}

// beforeMigration is the hook bun runs before each migration's statements:
// in a transactional migration's own transaction it lifts the timeouts;
// on the session bun opens for a concurrent one it runs the migration's
// statements (runConcurrent), bun's copy of them being empty.
func (m *Migrator) beforeMigration(ctx context.Context, conn bun.IConn, mg *migrate.Migration) error {
	if c, ok := conn.(bun.Conn); ok {
		return m.runConcurrent(ctx, c, mg)
	}
	return liftTimeouts(ctx, conn)
}

// Up applies every pending migration and returns the names applied. On a
// moved database it mends what the move broke (docs/changes.md, "A moved
// database"): before the migrations it advances the sequences a logical
// replication left behind their columns (advanceSequences); after them it
// raises the change feed's position offset when the new cluster's
// transaction counter is behind, or when the database changed clusters,
// and records the cluster (raiseFeedOffset). A
// database that holds migrations this binary does not know is left alone:
// with nothing pending that is a no-op (an older pod of a rolling update),
// and with something pending Up refuses, since it would apply this
// binary's migrations on top of a newer schema.
func (m *Migrator) Up(ctx context.Context) ([]string, error) {
	var names []string
	err := m.locked(ctx, func(ctx context.Context) error {
		st, err := m.statuses(ctx)
		if err != nil {
			return err
		}
		s := schemaOf(st)
		if len(s.Unknown) > 0 && len(s.Pending) > 0 {
			return newerSchema("migrate up", s.Unknown, fmt.Sprintf(
				", and lacks %d of this binary's (%s): migrate it with a release that knows every migration", len(s.Pending), listNames(s.Pending)))
		}
		if len(s.Unknown) == 0 {
			// Before the migrations, whose records take the migrations
			// table's sequence.
			if err := m.advanceSequences(ctx); err != nil {
				return err
			}
		}
		g, err := m.m.Migrate(ctx)
		if err != nil {
			return fmt.Errorf("migrate up: %w", err)
		}
		for _, mg := range g.Migrations {
			names = append(names, mg.String())
		}
		if len(s.Unknown) > 0 {
			// A newer release's schema: its own migrator keeps its feed
			// and its sequences.
			return nil
		}
		return m.raiseFeedOffset(ctx)
	})
	return names, err
}
