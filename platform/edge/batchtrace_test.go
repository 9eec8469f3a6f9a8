package edge

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/spantest"
)

// TestBatchTrace sends batches of two requests' admissions, and of one,
// with tracing on. A batch of two runs in a trace of neither request: its
// root span links both, the script's command span is its child, and each
// request's span has an event naming the batch's trace. A batch of one
// runs in its request's trace.
func TestBatchTrace(t *testing.T) {
	spans, tp := RecordSpans(t)
	prefix := "edge-batchtrace:" + testName() + ":"
	r, err := NewRedis(privateRedis(t), RedisOptions{Prefix: prefix, Timeout: 5 * time.Second, Tracing: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if err := r.Ping(telemetry.Untraced(context.Background())); err != nil {
		t.Fatal(err)
	}

	for _, n := range []int{2, 1} {
		spans.Reset()
		p := newPending(5 * time.Second)
		var requests []trace.Span
		for i := range n {
			ctx, span := tp.Tracer("test").Start(context.Background(), "request")
			requests = append(requests, span)
			p.batch = append(p.batch, &admission{ctx: ctx, key: r.Key(WindowKey(testName() + string(rune('a'+i)))),
				window: time.Minute.Microseconds(), limit: 10})
		}
		r.send(p)
		for i, a := range p.batch {
			if a.err != nil || a.count != 1 {
				t.Fatalf("batch of %d: admission %d: count %d, %v", n, i, a.count, a.err)
			}
		}
		for _, s := range requests {
			s.End()
		}
		checkBatchTrace(t, spans.GetSpans(), requests)
	}
}

// RecordSpans installs, for the test t, a global tracer provider that
// records every span in the exporter it returns (before NewRedis, whose
// tracing hook takes the provider global when it runs).
func RecordSpans(t *testing.T) (*tracetest.InMemoryExporter, *sdktrace.TracerProvider) {
	return spantest.Record(t)
}

// checkBatchTrace checks the spans of one batch sent for requests.
func checkBatchTrace(t *testing.T, got tracetest.SpanStubs, requests []trace.Span) {
	t.Helper()
	var batch, commands tracetest.SpanStubs
	events := map[trace.SpanID]string{} // request span → the batch trace its event names
	for _, s := range got {
		switch s.Name {
		case "ratelimit batch":
			batch = append(batch, s)
		case "request":
			for _, e := range s.Events {
				for _, kv := range e.Attributes {
					if e.Name == "ratelimit.batched" && kv.Key == "ratelimit.batch.trace_id" {
						events[s.SpanContext.SpanID()] = kv.Value.AsString()
					}
				}
			}
		case "redis.dial":
		default:
			commands = append(commands, s)
		}
	}
	if len(commands) == 0 {
		t.Fatalf("batch of %d: no command span", len(requests))
	}
	if len(requests) == 1 {
		if len(batch) != 0 || len(events) != 0 {
			t.Errorf("a batch of one made %d batch spans and %d events", len(batch), len(events))
		}
		for _, c := range commands {
			if c.Parent.SpanID() != requests[0].SpanContext().SpanID() {
				t.Errorf("a batch of one: command %q is not in its request's trace", c.Name)
			}
		}
		return
	}
	if len(batch) != 1 {
		t.Fatalf("batch of %d: %d batch spans, want 1", len(requests), len(batch))
	}
	b := batch[0]
	if b.Parent.IsValid() || len(b.Links) != len(requests) {
		t.Errorf("the batch span has parent %v and %d links; want a root linking %d requests", b.Parent, len(b.Links), len(requests))
	}
	for _, c := range commands {
		if c.Parent.SpanID() != b.SpanContext.SpanID() {
			t.Errorf("command %q is not a child of the batch span", c.Name)
		}
	}
	for i, req := range requests {
		sc := req.SpanContext()
		if sc.TraceID() == b.SpanContext.TraceID() {
			t.Errorf("request %d's trace holds the batch", i)
		}
		if events[sc.SpanID()] != b.SpanContext.TraceID().String() {
			t.Errorf("request %d's span names batch trace %q, want %s", i, events[sc.SpanID()], b.SpanContext.TraceID())
		}
	}
}

// TestBatchTraceFollowsSampling: under a sampler that keeps no new root
// (a ratio of 0, members kept through their callers' sampled traces), a
// batch with a sampled member is not exported and its event names no
// trace, only the batch's size; a batch of unsampled members makes nothing.
func TestBatchTraceFollowsSampling(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0))))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) })
	r := &Redis{tracing: true}

	sampledCaller := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled, Remote: true}))
	// send sends a batch of a sampled member (when withSampled) and an
	// unsampled one, and returns the attribute names of the exported
	// events and whether the batch itself was exported.
	send := func(withSampled bool) (attrs []string, exported bool) {
		spans.Reset()
		first, firstSpan := tp.Tracer("test").Start(context.Background(), "request")
		if withSampled {
			first, firstSpan = tp.Tracer("test").Start(sampledCaller, "request")
		}
		dropped, _ := tp.Tracer("test").Start(context.Background(), "request")
		_, end := r.batchTrace(context.Background(), []*admission{{ctx: first}, {ctx: dropped}})
		end()
		firstSpan.End()
		for _, s := range spans.GetSpans() {
			exported = exported || s.Name == "ratelimit batch"
			for _, e := range s.Events {
				for _, kv := range e.Attributes {
					attrs = append(attrs, string(kv.Key))
				}
			}
		}
		return attrs, exported
	}
	attrs, exported := send(true)
	if exported || !slices.Contains(attrs, "ratelimit.batch.size") || slices.Contains(attrs, "ratelimit.batch.trace_id") {
		t.Errorf("a sampled member: batch exported %v, event attributes %v; want no batch, the size and no trace id", exported, attrs)
	}
	if attrs, exported := send(false); exported || len(attrs) != 0 {
		t.Errorf("no sampled member: batch exported %v, event attributes %v; want nothing", exported, attrs)
	}
}
