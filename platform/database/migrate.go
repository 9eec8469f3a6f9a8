package database

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockID is the pg_advisory_xact_lock key that serializes migrators
// across pods ("eventapi" in ASCII, truncated to int64).
const migrationLockID = 0x6576656e74617069

// Migrations returns the embedded SQL migrations.
func Migrations() (*migrate.Migrations, error) {
	ms := migrate.NewMigrations()
	if err := ms.Discover(migrationFiles); err != nil {
		return nil, fmt.Errorf("discover migrations: %w", err)
	}
	return ms, nil
}

// MigrationStatus is one migration and whether it is applied.
type MigrationStatus struct {
	Name    string `json:"name"`
	Comment string `json:"comment"`
	Applied bool   `json:"applied"`
	GroupID int64  `json:"group_id,omitempty"`
}

// Migrator runs migrations under a PostgreSQL advisory lock, so two pods that
// start together wait for each other instead of racing.
type Migrator struct {
	db *bun.DB
	m  *migrate.Migrator
}

// NewMigrator returns a Migrator over the embedded migrations.
func NewMigrator(db *bun.DB) (*Migrator, error) {
	ms, err := Migrations()
	if err != nil {
		return nil, err
	}
	return &Migrator{db: db, m: migrate.NewMigrator(db, ms,
		migrate.WithTableName("schema_migrations"),
		migrate.WithLocksTableName("schema_migration_locks"),
		migrate.WithMarkAppliedOnSuccess(true))}, nil
}

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
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration lock transaction: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", int64(migrationLockID)); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	if err := m.m.Init(ctx); err != nil {
		return fmt.Errorf("init migration tables: %w", err)
	}
	return fn(ctx)
}

// Up applies every pending migration and returns the names applied.
func (m *Migrator) Up(ctx context.Context) ([]string, error) {
	var names []string
	err := m.locked(ctx, func(ctx context.Context) error {
		g, err := m.m.Migrate(ctx)
		if err != nil {
			return fmt.Errorf("migrate up: %w", err)
		}
		for _, mg := range g.Migrations {
			names = append(names, mg.Name+"_"+mg.Comment)
		}
		return nil
	})
	return names, err
}

// Down rolls back the last applied group and returns the names rolled back.
func (m *Migrator) Down(ctx context.Context) ([]string, error) {
	var names []string
	err := m.locked(ctx, func(ctx context.Context) error {
		g, err := m.m.Rollback(ctx)
		if err != nil {
			return fmt.Errorf("migrate down: %w", err)
		}
		for _, mg := range g.Migrations {
			names = append(names, mg.Name+"_"+mg.Comment)
		}
		return nil
	})
	return names, err
}

// Status lists every migration with its state.
func (m *Migrator) Status(ctx context.Context) ([]MigrationStatus, error) {
	var out []MigrationStatus
	err := m.locked(ctx, func(ctx context.Context) error {
		ms, err := m.m.MigrationsWithStatus(ctx)
		if err != nil {
			return err
		}
		for _, mg := range ms {
			out = append(out, MigrationStatus{Name: mg.Name, Comment: mg.Comment, Applied: mg.IsApplied(), GroupID: mg.GroupID})
		}
		return nil
	})
	return out, err
}
