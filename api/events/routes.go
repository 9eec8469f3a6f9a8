// Package events serves events, also reachable under the legacy name jobs:
// model, org-scoped store and v2 handlers.
package events

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the event endpoints and the /jobs read alias on r (the
// authenticated /api/v2 group). Reads accept events:read or the legacy
// jobs:read; writes need events:write.
func Routes(r fiber.Router, env *rest.Env) {
	h, ls := resource(env), list(env)
	read := tenancy.Require(tenancy.EventsRead, tenancy.JobsRead)
	write := tenancy.Require(tenancy.EventsWrite)
	h.Mount(r, "/events", read, write, ls)
	r.Get("/jobs", read, ls)
	r.Get("/jobs/:id", read, h.GetOne)
}
