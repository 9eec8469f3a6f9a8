// Package invoices serves invoices: model, org-scoped store and v2
// handlers. Numbers (INV-000001) are gap-free per organization and line
// items replace as a set with an exact server-computed total.
package invoices

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the invoice endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	read := tenancy.Require(tenancy.InvoicesRead)
	write := tenancy.Require(tenancy.InvoicesWrite)
	resource(env).Mount(r, "/invoices", read, write, list(env))
}
