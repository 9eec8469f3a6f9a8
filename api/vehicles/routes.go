// Package vehicles serves fleet vehicles: model, org-scoped store and v2 handlers.
package vehicles

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
)

// Routes registers the package's endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {}
