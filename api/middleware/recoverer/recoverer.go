// Package recoverer turns a panic in a handler into a 500 internal_error whose
// cause (the panic value and stack) is logged, never sent to the client.
package recoverer

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
)

// Config configures the middleware.
type Config struct {
	Log *slog.Logger
}

// New returns the middleware.
func New(cfg Config) fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			if r := recover(); r != nil {
				cfg.Log.ErrorContext(c.UserContext(), "panic in handler", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = &errs.Error{Code: errs.Internal, Message: "internal error", Cause: fmt.Errorf("panic: %v", r)}
			}
		}()
		return c.Next()
	}
}
