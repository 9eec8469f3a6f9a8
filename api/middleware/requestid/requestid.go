// Package requestid gives every request a fresh uuid, sent back as
// X-Request-Id and stored in the request context for logs and error bodies.
package requestid

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
)

// New returns the middleware. Incoming X-Request-Id headers are not trusted:
// the id is always generated here, so it is unique and a uuid.
func New() fiber.Handler {
	return func(c *fiber.Ctx) error {
		rest.EnsureRequestID(c)
		return c.Next()
	}
}
