package server

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/ratelimit"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

func livez(c *fiber.Ctx) error { return c.JSON(fiber.Map{"status": "ok"}) }

func readyz(ready func(ctx context.Context) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		if ready != nil {
			if err := ready(ctx); err != nil {
				return &errs.Error{Code: errs.ServiceUnavailable, Message: "not ready: a dependency is unavailable",
					Cause: err, RetryAfter: 1}
			}
		}
		return c.JSON(fiber.Map{"status": "ready"})
	}
}

// Health is the body of GET /api/v2/health.
type Health struct {
	Status         string     `json:"status"`
	RequestID      string     `json:"request_id"`
	OrganizationID string     `json:"organization_id"`
	Scopes         []string   `json:"scopes"`
	Sandbox        bool       `json:"sandbox"`
	Mode           string     `json:"mode"`
	RateLimit      *RateLimit `json:"rate_limit"`
}

// RateLimit is the caller's current rate-limit bucket.
type RateLimit struct {
	Limit     int    `json:"limit"`
	Remaining int    `json:"remaining"`
	Reset     string `json:"reset"`
}

func health(c *fiber.Ctx) error {
	p := tenancy.MustFromContext(c.UserContext())
	scopes := make([]string, 0)
	for _, s := range p.Scopes.List() {
		scopes = append(scopes, string(s))
	}
	h := Health{Status: "ok", RequestID: rest.EnsureRequestID(c), OrganizationID: p.OrganizationID.String(),
		Scopes: scopes, Sandbox: p.Sandbox, Mode: string(p.Mode)}
	if d, ok := ratelimit.BucketFromContext(c.UserContext()); ok {
		h.RateLimit = &RateLimit{Limit: d.Limit, Remaining: d.Remaining, Reset: d.Reset.UTC().Format(time.RFC3339)}
	}
	return rest.OK(c, h)
}
