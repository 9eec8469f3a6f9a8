// Package v1 adapts the resource stores to the page-numbered v1 reference
// surface (equipment, jobs, crew) with its own envelope and error codes.
package v1

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
)

// Routes registers the v1 endpoints on r (the authenticated /api/v1 group).
func Routes(r fiber.Router, env *rest.Env) {}
