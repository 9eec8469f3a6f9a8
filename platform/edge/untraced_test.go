package edge_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// TestUntracedCommandsMakeNoSpans: with tracing on, a Ping makes Redis
// spans, and one run under telemetry.Untraced makes none (the health
// gauge's check at every scrape, docs/observability.md).
func TestUntracedCommandsMakeNoSpans(t *testing.T) {
	spans, _ := edge.RecordSpans(t)
	prefix := "edge-untraced:" + randomName() + ":"
	r, err := edge.NewRedis(pgtest.RedisURL(), edge.RedisOptions{Prefix: prefix, Timeout: time.Second, Tracing: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t.Cleanup(func() { r.Client().Del(ctx, r.Key("probe")); _ = r.Close() })
	if err := r.Ping(telemetry.Untraced(ctx)); err != nil {
		t.Fatalf("Redis is required for tests: %v", err)
	}
	if got := commandSpans(spans); len(got) != 0 {
		t.Errorf("an untraced ping made %d spans, first %q", len(got), got[0].Name)
	}
	spans.Reset()
	if err := r.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if got := commandSpans(spans); len(got) == 0 {
		t.Error("a traced ping made no span")
	}
}

// commandSpans are the spans of Redis commands: not redis.dial, which
// go-redis makes on a context of its own (its pool dials with
// context.Background()), whoever asked for the connection.
func commandSpans(spans *tracetest.InMemoryExporter) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range spans.GetSpans() {
		if s.Name != "redis.dial" {
			out = append(out, s)
		}
	}
	return out
}
