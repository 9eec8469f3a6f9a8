// Package accesslog writes one structured log line per request with its
// status, duration, route and organization. The route is the template the
// metrics, traces and request log name (route.Resolver), so that a line can
// be matched with them, also for a request answered by middleware (401,
// 429, an idempotent replay), where Fiber's own route stops at the group.
package accesslog

import (
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// Config configures the middleware.
type Config struct {
	Log *slog.Logger
	// ErrorHandler renders an error so the logged status is the final one
	// (rest.RenderError).
	ErrorHandler fiber.ErrorHandler
	// Routes names the request's route template; nil logs Fiber's pattern
	// of the last handler that ran (c.Route().Path).
	Routes *route.Resolver
}

// New returns the middleware.
func New(cfg Config) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err, _ := rest.RenderError(c, cfg.ErrorHandler, c.Next())
		Write(cfg.Log, c, routeOf(c, cfg.Routes), start)
		return err
	}
}

// Write writes the access line of c's answered request, which arrived at
// start (zero: unknown, and the line has no duration_ms) and was matched
// to route ("" for none). The middleware writes it for every routed
// request; the server writes it itself for a request refused before
// routing (an unknown method, a body over the limit).
func Write(log *slog.Logger, c *fiber.Ctx, route string, start time.Time) {
	attrs := [6]slog.Attr{
		// A method the server does not know can be kilobytes of the
		// client's text: it is logged at most errs.MaxEcho bytes long, and
		// the path, as long as the server's URI bound, at most
		// requestlog.MaxPath bytes, as the request log stores it.
		slog.String("method", errs.Echo(c.Method())), slog.String("path", errs.Clip(c.Path(), requestlog.MaxPath)),
		slog.String("route", route),
		slog.Int("status", c.Response().StatusCode()),
	}
	n := 4
	if !start.IsZero() {
		attrs[n] = slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000)
		n++
	}
	if p, ok := tenancy.FromContext(c.UserContext()); ok {
		attrs[n] = slog.String("organization_id", p.OrganizationID.String())
		n++
	} else if prefix, ok := tenancy.PresentedKey(c.UserContext()); ok {
		// A key refused, or not checked because PostgreSQL was
		// unreachable: its prefix says whose request it was.
		attrs[n] = slog.String("key_prefix", prefix)
		n++
	}
	// Typed attributes, not key-value pairs: nothing is boxed or
	// converted. The record goes to the handler directly, without a
	// caller's program counter: the source of every line would be this
	// function, and finding it (runtime.Callers) was a sixth of the
	// line's cost (catbench -cpuprofile-chain).
	ctx := c.UserContext()
	if h := log.Handler(); h.Enabled(ctx, slog.LevelInfo) {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
		r.AddAttrs(attrs[:n]...)
		_ = h.Handle(ctx, r)
	}
}

// routeOf is the request's route template, or Fiber's pattern without a
// Resolver; "" for a path no route serves.
func routeOf(c *fiber.Ctx, routes *route.Resolver) string {
	if routes == nil {
		return c.Route().Path
	}
	return routes.Of(c)
}
