package server

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/rest/bulkhead"
)

// writeSlot holds, for each write (rest.IsWrite), a slot of the process's write
// bulkhead (bulkhead.NewWrites) for the whole request: mounted before the
// Idempotency-Key middleware, it is taken before any transaction opens, so
// a write waiting for a slot holds no pool connection. Reads take none:
// they hold a connection only for their queries, and wait for no row lock
// (docs/architecture.md, "One organization's writes hold at most its share
// of the pool").
//
// A slot free now is taken at once. When none is and deferred reports that
// the Idempotency-Key middleware takes the request over
// (idempotency.Middleware.Handles, the one test of whether its BeforeTx
// may run), the request goes on without one, marked, and keyedWrite takes it
// in the middleware's BeforeTx, once the key is claimed and its row looked
// at: a retry of a write that is done is answered from its record, and a
// key in use refused, without waiting behind other writes. Other writes
// wait here. deferred is nil where no such middleware runs (v1).
// keyedWrites mounts the two together.
func writeSlot(b *bulkhead.Slots, deferred func(c *fiber.Ctx) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !rest.IsWrite(c.Method()) {
			return c.Next()
		}
		ctx, release, ok := b.TryHold(c.UserContext())
		if !ok {
			if deferred != nil && deferred(c) {
				c.SetUserContext(context.WithValue(c.UserContext(), writeSlotLater{}, b))
				return c.Next()
			}
			var err error
			if ctx, release, err = b.Hold(c.UserContext()); err != nil {
				return err
			}
		}
		defer release()
		c.SetUserContext(ctx)
		return c.Next()
	}
}

// keyedWrites returns v2's write slot and the Idempotency-Key middleware
// built from cfg, to be mounted in that order, one right after the other:
// the write slot defers to the middleware's BeforeTx (keyedWrite, then
// large) exactly the requests the middleware takes over (its Handles). The
// middleware must be closed (idempotency.Middleware.Close).
func keyedWrites(writes *bulkhead.Slots, cfg idempotency.Config, large func(c *fiber.Ctx) idempotency.Wait) (slot fiber.Handler, keys *idempotency.Middleware) {
	cfg.BeforeTx = keyedWrite(large)
	keys = idempotency.NewMiddleware(cfg)
	return writeSlot(writes, keys.Handles), keys
}

// writeSlotLater marks a keyed write that writeSlot let through without a
// slot; its value is the bulkhead.
type writeSlotLater struct{}

// keyedWrite is the Idempotency-Key middleware's BeforeTx: a keyed write
// that writeSlot let through without a slot waits for one, and then a
// large write for its slot of the large-read bulkhead (large), the two
// always in that order.
func keyedWrite(large func(c *fiber.Ctx) idempotency.Wait) func(c *fiber.Ctx) idempotency.Wait {
	return func(c *fiber.Ctx) idempotency.Wait {
		then := large(c)
		b, _ := c.UserContext().Value(writeSlotLater{}).(*bulkhead.Slots)
		if b == nil {
			return then
		}
		return func() (func(), error) {
			ctx, release, err := b.Hold(c.UserContext())
			if err != nil {
				return nil, err
			}
			c.SetUserContext(ctx)
			if then == nil {
				return release, nil
			}
			releaseLarge, err := then()
			if err != nil {
				release()
				return nil, err
			}
			return func() { releaseLarge(); release() }, nil
		}
	}
}
