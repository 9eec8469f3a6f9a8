package server

import (
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// largeWriteSlot is the Idempotency-Key middleware's BeforeTx: it takes the
// large-read slot of a keyed write whose route answers under
// env.LargeReads (env.MarkLargeWrite: PATCH of a quote, an invoice, a pick
// list) before the middleware opens the request's transaction
// (bulkhead.Slots.Hold). A keyed write that waited for its slot inside that
// transaction would hold a pool connection meanwhile: enough of them would
// take every connection of the pool, the slot holders could not finish,
// and the pod would answer nothing that needed the database until each
// waiter gave up after bulkhead.DefaultWait. A key that the route's
// guards refuse (none of its write scopes, or none of its read scopes)
// takes no slot: it gets its 403 at once (rest.LargeWrite.Admits). A
// write without the header opens no transaction before its handler, whose
// own Run takes the slot first.
func largeWriteSlot(env *rest.Env, routes *route.Resolver) func(c *fiber.Ctx) idempotency.Wait {
	type routeKey struct{ method, template string }
	var once sync.Once
	large := map[routeKey]rest.LargeWrite{}
	return func(c *fiber.Ctx) idempotency.Wait {
		once.Do(func() { // every route is registered by the first request
			for _, w := range env.LargeWrites() {
				large[routeKey{w.Method, route.Template(w.Path)}] = w
			}
		})
		m := c.Method()
		w, ok := large[routeKey{m, routes.Match(m, c.Path())}]
		p, known := tenancy.FromContext(c.UserContext())
		if !ok || !known || !w.Admits(p.Scopes) {
			return nil
		}
		return func() (func(), error) {
			ctx, release, err := env.LargeReads.Hold(c.UserContext())
			if err != nil {
				return nil, err
			}
			c.SetUserContext(ctx)
			return release, nil
		}
	}
}
