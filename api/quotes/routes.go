// Package quotes serves quotes: v2 handlers over storage/quotes.
// Numbers (Q-000001) are gap-free per organization, line items replace as a
// set with an exact server-computed total, and approving a quote creates its
// one pick list in the same transaction.
package quotes

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.QuoteReaders

// Routes registers the quote endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	resource(env).Mount(r, "/quotes", ReadScopes, []tenancy.Scope{tenancy.QuotesWrite}, list(env))
}
