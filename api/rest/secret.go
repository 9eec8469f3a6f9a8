package rest

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/tenancy/auth"
)

// CacheControlNoStore is the Cache-Control of an answer that holds a
// secret: no cache, the client's own included, may keep it.
const CacheControlNoStore = "no-store"

// HoldsSecret marks c's answer as one that shows a secret the server made
// for this request (a webhook signing secret, shown once): an
// Idempotency-Key replay of it goes to the key that made the request alone
// (auth.ForThisKeyOnly), and it says Cache-Control: no-store, as the
// replay does (docs/webhooks.md, "Security").
func HoldsSecret(c *fiber.Ctx) {
	auth.ForThisKeyOnly(c.UserContext())
	c.Set(fiber.HeaderCacheControl, CacheControlNoStore)
}
