package telemetry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Metrics is the process's meter provider: a Prometheus reader always (its
// exposition is Handler), plus the OTLP exporter when OTEL_* configure one.
type Metrics struct {
	// Handler serves GET /metrics in the Prometheus text format.
	Handler  http.Handler
	Shutdown Shutdown
	// OTLP reports whether metrics are also pushed over OTLP.
	OTLP bool
}

// SetupPrometheusMetrics installs the global meter provider with a
// Prometheus reader on a registry of its own (plus the Go runtime and process
// collectors) and, when an OTLP endpoint is configured (see metricsEnabled), a
// periodic OTLP reader too. Instruments created earlier through the global
// API (the rate limiter's, the idempotency layer's) report through it. Call
// it once per process, before serving.
func SetupPrometheusMetrics(ctx context.Context, serviceName string) (*Metrics, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	promReader, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, err
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(serviceResource(ctx, serviceName)), sdkmetric.WithReader(promReader)}
	m := &Metrics{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}
	if metricsEnabled(os.Getenv) {
		exp, err := newMetricExporter(ctx)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(metricInterval()))))
		m.OTLP = true
	}
	mp := sdkmetric.NewMeterProvider(opts...)
	otel.SetMeterProvider(mp)
	m.Shutdown = mp.Shutdown
	return m, nil
}

// ServeMetrics serves h at /metrics on ln until ctx ends. It is its own
// listener (EVENTAPI_METRICS_ADDR), apart from the API, so scraping is never
// rate limited or authenticated and never reachable through the API's
// ingress.
func ServeMetrics(ctx context.Context, ln net.Listener, h http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
