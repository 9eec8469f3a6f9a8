package edge

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/telemetry"
)

// batchTrace returns the context a batch's script calls run under, and the
// function that ends the batch's span. A batch of one admission runs in
// its request's trace, as a command of that request. A batch of several
// holds the windows of other requests, often of other organizations, and
// one request's trace must neither show those (a window's key names its
// organization) nor leave the others' traces without their admission: it
// runs in a trace of its own, a root span "ratelimit batch" linked to
// each admission's span, and each admission's span gets a
// "ratelimit.batched" event naming that trace (docs/observability.md,
// "Traces"). With tracing off, or no admission's request sampled, nothing
// is made.
//
// The batch's root is sampled by the sampler's own rule for a root, not
// by its members' (a ratio sampler may drop it while a member is kept, or
// keep it while none is): the event names the batch's trace only when the
// batch is sampled, and says the batch size alone otherwise.
func (r *Redis) batchTrace(ctx context.Context, batch []*admission) (context.Context, func()) {
	if !r.tracing || len(batch) < 2 {
		return ctx, func() {}
	}
	sampled := 0
	for _, a := range batch {
		if trace.SpanContextFromContext(a.ctx).IsSampled() {
			sampled++
		}
	}
	if sampled == 0 {
		return ctx, func() {}
	}
	links := make([]trace.Link, 0, sampled)
	for _, a := range batch {
		if sc := trace.SpanContextFromContext(a.ctx); sc.IsSampled() {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	size := attribute.Int("ratelimit.batch.size", len(batch))
	ctx, span := telemetry.Tracer().Start(ctx, "ratelimit batch", trace.WithNewRoot(),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithLinks(links...), trace.WithAttributes(size))
	event := trace.WithAttributes(size)
	if sc := span.SpanContext(); sc.IsSampled() {
		event = trace.WithAttributes(size,
			attribute.String("ratelimit.batch.trace_id", sc.TraceID().String()),
			attribute.String("ratelimit.batch.span_id", sc.SpanID().String()))
	}
	for _, a := range batch {
		if s := trace.SpanFromContext(a.ctx); s.IsRecording() {
			s.AddEvent("ratelimit.batched", event)
		}
	}
	return ctx, func() { span.End() }
}
