package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric/noop"
)

// TestMetricsAreExportedOverOTLP points the exporter at a local OTLP/HTTP
// receiver and checks that a counter incremented through the global API
// arrives there when the provider shuts down (which flushes).
func TestMetricsAreExportedOverOTLP(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/metrics" && r.Method == http.MethodPost {
			posts.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	defer otel.SetMeterProvider(noop.NewMeterProvider())

	m, err := SetupPrometheusMetrics(context.Background(), "eventapi-test")
	if err != nil || !m.OTLP {
		t.Fatalf("SetupPrometheusMetrics: %v OTLP=%v", err, m != nil && m.OTLP)
	}
	c, err := otel.Meter("test").Int64Counter("eventapi.test.counter")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 3)
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() == 0 {
		t.Fatal("no metrics reached the OTLP endpoint")
	}
}

func TestMetricsEnabled(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_METRICS_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_SDK_DISABLED": "true"}, false},
	}
	for _, tt := range tests {
		if got := metricsEnabled(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("metricsEnabled(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
}
