// Package reservations serves equipment reservations (truck assignments) with the stock guard: model, org-scoped store and v2 handlers.
package reservations

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
)

// Routes registers the package's endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {}
