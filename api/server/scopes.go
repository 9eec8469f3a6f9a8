package server

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// documentedScopes checks a request against its route's documented scopes
// (openapi.Scopes) as the route's guards do, in their order and with their
// 403: any one of the required scopes, then any one of the read scopes a
// write that answers a record also needs. The Idempotency-Key middleware
// runs it before it looks a key up (idempotency.Config.Authorize). A path
// no documented route serves passes, its own answer (404, 405) follows,
// and so does a public route.
func documentedScopes(routes *route.Resolver) func(c *fiber.Ctx) error {
	type need struct{ required, also []tenancy.Scope }
	byRoute := map[string]need{}
	for key, s := range openapi.Scopes() {
		byRoute[key] = need{required: asScopes(s.Required), also: asScopes(s.Also)}
	}
	return func(c *fiber.Ctx) error {
		n, ok := byRoute[c.Method()+" "+routes.Of(c)]
		if !ok || len(n.required) == 0 {
			return nil // no documented route, or a public one
		}
		if err := auth.Check(c.UserContext(), n.required...); err != nil {
			return err
		}
		if len(n.also) > 0 {
			return auth.Check(c.UserContext(), n.also...)
		}
		return nil
	}
}

func asScopes(names []string) []tenancy.Scope {
	out := make([]tenancy.Scope, len(names))
	for i, s := range names {
		out[i] = tenancy.Scope(s)
	}
	return out
}
