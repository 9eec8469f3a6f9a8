// Package crew serves the crew members of an organization: model, org-scoped
// store and v2 handlers.
package crew

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the crew member endpoints on r (the authenticated /api/v2
// group). The legacy crew:read scope is v1 only and grants nothing here.
func Routes(r fiber.Router, env *rest.Env) {
	read := tenancy.Require(tenancy.CrewMembersRead)
	write := tenancy.Require(tenancy.CrewMembersWrite)
	resource(env).Mount(r, "/crew_members", read, write, list(env))
}
