package database

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The migration lock: one migrator at a time, across pods, migrates a
// database; the others wait for it to finish.

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
