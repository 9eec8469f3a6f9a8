package server

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/api/rest"
)

// writeSlot holds, for each write (POST, PATCH, PUT, DELETE), a slot of
// the process's write bulkhead (rest.NewWriteBulkhead) for the whole
// request: mounted before the Idempotency-Key middleware, it is taken
// before any transaction opens, so a write waiting for a slot holds no
// pool connection. Reads take none: they hold a connection only for their
// queries, and wait for no row lock.
//
// A slot free now is taken at once. When none is and keyed reports the
// request is the Idempotency-Key middleware's, the request goes on without
// one, marked, and keyedWrite takes it in the middleware's BeforeTx, once
// the key is claimed and its row looked at: a retry of a write that is
// done is answered from its record, and a key in use refused, without
// waiting behind other writes (a review saw such a retry wait 10 s and get
// 503 during a burst). Other writes wait here. keyed is nil where no such
// middleware runs (v1).
func writeSlot(b *rest.Bulkhead, keyed func(c *fiber.Ctx) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		switch c.Method() {
		case fiber.MethodPost, fiber.MethodPatch, fiber.MethodPut, fiber.MethodDelete:
		default:
			return c.Next()
		}
		ctx, release, ok := b.TryHold(c.UserContext())
		if !ok {
			if keyed != nil && keyed(c) {
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
		b, _ := c.UserContext().Value(writeSlotLater{}).(*rest.Bulkhead)
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
