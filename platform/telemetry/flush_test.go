package telemetry

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric/noop"
)

func TestFlush(t *testing.T) {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	ignoresContext := func(context.Context) error { <-never; return nil }
	fails := func(context.Context) error { return errors.New("export failed") }
	ok := func(context.Context) error { return nil }
	tests := []struct {
		name      string
		shutdowns []Shutdown
		want      []string // substrings of the error; none: no error
	}{
		{"none", nil, nil},
		{"all return", []Shutdown{ok, ok}, nil},
		{"one fails", []Shutdown{ok, fails}, []string{"export failed"}},
		{"one ignores its context", []Shutdown{ignoresContext, fails}, []string{"export failed", "gave up after 50ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Only a shutdown that ignores its context needs the short
			// budget; the others get a minute, which no stall outlasts.
			budget := time.Minute
			if strings.Contains(tt.name, "ignores") {
				budget = 50 * time.Millisecond
			}
			err := Flush(context.Background(), budget, tt.shutdowns...)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Flush: %v, want nil", err)
				}
				return
			}
			for _, want := range tt.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Flush: %v, want an error with %q", err, want)
				}
			}
		})
	}
}

// TestFlushLeavesAHungCollector: the last OTLP metrics push goes to a
// collector that accepts the connection and never answers, with the SDK's
// own timeouts at ten minutes; Flush returns at its budget anyway. Without
// the budget a stopping pod sat in the push for the SDK's timeout (30 s by
// default), past its grace period.
func TestFlushLeavesAHungCollector(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	defer func() {
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
	}()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+ln.Addr().String())
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "600000")
	t.Setenv("OTEL_METRIC_EXPORT_TIMEOUT", "600000")
	defer otel.SetMeterProvider(noop.NewMeterProvider())
	m, err := SetupPrometheusMetrics(context.Background(), "eventapi-test")
	if err != nil || !m.OTLP {
		t.Fatalf("SetupPrometheusMetrics: %v OTLP=%v", err, m != nil && m.OTLP)
	}
	c, err := otel.Meter("test").Int64Counter("eventapi.test.flushed")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 1)

	result := make(chan error, 1)
	go func() { result <- Flush(context.Background(), time.Second, m.Shutdown) }()
	select {
	case err := <-result:
		if err == nil || !strings.Contains(err.Error(), "gave up") {
			t.Fatalf("Flush: %v, want it to give up on the collector", err)
		}
	case <-time.After(time.Minute): // a safety net, not a bound
		t.Fatal("Flush waited for a collector that never answers")
	}
	select {
	case <-accepted:
	case <-time.After(time.Minute):
		t.Fatal("the push never reached the collector: nothing was waited for")
	}
}
