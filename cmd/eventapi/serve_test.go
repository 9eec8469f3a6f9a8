package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestServeSaysEveryBadSettingAtOnce: the EVENTAPI_* and OTEL_* settings'
// problems are one error, before anything listens or connects (a malformed
// OTLP endpoint once started the process and sent its spans to
// https://localhost:4318).
func TestServeSaysEveryBadSettingAtOnce(t *testing.T) {
	t.Setenv("EVENTAPI_DATABASE_URL", "postgres://postgres@127.0.0.1:1/none?sslmode=disable")
	t.Setenv("EVENTAPI_LOG_LEVEL", "verbose")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "127.0.0.1:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	_, err := runCLI(t, "serve")
	if err == nil {
		t.Fatal("serve started with bad settings")
	}
	for _, want := range []string{"configuration:", `EVENTAPI_LOG_LEVEL "verbose"`, `OTEL_EXPORTER_OTLP_ENDPOINT="127.0.0.1:4318"`, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestServeWithItsPortInUseStopsAtOnce: a port in use ends the start before
// anything waits for the database (here unreachable, which serve would
// otherwise wait out until stopped), migrates or starts workers.
func TestServeWithItsPortInUseStopsAtOnce(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	t.Setenv("EVENTAPI_DATABASE_URL", "postgres://postgres@"+closedAddr+"/none?sslmode=disable")
	t.Setenv("EVENTAPI_ADDR", busy.Addr().String())
	t.Setenv("EVENTAPI_METRICS_ADDR", "127.0.0.1:0")
	// A safety net, not a bound: without the early listen, serve waits for
	// the database until this context ends.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err = run(ctx, []string{"serve"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "listener") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("serve with its port in use: %v, want the listener's error", err)
	}
}
