// Package crew serves the crew members of an organization: its v2 handlers
// over storage/crew.
package crew

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.CrewMemberReaders

// Routes registers the crew member endpoints on r (the authenticated /api/v2
// group). The legacy crew:read scope is v1 only and grants nothing here.
func Routes(r fiber.Router, env *rest.Env) {
	resource(env).Mount(r, "/crew_members", ReadScopes, []tenancy.Scope{tenancy.CrewMembersWrite}, list(env))
}
