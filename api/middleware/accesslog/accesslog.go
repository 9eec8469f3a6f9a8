// Package accesslog writes one structured log line per request with its
// status, duration, route and organization.
package accesslog

import (
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/tenancy"
)

// Config configures the middleware.
type Config struct {
	Log *slog.Logger
	// ErrorHandler renders an error so the logged status is the final one.
	ErrorHandler fiber.ErrorHandler
}

// New returns the middleware.
func New(cfg Config) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err := c.Next()
		if err != nil && cfg.ErrorHandler != nil {
			_ = cfg.ErrorHandler(c, err)
			err = nil
		}
		attrs := []any{
			"method", c.Method(), "path", c.Path(), "route", c.Route().Path,
			"status", c.Response().StatusCode(), "duration_ms", float64(time.Since(start).Microseconds()) / 1000,
		}
		if p, ok := tenancy.FromContext(c.UserContext()); ok {
			attrs = append(attrs, "organization_id", p.OrganizationID.String())
		}
		cfg.Log.InfoContext(c.UserContext(), "request", attrs...)
		return err
	}
}
