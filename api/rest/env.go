package rest

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"
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

	largeWrites []Route
}

// Route is a registered route: its method and its Fiber path, the group's
// prefix included (/api/v2/quotes/:id).
type Route struct{ Method, Path string }

// MarkLargeWrite records that the write method path, registered on router,
// answers under LargeReads, so that its slot is taken before the request's
// transaction opens (Bulkhead.Hold). Call it where the route is
// registered, beside the handler that calls LargeReads.Run.
func (e *Env) MarkLargeWrite(router fiber.Router, method, path string) {
	if g, ok := router.(*fiber.Group); ok {
		path = g.Prefix + path
	}
	e.largeWrites = append(e.largeWrites, Route{Method: method, Path: path})
}

// LargeWrites lists the routes MarkLargeWrite recorded. Read it once every
// route is registered.
func (e *Env) LargeWrites() []Route { return e.largeWrites }

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
