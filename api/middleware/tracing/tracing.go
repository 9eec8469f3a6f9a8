// Package tracing starts an OpenTelemetry server span per request, continuing
// any W3C trace context the caller sent, named after the matched route.
package tracing

import (
	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// Config configures the middleware.
type Config struct {
	// ErrorHandler renders an error so the span records the final status.
	ErrorHandler fiber.ErrorHandler
	// Routes names the route template (span name and http.route); without
	// it Fiber's own route path is used.
	Routes *route.Resolver
}

type headerCarrier struct{ c *fiber.Ctx }

func (h headerCarrier) Get(k string) string { return h.c.Get(k) }
func (h headerCarrier) Set(k, v string)     { h.c.Set(k, v) }
func (h headerCarrier) Keys() []string      { return nil }

// New returns the middleware.
func New(cfg Config) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := otel.GetTextMapPropagator().Extract(c.UserContext(), propagation.TextMapCarrier(headerCarrier{c}))
		ctx, span := telemetry.Tracer().Start(ctx, c.Method()+" "+c.Path(), trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(
				semconv.HTTPRequestMethodKey.String(c.Method()),
				semconv.URLPath(c.Path()),
				attribute.String("eventapi.request_id", c.GetRespHeader("X-Request-Id")),
			))
		defer span.End()
		c.SetUserContext(ctx)
		err := c.Next()
		if err != nil && cfg.ErrorHandler != nil {
			if herr := cfg.ErrorHandler(c, err); herr != nil {
				span.RecordError(herr)
			}
			err = nil
		}
		status := c.Response().StatusCode()
		tmpl := c.Route().Path
		if cfg.Routes != nil {
			tmpl = cfg.Routes.Of(c)
		}
		if tmpl != "" {
			span.SetName(c.Method() + " " + tmpl)
			span.SetAttributes(semconv.HTTPRoute(tmpl))
		} else {
			span.SetName(c.Method())
		}
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
		if status >= 500 {
			span.SetStatus(codes.Error, "server error")
		}
		return err
	}
}
