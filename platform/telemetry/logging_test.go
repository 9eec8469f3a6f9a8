package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func TestLoggerCarriesRequestAndTraceIDs(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, "info")
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("t").Start(WithRequestID(context.Background(), "req-1"), "op")
	log.InfoContext(ctx, "hello")
	span.End()
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["request_id"] != "req-1" {
		t.Errorf("request_id = %v", rec["request_id"])
	}
	if rec["trace_id"] != span.SpanContext().TraceID().String() {
		t.Errorf("trace_id = %v", rec["trace_id"])
	}
}

func TestExportEnabled(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
	}
	for _, tt := range tests {
		if got := exportEnabled(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("exportEnabled(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
}
