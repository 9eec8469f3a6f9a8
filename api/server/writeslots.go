package server

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
)

// writeSlot holds, for each write (POST, PATCH, PUT, DELETE), a slot of
// the process's write bulkhead (rest.NewWriteBulkhead) for the whole
// request: mounted before the Idempotency-Key middleware, it is taken
// before any transaction opens, so a write waiting for its organization's
// share holds no pool connection. Reads take none: they hold a connection
// only for their queries, and wait for no row lock.
func writeSlot(b *rest.Bulkhead) fiber.Handler {
	return func(c *fiber.Ctx) error {
		switch c.Method() {
		case fiber.MethodPost, fiber.MethodPatch, fiber.MethodPut, fiber.MethodDelete:
		default:
			return c.Next()
		}
		ctx, release, err := b.Hold(c.UserContext())
		if err != nil {
			return err
		}
		defer release()
		c.SetUserContext(ctx)
		return c.Next()
	}
}
