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
	h := handlers{env: env}
	read := tenancy.Require(tenancy.EventsRead, tenancy.JobsRead)
	write := tenancy.Require(tenancy.EventsWrite)
	r.Get("/events", read, h.list)
	r.Post("/events", write, h.create)
	r.Get("/events/:id", read, h.get)
	r.Patch("/events/:id", write, h.patch)
	r.Get("/jobs", read, h.list)
	r.Get("/jobs/:id", read, h.get)
}
