// Package ratelimit admits requests through an exact sliding window kept in
// the shared edge store (one atomic script, one Redis round trip per
// request; the Redis store pipelines a process's concurrent ones), and
// reports the bucket in X-RateLimit-* headers on every response of its route
// group, errors included. When the store cannot be
// reached it fails open within the store's timeout: the request proceeds, the
// failure is counted (Config.FailOpens, when the caller gives one, and the
// OpenTelemetry counter eventapi.ratelimit.fail_open) and logged at most once
// per LogEvery by each limiter, its line naming it (Config.Name).
package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// Response headers.
const (
	HeaderLimit     = "X-RateLimit-Limit"
	HeaderRemaining = "X-RateLimit-Remaining"
	HeaderReset     = "X-RateLimit-Reset"
)

// LogEvery is the longest rate of "failing open" log lines during an outage.
const LogEvery = telemetry.OutageLogEvery

// FailOpenRequestMessage is the debug-level line logged (with the request's
// request_id) for each request admitted without a decision, so that a
// request can be told from a counted admission after the fact.
const FailOpenRequestMessage = "rate limiter: request admitted without a decision"

// Config configures the middleware.
type Config struct {
	// Name is the limiter's field in its log lines ("limiter"): each
	// limiter of a process ("v2", "v1") logs its own outage line, which
	// this tells apart.
	Name   string
	Store  edge.Store
	Window time.Duration
	// Bucket returns the bucket key and limit for a request.
	Bucket func(c *fiber.Ctx) (key string, limit int)
	Log    *slog.Logger
	// FailOpens, when set, is incremented for every request admitted
	// without a decision because the store failed. The caller owns it (the
	// server keeps one per process, readable as Service.FailOpens), so two
	// apps in one process never share a count.
	FailOpens *atomic.Int64
}

type bucketKey struct{}

// BucketFromContext returns the decision made for this request, if any.
func BucketFromContext(ctx context.Context) (edge.Decision, bool) {
	d, ok := ctx.Value(bucketKey{}).(edge.Decision)
	return d, ok
}

// failOpenCounter is the process's OpenTelemetry instrument; the count a
// caller reads is Config.FailOpens.
var failOpenCounter metric.Int64Counter

func init() {
	// The global meter provider delegates to whatever provider the process
	// installs later, so the counter can be created at start-up.
	failOpenCounter, _ = otel.Meter("github.com/eventapi/eventapi/api/middleware/ratelimit").Int64Counter(
		"eventapi.ratelimit.fail_open",
		metric.WithDescription("Requests admitted without a rate-limit decision because the edge store was unavailable."),
		metric.WithUnit("{request}"))
}

// New returns the middleware.
func New(cfg Config) fiber.Handler {
	// The counter is on /metrics from the start, at 0, not from the first
	// fail-open: a rate() or an alert over a series that does not exist yet
	// sees nothing.
	// Labelled by limiter (v1 or v2), as the log lines are: v1 limits per
	// key and v2 per organization.
	limiter := metric.WithAttributes(attribute.String("limiter", cfg.Name))
	failOpenCounter.Add(context.Background(), 0, limiter)
	log := cfg.Log
	if log != nil {
		log = log.With("limiter", cfg.Name)
	}
	outage := telemetry.NewOutageLog(log, "rate limiter failing open: edge store unavailable", LogEvery)
	per := windowText(cfg.Window)
	return func(c *fiber.Ctx) error {
		key, limit := cfg.Bucket(c)
		ctx := c.UserContext()
		d, err := cfg.Store.Admit(ctx, key, limit, cfg.Window)
		if err != nil {
			// A request cancelled or past its deadline while it waited
			// (the drain abandoning it) is not the store's failure: it
			// is neither counted nor logged, which would make a healthy
			// Redis look like an outage on the fail-open alert.
			if ctx.Err() == nil {
				if cfg.FailOpens != nil {
					cfg.FailOpens.Add(1)
				}
				if failOpenCounter != nil {
					failOpenCounter.Add(ctx, 1, limiter)
				}
				outage.Record(ctx, err)
				if log != nil {
					log.DebugContext(ctx, FailOpenRequestMessage, "error", err.Error())
				}
			}
			d = openDecision(limit, cfg.Window)
		}
		// Reported in whole seconds, rounded up, here and in GET /health.
		d.Reset = roundUp(d.Reset)
		// Headers go on before the handler runs, so every response of the
		// group carries them, including errors rendered by the error handler.
		c.Set(HeaderLimit, strconv.Itoa(d.Limit))
		c.Set(HeaderRemaining, strconv.Itoa(d.Remaining))
		c.Set(HeaderReset, FormatReset(d.Reset))
		c.SetUserContext(context.WithValue(ctx, bucketKey{}, d))
		if !d.Allowed {
			return &errs.Error{
				Code:       errs.RateLimited,
				Message:    fmt.Sprintf("%d requests per %s exceeded", d.Limit, per),
				RetryAfter: RetryAfterSeconds(d.RetryAfter),
				Details: map[string]any{
					"limit": d.Limit, "window_seconds": int(cfg.Window.Round(time.Second) / time.Second),
					"reset": FormatReset(d.Reset),
				},
			}
		}
		return c.Next()
	}
}

// openDecision is reported when the store failed: the request is admitted as
// if it were the first of an empty window.
func openDecision(limit int, window time.Duration) edge.Decision {
	return edge.Decision{Allowed: true, Limit: limit, Remaining: max(0, limit-1), Reset: time.Now().Add(window)}
}

// FormatReset renders t as RFC 3339 UTC in whole seconds, rounded up so that a
// slot is free at the stated time.
func FormatReset(t time.Time) string { return roundUp(t).Format(time.RFC3339) }

func roundUp(t time.Time) time.Time {
	t = t.UTC()
	if s := t.Truncate(time.Second); s.Before(t) {
		return s.Add(time.Second)
	}
	return t
}

// RetryAfterSeconds rounds d up to whole seconds, at least 1.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

func windowText(w time.Duration) string {
	switch w {
	case time.Minute:
		return "minute"
	case time.Second:
		return "second"
	case time.Hour:
		return "hour"
	}
	if w%time.Second == 0 {
		return strconv.Itoa(int(w/time.Second)) + " seconds"
	}
	return w.String()
}
