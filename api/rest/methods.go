package rest

import "github.com/gofiber/fiber/v2"

// IsWrite reports whether a request of method writes: POST, PATCH, PUT and
// DELETE. The write bulkhead takes a slot for these, and the ETag
// middleware refuses a condition on them (docs/architecture.md, "The
// request path").
func IsWrite(method string) bool {
	switch method {
	case fiber.MethodPost, fiber.MethodPatch, fiber.MethodPut, fiber.MethodDelete:
		return true
	}
	return false
}
