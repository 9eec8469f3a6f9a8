// Package telemetry sets up OpenTelemetry from the standard OTEL_*
// variables: tracing, and metrics through a meter provider whose
// Prometheus reader is served on its own /metrics listener (pushed over
// OTLP too when an endpoint is configured); and structured JSON logging
// (log/slog) whose records carry the request_id and trace_id of the
// context they are logged with.
package telemetry

import (
	"context"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// TracerName is the instrumentation name used by eventapi's own spans.
const TracerName = "github.com/eventapi/eventapi"

// Tracer returns eventapi's tracer from the global provider.
func Tracer() trace.Tracer { return otel.Tracer(TracerName) }

// Shutdown flushes and stops the tracer provider.
type Shutdown func(context.Context) error

// SetupTracing installs a global tracer provider. It exports over OTLP when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set
// (protocol from OTEL_EXPORTER_OTLP_PROTOCOL: grpc or http/protobuf, the
// default; any other is an error, see otlpProtocol), and is a no-op
// otherwise or when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. It reports whether spans are exported.
//
// A caller's trace context (traceparent) is read only when spans are
// exported. Read by a process that makes no spans, it stayed in the
// request's context as its span context, and the log lines named the
// caller's trace and span as if this process had traced the request
// (docs/observability.md, "Traces and log lines").
func SetupTracing(ctx context.Context, serviceName string) (Shutdown, bool, error) {
	if !exportEnabled(os.Getenv) {
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
		otel.SetTracerProvider(noop.NewTracerProvider())
		return func(context.Context) error { return nil }, false, nil
	}
	// W3C trace context only: nothing reads baggage, and a client's
	// malformed baggage header was an SDK error to log.
	otel.SetTextMapPropagator(propagation.TraceContext{})
	exp, err := newExporter(ctx)
	if err != nil {
		return nil, false, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(serviceResource(ctx, serviceName)))
	otel.SetTracerProvider(tp)
	return tp.Shutdown, true, nil
}

func exportEnabled(getenv func(string) string) bool {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	if strings.EqualFold(getenv("OTEL_TRACES_EXPORTER"), "none") {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

func newExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	proto, err := otlpProtocol(os.Getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	if proto == protoGRPC {
		return otlptracegrpc.New(ctx)
	}
	return otlptracehttp.New(ctx)
}
