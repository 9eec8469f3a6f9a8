package database

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

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

// MigrationStatus is one migration and whether it is applied. Unknown marks
// a migration the database records as applied that this binary does not
// know (a newer release applied it); it has no comment, since the database
// stores only the name.
type MigrationStatus struct {
	Name    string `json:"name"`
	Comment string `json:"comment"`
	Applied bool   `json:"applied"`
	Unknown bool   `json:"unknown,omitempty"`
	GroupID int64  `json:"group_id,omitempty"`
}

// String is the migration's file name stem, or its bare name when unknown.
func (s MigrationStatus) String() string {
	if s.Comment == "" {
		return s.Name
	}
	return s.Name + "_" + s.Comment
}

// Schema compares the database's applied migrations with this binary's.
type Schema struct {
	// Pending are the migrations this binary knows that are not applied,
	// in the order they would be applied.
	Pending []string
	// Unknown are the applied migrations this binary does not know, in
	// ascending order.
	Unknown []string
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

// locked runs fn while holding the migration lock, after creating the
// migration tables if they are missing.
func (m *Migrator) locked(ctx context.Context, fn func(ctx context.Context) error) error {
	// The lock is transaction-scoped and held by a transaction of its own
	// that stays open while fn migrates on other connections: a session lock
	// would be unsafe behind a transaction pooler (PgBouncer could hand the
	// unlock to another server connection), while an open transaction keeps
	// its server connection until it ends. Rolling it back releases the lock.
	// The pool therefore needs a second connection for the migrations.
	if n := m.db.DB.Stats().MaxOpenConnections; n == 1 {
		return errors.New("migrations need a pool of at least 2 connections (one holds the migration lock)")
	}
	tx, err := m.lock(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := m.m.Init(ctx); err != nil {
		return fmt.Errorf("init migration tables: %w", err)
	}
	return fn(ctx)
}

// Waits between two tries of a migrator waiting for the lock: the n-th
// waits lockPollBase·2ⁿ⁻¹, at most lockPollMax.
const (
	lockPollBase = 50 * time.Millisecond
	lockPollMax  = time.Second
)

// lock returns a transaction holding the migration lock. When another
// migrator holds it, lock says so through Notify and tries again, for as
// long as that migrator runs: the wait is bounded only by ctx (a signal, or
// the caller's deadline), since a migration of a large table can take long
// and a second pod that gave up would only fail its start.
//
// A waiter tries in a new short transaction each time, and never waits
// inside PostgreSQL (pg_advisory_xact_lock): a statement waiting there
// holds its snapshot, and a concurrent index build of the holder
// (migrate_concurrent.go) waits for every transaction with an older
// snapshot to end. The holder would wait for the waiter, which waits for
// the holder, unseen by PostgreSQL's deadlock detector since the holder's
// own transaction is idle. A try that fails ends its transaction at once,
// so a build that saw it waits no longer than the try.
func (m *Migrator) lock(ctx context.Context) (bun.Tx, error) {
	for try := 1; ; try++ {
		tx, got, err := m.tryLock(ctx)
		if err != nil || got {
			return tx, err
		}
		if try == 1 {
			m.notify("another migrator holds the migration lock: waiting for it to finish")
		}
		if err := pollWait(ctx, try); err != nil {
			return bun.Tx{}, fmt.Errorf("take migration lock: %w", err)
		}
	}
}

// pollWait waits before the next try after the try-th: lockPollBase·2ⁿ⁻¹,
// at most lockPollMax, or until ctx ends, whose error it returns.
func pollWait(ctx context.Context, try int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(min(lockPollMax, lockPollBase<<min(try-1, 10))):
		return nil
	}
}

// tryLock begins a transaction with the session's timeouts lifted, which
// the lock's transaction outlives while the migrations run, and tries the
// lock in it. It returns the transaction when it got the lock, and rolls it
// back otherwise.
func (m *Migrator) tryLock(ctx context.Context) (bun.Tx, bool, error) {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return bun.Tx{}, false, fmt.Errorf("migration lock transaction: %w", err)
	}
	var got bool
	err = liftTimeouts(ctx, tx)
	if err == nil {
		err = tx.NewRaw("SELECT pg_try_advisory_xact_lock(?)", int64(migrationLockID)).Scan(ctx, &got)
		if err != nil {
			err = fmt.Errorf("take migration lock: %w", err)
		}
	}
	if err == nil && got {
		err = releaseSnapshot(ctx, tx)
	}
	if err != nil || !got {
		_ = tx.Rollback()
		return bun.Tx{}, false, err
	}
	return tx, true, nil
}

// releaseSnapshot runs a statement that takes no snapshot in tx. The
// portal of a transaction's last statement keeps that statement's snapshot
// until the next one replaces it, so the lock's transaction, idle while the
// migrations run, would hold its xmin: a concurrent index build
// (migrate_concurrent.go) waits for every transaction holding an older
// snapshot and would wait for the lock's transaction, which waits for it,
// and vacuum could not remove what the migrations make dead meanwhile.
func releaseSnapshot(ctx context.Context, tx bun.Tx) error {
	if _, err := tx.ExecContext(ctx, "SET LOCAL eventapi.migration_lock = 'held'"); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	return nil
}

func (m *Migrator) notify(msg string) {
	if m.Notify != nil {
		m.Notify(msg)
	}
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

// DownTo says how far Down rolls back.
type DownTo struct {
	// Migration, when set, is the newest migration to keep (its name, such
	// as 20261202180100, or its file name stem): every applied migration
	// named after it is rolled back, however many migrate ups applied them.
	Migration string
	// All rolls back every applied migration, the whole schema.
	All bool
}

// ErrWholeSchema marks a refusal to roll back every applied migration
// without DownTo.All.
var ErrWholeSchema = errors.New("the rollback would drop the whole schema")

// Down rolls back the applied migrations to reach to and returns the names
// rolled back, in the order they ran (newest first). Without a target it
// rolls back the last applied group (one migrate up that applied
// something), and refuses when that group holds every applied migration (a
// fresh install's only group) unless to.All is set. With a target, the
// migrations to roll back are first made the last group, so that bun rolls
// back exactly them (docs/decisions.md, "Database"). It refuses a database
// that holds migrations this binary does not know: bun would roll back the
// last group it knows, older than theirs, and drop what they build on.
// Before rolling back every applied migration it says so through Notify.
func (m *Migrator) Down(ctx context.Context, to DownTo) ([]string, error) {
	if to.All && to.Migration != "" {
		return nil, errors.New("migrate down: give a migration to keep or all, not both")
	}
	var names []string
	err := m.locked(ctx, func(ctx context.Context) error {
		st, err := m.statuses(ctx)
		if err != nil {
			return err
		}
		if u := schemaOf(st).Unknown; len(u) > 0 {
			return newerSchema("migrate down", u, ": run that release's `eventapi migrate down` first, until none is left")
		}
		newer, err := rollbackSet(st, to)
		if err != nil || (newer != nil && len(newer) == 0) {
			return err
		}
		if newer != nil {
			if err := m.regroup(ctx, newer); err != nil {
				return err
			}
		}
		// A bare down whose group is the whole schema was refused above.
		if applied := countApplied(st); applied > 0 && len(newer) == applied {
			m.notify(fmt.Sprintf("warning: rolling back all %d applied migrations, the whole schema: every table is dropped with its data", applied))
		}
		g, err := m.m.Rollback(ctx)
		if err != nil {
			return fmt.Errorf("migrate down: %w", err)
		}
		for i := len(g.Migrations) - 1; i >= 0; i-- {
			names = append(names, g.Migrations[i].String())
		}
		return nil
	})
	return names, err
}

// rollbackSet names the applied migrations that to rolls back when they are
// not simply the last group: those after to.Migration, or all of them for
// to.All (an empty, non-nil slice when there are none). It is nil for the
// last group, which it refuses when that is every applied migration.
func rollbackSet(st []MigrationStatus, to DownTo) ([]string, error) {
	var applied []string
	keep := -1
	for _, s := range st {
		if !s.Applied {
			continue
		}
		if to.Migration != "" && (s.Name == to.Migration || s.String() == to.Migration) {
			keep = len(applied)
		}
		applied = append(applied, s.Name)
	}
	switch {
	case to.All:
		return append([]string{}, applied...), nil
	case to.Migration != "":
		if keep < 0 {
			return nil, fmt.Errorf("migrate down: no applied migration is named %q (`eventapi migrate status` lists them)", to.Migration)
		}
		return append([]string{}, applied[keep+1:]...), nil
	case lastGroupIsAll(st):
		return nil, fmt.Errorf("migrate down: %w: the last group holds all %d applied migrations; "+
			"give --all to drop every table with its data, or --to the newest migration to keep", ErrWholeSchema, len(applied))
	}
	return nil, nil
}

// regroup makes the applied migrations names the last group, for bun's
// Rollback, which rolls back the last group, to roll back exactly them.
func (m *Migrator) regroup(ctx context.Context, names []string) error {
	_, err := m.db.NewRaw(`UPDATE ? SET group_id = (SELECT coalesce(max(group_id), 0) + 1 FROM ?) WHERE name IN (?)`,
		bun.Ident(migrationsTable), bun.Ident(migrationsTable), bun.List(names)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("migrate down: regroup the migrations to roll back: %w", err)
	}
	return nil
}

// countApplied is how many migrations st records as applied.
func countApplied(st []MigrationStatus) int {
	n := 0
	for _, s := range st {
		if s.Applied {
			n++
		}
	}
	return n
}

// lastGroupIsAll reports whether the last applied group holds every
// applied migration.
func lastGroupIsAll(st []MigrationStatus) bool {
	var applied, last int
	var lastGroup int64
	for _, s := range st {
		if !s.Applied {
			continue
		}
		applied++
		switch {
		case s.GroupID > lastGroup:
			lastGroup, last = s.GroupID, 1
		case s.GroupID == lastGroup:
			last++
		}
	}
	return applied > 0 && last == applied
}

// Status lists every migration this binary knows with its state, and the
// applied ones it does not know (Unknown), in name order. It takes no lock
// and creates nothing: it answers at once while a migration runs (showing
// the state before it), and on a database never migrated lists every
// migration as pending.
func (m *Migrator) Status(ctx context.Context) ([]MigrationStatus, error) {
	return m.statuses(ctx)
}

// Schema compares the database with this binary's migrations, as Status
// does (no lock, nothing created).
func (m *Migrator) Schema(ctx context.Context) (Schema, error) {
	st, err := m.statuses(ctx)
	if err != nil {
		return Schema{}, err
	}
	return schemaOf(st), nil
}

// statuses merges the known migrations with the applied ones.
func (m *Migrator) statuses(ctx context.Context) ([]MigrationStatus, error) {
	applied, err := m.applied(ctx)
	if err != nil {
		return nil, err
	}
	return mergeStatuses(m.known.Sorted(), applied), nil
}

// mergeStatuses is known, in order, with the state applied records for
// each, followed by the applied migrations known does not hold, the whole
// sorted by name.
func mergeStatuses(known, applied migrate.MigrationSlice) []MigrationStatus {
	byName := make(map[string]migrate.Migration, len(applied))
	for _, a := range applied {
		byName[a.Name] = a
	}
	out := make([]MigrationStatus, 0, len(known)+len(applied))
	for _, k := range known {
		s := MigrationStatus{Name: k.Name, Comment: k.Comment}
		if a, ok := byName[k.Name]; ok {
			s.Applied, s.GroupID = true, a.GroupID
			delete(byName, k.Name)
		}
		out = append(out, s)
	}
	for _, a := range byName {
		out = append(out, MigrationStatus{Name: a.Name, Applied: true, Unknown: true, GroupID: a.GroupID})
	}
	slices.SortFunc(out, func(a, b MigrationStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// applied reads the applied migrations; none when the migrations table does
// not exist yet.
func (m *Migrator) applied(ctx context.Context) (migrate.MigrationSlice, error) {
	var exists bool
	if err := m.db.NewRaw("SELECT to_regclass(?) IS NOT NULL", migrationsTable).Scan(ctx, &exists); err != nil {
		return nil, fmt.Errorf("read migration status: %w", err)
	}
	if !exists {
		return nil, nil
	}
	ms, err := m.m.AppliedMigrations(ctx)
	if err != nil {
		return nil, fmt.Errorf("read migration status: %w", err)
	}
	return ms, nil
}

// schemaOf sorts st into the pending and the unknown migrations.
func schemaOf(st []MigrationStatus) Schema {
	var s Schema
	for _, m := range st {
		switch {
		case m.Unknown:
			s.Unknown = append(s.Unknown, m.String())
		case !m.Applied:
			s.Pending = append(s.Pending, m.String())
		}
	}
	return s
}

// listNames joins names for a message, eliding the middle of a long list.
func listNames(names []string) string {
	if len(names) > 4 {
		return fmt.Sprintf("%s, %s, … %s", names[0], names[1], names[len(names)-1])
	}
	return strings.Join(names, ", ")
}

// DescribePending is the message for a database that lacks migrations this
// binary needs: how many, which, and the command that applies them.
func DescribePending(pending []string) string {
	return fmt.Sprintf("the database lacks %d of this release's migrations (%s): run `eventapi migrate up` against it first (or start with `eventapi serve --migrate`)",
		len(pending), listNames(pending))
}

// DescribeUnknown is the message for a database that holds migrations this
// binary does not know.
func DescribeUnknown(unknown []string) string {
	return ErrNewerSchema.Error() + unknownList(unknown)
}

// unknownList names the applied migrations this binary does not know.
func unknownList(unknown []string) string {
	return " (applied migrations unknown to this binary: " + listNames(unknown) + ")"
}

// newerSchema is op's refusal of a database holding the unknown
// migrations, wrapping ErrNewerSchema, with advice appended.
func newerSchema(op string, unknown []string, advice string) error {
	return fmt.Errorf("%s: %w%s%s", op, ErrNewerSchema, unknownList(unknown), advice)
}
