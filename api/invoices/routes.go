// Package invoices serves invoices with line items and gap-free numbering.
package invoices

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
)

// Routes registers the package's endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {}
