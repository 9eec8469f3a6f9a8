package server

import (
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
)

// largeWritesFirst takes the large-read slot of a keyed write whose route
// answers under env.LargeReads (env.MarkLargeWrite: PATCH of a quote, an
// invoice, a pick list) before the Idempotency-Key middleware, mounted
// after it, opens the request's transaction (rest.Bulkhead.Hold). A
// keyed write used to wait for its slot inside that transaction, holding a
// pool connection: enough of them took every connection of the pool, the
// slot holders could not finish, and the pod answered nothing that needed
// the database until each waiter gave up after rest.DefaultBulkheadWait.
// A write without the header opens no transaction before its handler,
// whose own Run takes the slot first; a keyed one the idempotency
// middleware answers from its record gives the slot back unused.
func largeWritesFirst(env *rest.Env, routes *route.Resolver) fiber.Handler {
	var once sync.Once
	large := map[rest.Route]bool{} // method and template
	return func(c *fiber.Ctx) error {
		m := c.Method()
		if m == fiber.MethodGet || m == fiber.MethodHead || len(c.Request().Header.Peek(rest.HeaderIdempotencyKey)) == 0 {
			return c.Next()
		}
		once.Do(func() { // every route is registered by the first request
			for _, r := range env.LargeWrites() {
				large[rest.Route{Method: r.Method, Path: route.Template(r.Path)}] = true
			}
		})
		if !large[rest.Route{Method: m, Path: routes.Match(m, c.Path())}] {
			return c.Next()
		}
		ctx, release, err := env.LargeReads.Hold(c.UserContext())
		if err != nil {
			return err
		}
		defer release()
		c.SetUserContext(ctx)
		return c.Next()
	}
}
