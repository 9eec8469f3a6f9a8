// Package events serves events, also reachable under the legacy name jobs:
// v2 handlers over storage/events.
package events

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.EventReaders

// Routes registers the event endpoints and the /jobs read alias on r (the
// authenticated /api/v2 group). Reads accept events:read or the legacy
// jobs:read; writes need events:write.
func Routes(r fiber.Router, env *rest.Env) {
	h, ls := resource(env), list(env)
	h.Mount(r, "/events", ReadScopes, []tenancy.Scope{tenancy.EventsWrite}, ls)
	read := auth.Require(ReadScopes...)
	r.Get("/jobs", read, ls)
	r.Get("/jobs/:id", read, h.GetOne)
}
