package database

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace"
)

// Retries of transactions that PostgreSQL aborted because of a concurrent
// one: TxAttempts runs in all, the n-th retry waiting a random time up to
// txBackoffBase·2ⁿ⁻¹ (at most txBackoffMax), so that two transactions that
// collided do not collide again in lockstep.
const (
	TxAttempts    = 4
	txBackoffBase = 20 * time.Millisecond
	txBackoffMax  = 250 * time.Millisecond
)

// RunInTxWith runs fn in a transaction with opts and commits it when fn
// returns nil.
//
// Only the outermost transaction is retried. When db is a pool or a single
// connection, a serialization failure (SQLSTATE 40001) or a deadlock
// (40P01), raised by a statement of fn or by COMMIT, rolls the transaction
// back and runs fn again in a new one, up to TxAttempts times in all; the
// last error is returned (database.Error makes it a 503 with Retry-After).
//
// When db is already a transaction, fn runs under a savepoint and nothing is
// retried here: PostgreSQL aborts the whole transaction on these errors, so
// only its owner can start the unit of work again. The Idempotency-Key
// middleware owns the transaction of a keyed request; it answers such an
// error with 503 and releases the key, so the client's retry runs the whole
// request again (docs/decisions.md).
//
// fn gets ctx itself. bun hands its function the context its BEGIN's query
// hook returned (under a savepoint, the outer transaction's), so every
// statement's span would be a child of the BEGIN span, which has ended,
// and a value the caller put in ctx after the outer BEGIN would be lost.
func RunInTxWith(ctx context.Context, db bun.IDB, opts *sql.TxOptions, fn func(ctx context.Context, tx bun.Tx) error) error {
	inCtx := func(txCtx context.Context, tx bun.Tx) error {
		// Without a span of the caller's (background work) BEGIN is the
		// root of the transaction's trace: its statements join it.
		if !trace.SpanContextFromContext(ctx).IsValid() {
			if sc := trace.SpanContextFromContext(txCtx); sc.IsValid() {
				return fn(trace.ContextWithSpanContext(ctx, sc), tx)
			}
		}
		return fn(ctx, tx)
	}
	if IsTx(db) {
		return db.RunInTx(ctx, opts, inCtx)
	}
	var err error
	for attempt := 1; ; attempt++ {
		err = db.RunInTx(ctx, opts, inCtx)
		if err == nil || !Retryable(err) || attempt == TxAttempts {
			return err
		}
		if werr := backoff(ctx, attempt); werr != nil {
			return err
		}
	}
}

// Retryable reports whether err is a serialization failure or a deadlock,
// which succeed when the whole transaction runs again.
func Retryable(err error) bool {
	return HasCode(err, pgerrcode.SerializationFailure, pgerrcode.DeadlockDetected)
}

// IsTx reports whether db is a transaction, in which RunInTxWith runs fn
// under a savepoint: without retries, and with the outer transaction's
// isolation whatever opts says.
func IsTx(db bun.IDB) bool {
	switch db.(type) {
	case bun.Tx, *bun.Tx:
		return true
	}
	return false
}

// backoff waits before retry number attempt (1, 2, …) with full jitter, or
// returns ctx's error when it ends first.
func backoff(ctx context.Context, attempt int) error {
	limit := txBackoffBase << (attempt - 1)
	if limit > txBackoffMax {
		limit = txBackoffMax
	}
	t := time.NewTimer(time.Duration(rand.Int64N(int64(limit)) + 1))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// LastTry is the least time a write tried again at shutdown keeps for its
// last attempt before the shutdown's deadline (the request log's last
// flush, the keys' last use: docs/observability.md, "How it is written").
const LastTry = 250 * time.Millisecond

// WaitBefore returns a wait of d before a write is tried again, cut to end
// LastTry before by, and 0 or less when not even that is left: a write
// given until by is tried again as long as a try fits, instead of giving
// up when its next wait would end after by.
func WaitBefore(d time.Duration, by time.Time) time.Duration {
	return min(d, time.Until(by)-LastTry)
}
