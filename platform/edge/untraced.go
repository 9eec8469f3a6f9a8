package edge

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"

	"github.com/eventapi/eventapi/platform/telemetry"
)

// untracedProvider is the tracer provider of the go-redis tracing hook: the
// global one, except that a command run under telemetry.Untraced makes no
// span, as a statement does not (platform/database). A caller with no
// request around it, such as a health check run at every metrics scrape,
// would otherwise make a trace of its own, of nothing.
type untracedProvider struct {
	embedded.TracerProvider
	tp trace.TracerProvider
}

func (p untracedProvider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return untracedTracer{t: p.tp.Tracer(name, opts...)}
}

type untracedTracer struct {
	embedded.Tracer
	t trace.Tracer
}

// noSpan is a span that records nothing and whose End does nothing (the
// hook ends the span it is given: never the caller's).
var noSpan = trace.SpanFromContext(context.Background())

func (t untracedTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if telemetry.IsUntraced(ctx) {
		return ctx, noSpan
	}
	return t.t.Start(ctx, name, opts...)
}

// tracerProvider is the provider NewRedis gives the tracing hook: the
// global one as it is when NewRedis runs, as the hook's default is.
func tracerProvider() trace.TracerProvider {
	return untracedProvider{tp: otel.GetTracerProvider()}
}
