package rest

import (
	"context"
	"log/slog"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// Env is what resource handlers need from the process.
type Env struct {
	DB      *bun.DB
	Cursors *storage.Cursors
	Log     *slog.Logger
	// LargeReads bounds the large responses built at once (nil: no bound).
	LargeReads *Bulkhead
}

type txKey struct{}

// WithTx makes tx the connection of every store call in ctx. The idempotency
// middleware uses it to run a write and the record of its Idempotency-Key in
// one transaction.
func WithTx(ctx context.Context, tx bun.Tx) context.Context {
	return context.WithValue(ctx, txKey{}, tx)
}

// Conn returns the request's transaction if one was opened for it, else the
// pool. Handlers always reach the database through Conn, never env.DB
// directly. bun.Tx.RunInTx nests as a savepoint, so stores may still open
// their own transactions on it.
func (e *Env) Conn(ctx context.Context) bun.IDB {
	if tx, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return tx
	}
	return e.DB
}
