package rest

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest/bulkhead"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// Env is what resource handlers need from the process.
type Env struct {
	DB      *bun.DB
	Cursors *storage.Cursors
	Log     *slog.Logger
	// LargeReads bounds the large responses built at once (nil: no bound).
	LargeReads *bulkhead.Slots

	largeWrites []LargeWrite
}

// LargeWrite is a write route whose answer is built under LargeReads: its
// method, its Fiber path with the group's prefix (/api/v2/quotes/:id), and
// the two guards it is mounted behind: one of the Write scopes and one of
// the Read scopes (a PATCH answers the whole record, crud.Mount).
type LargeWrite struct {
	Method, Path string
	Write, Read  tenancy.ScopeSet
}

// Admits reports whether scopes pass both of the route's guards: a key that
// does not is refused (403) before the handler runs, so it must not wait
// for a slot first.
func (w LargeWrite) Admits(scopes tenancy.ScopeSet) bool {
	return scopes&w.Write != 0 && scopes&w.Read != 0
}

// MarkLargeWrite records that the write method path, registered on router
// behind a guard of the write scopes and one of the read scopes, answers
// under LargeReads, so that a keyed request takes its slot before the
// Idempotency-Key middleware opens its transaction (bulkhead.Slots.Hold). Call
// it where the route is registered, with the scopes of its guards, beside
// the handler that calls LargeReads.Run.
func (e *Env) MarkLargeWrite(router fiber.Router, method, path string, write, read []tenancy.Scope) {
	if g, ok := router.(*fiber.Group); ok {
		path = g.Prefix + path
	}
	e.largeWrites = append(e.largeWrites, LargeWrite{Method: method, Path: path,
		Write: tenancy.NewScopeSet(write...), Read: tenancy.NewScopeSet(read...)})
}

// PatchLarge registers handler as the PATCH of path on router, behind a
// guard of the write scopes and then one of the read scopes (a PATCH
// answers the whole record, crud.Resource.Mount), and marks it a large
// write with the same scopes (MarkLargeWrite).
func (e *Env) PatchLarge(router fiber.Router, path string, write, read []tenancy.Scope, handler fiber.Handler) {
	router.Patch(path, auth.Require(write...), auth.Require(read...), handler)
	e.MarkLargeWrite(router, fiber.MethodPatch, path, write, read)
}

// LargeWrites lists the routes MarkLargeWrite recorded. Read it once every
// route is registered.
func (e *Env) LargeWrites() []LargeWrite { return e.largeWrites }

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
