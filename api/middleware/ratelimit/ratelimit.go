// Package ratelimit admits requests through an exact sliding window kept in
// the shared edge store, and reports the bucket in X-RateLimit-* headers.
package ratelimit

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/edge"
)

// Config configures the middleware.
type Config struct {
	Store  edge.Store
	Window time.Duration
	// Bucket returns the bucket key and limit for a request.
	Bucket func(c *fiber.Ctx) (key string, limit int)
	Log    *slog.Logger
}

type bucketKey struct{}

// BucketFromContext returns the decision made for this request, if any.
func BucketFromContext(ctx context.Context) (edge.Decision, bool) {
	d, ok := ctx.Value(bucketKey{}).(edge.Decision)
	return d, ok
}

// New returns the middleware. NOT YET IMPLEMENTED: passes every request.
func New(cfg Config) fiber.Handler {
	return func(c *fiber.Ctx) error { return c.Next() }
}
