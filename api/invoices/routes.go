// Package invoices serves invoices: v2 handlers over
// storage/invoices. Numbers (INV-000001) are gap-free per organization and line
// items replace as a set with an exact server-computed total.
package invoices

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// ReadScopes are the scopes that read this resource (any one of them),
// here and in the change feed.
var ReadScopes = tenancy.InvoiceReaders

// Routes registers the invoice endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	resource(env).Mount(r, "/invoices", ReadScopes, []tenancy.Scope{tenancy.InvoicesWrite}, list(env))
}
