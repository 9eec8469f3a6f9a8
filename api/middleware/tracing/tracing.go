// Package tracing starts an OpenTelemetry server span per request, continuing
// any W3C trace context the caller sent, named after the matched route.
// Requests to the paths it is told to leave untraced (the probes) make no
// span, nor do their statements and Redis commands (telemetry.Untraced).
//
// Every span name and attribute taken from the request (the method, the
// path as the client sent it, Fiber's route path, which is that path when
// Fiber matched no route) is made valid UTF-8 first (requestlog.ValidText:
// each run of invalid bytes, and each NUL, becomes U+FFFD). The OTLP
// exporter refuses a whole batch for one string that is not valid UTF-8,
// so one request for "/api/v2/events/\xff" would otherwise cost every
// organization's spans exported with it.
package tracing

import (
	"errors"
	"slices"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// Config configures the middleware.
type Config struct {
	// ErrorHandler renders an error so the span records the final status
	// (rest.RenderError).
	ErrorHandler fiber.ErrorHandler
	// Routes names the route template (span name and http.route); without
	// it Fiber's own route path is used.
	Routes *route.Resolver
	// Untraced are the paths whose requests make no span and run under
	// telemetry.Untraced, so their SQL statements and Redis commands make
	// none either: the kubelet's probes, a request every few seconds on
	// every pod that is nobody's work, would each be a trace.
	Untraced []string
}

type headerCarrier struct{ c *fiber.Ctx }

func (h headerCarrier) Get(k string) string { return h.c.Get(k) }
func (h headerCarrier) Set(k, v string)     { h.c.Set(k, v) }
func (h headerCarrier) Keys() []string      { return nil }

// New returns the middleware. The span starts named after the method alone
// (the route is known only once the request was routed) and is renamed
// "METHOD /route/{template}" at the end. Its attributes are set only when
// the span records: with tracing off (a no-op tracer) a request builds none
// of them, which took about 4 µs of a detail read's server CPU.
func New(cfg Config) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if slices.Contains(cfg.Untraced, c.Path()) {
			c.SetUserContext(telemetry.Untraced(c.UserContext()))
			err, _ := rest.RenderError(c, cfg.ErrorHandler, c.Next())
			return err
		}
		ctx := otel.GetTextMapPropagator().Extract(c.UserContext(), propagation.TextMapCarrier(headerCarrier{c}))
		// Fiber answers an unknown method itself, so the method is one it
		// knows; made valid all the same, as it names the span.
		method := requestlog.ValidText(c.Method())
		ctx, span := telemetry.Tracer().Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		recording := span.IsRecording()
		if recording {
			span.SetAttributes(
				semconv.HTTPRequestMethodKey.String(method),
				semconv.URLPath(requestlog.ValidText(c.Path())),
				attribute.String("eventapi.request_id", c.GetRespHeader(rest.HeaderRequestID)),
			)
		}
		c.SetUserContext(ctx)
		err, failed := rest.RenderError(c, cfg.ErrorHandler, c.Next())
		if failed != nil {
			// Answered 500 all the same; the span says why.
			span.RecordError(validError(failed))
		}
		if !recording {
			return err
		}
		status := c.Response().StatusCode()
		var tmpl string
		if cfg.Routes != nil {
			tmpl = cfg.Routes.Of(c) // a registered template, never the raw path
		} else {
			// Fiber's route path is the raw path when no route matched.
			tmpl = requestlog.ValidText(c.Route().Path)
		}
		if tmpl != "" {
			span.SetName(method + " " + tmpl)
			span.SetAttributes(semconv.HTTPRoute(tmpl))
		}
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
		if status >= 500 {
			span.SetStatus(codes.Error, "server error")
		}
		return err
	}
}

// validError returns err, or an error of its text made valid UTF-8 when it
// is not: RecordError exports the text as exception.message.
func validError(err error) error {
	if msg := err.Error(); requestlog.ValidText(msg) != msg {
		return errors.New(requestlog.ValidText(msg))
	}
	return err
}
