package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/pgtest"
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
	busy, closedAddr := busyAndClosed(t)
	t.Setenv("EVENTAPI_DATABASE_URL", "postgres://postgres@"+closedAddr+"/none?sslmode=disable")
	t.Setenv("EVENTAPI_ADDR", busy)
	t.Setenv("EVENTAPI_METRICS_ADDR", "127.0.0.1:0")
	// A safety net, not a bound: without the early listen, serve waits for
	// the database until this context ends.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err := run(ctx, []string{"serve"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "listener") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("serve with its port in use: %v, want the listener's error", err)
	}
}

// TestServeCheck: serve --check says what a start would refuse (the
// configuration, a Redis that refuses the URL's settings) without
// listening or touching the database, and passes a Redis that is only
// down, saying that serve starts without it. make run runs it before demo
// revokes the last run's keys.
func TestServeCheck(t *testing.T) {
	busy, down := busyAndClosed(t)
	redisURL, err := url.Parse(pgtest.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	noSuchDB := *redisURL
	noSuchDB.Path = "/99"
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string // "": the check passes
		// wantNote: what a passing check says besides "usable"
		wantNote string
	}{
		{"usable", map[string]string{"EVENTAPI_REDIS_URL": redisURL.String()}, "", ""},
		{"no Redis", map[string]string{"EVENTAPI_REDIS_URL": ""}, "", ""},
		{"settings that work against each other", map[string]string{"EVENTAPI_REDIS_URL": "", "EVENTAPI_REQUEST_TIMEOUT": "30s", "EVENTAPI_SHUTDOWN_TIMEOUT": "20s"}, "",
			"serve: warning: EVENTAPI_REQUEST_TIMEOUT (30s) is longer than EVENTAPI_SHUTDOWN_TIMEOUT (20s)"},
		{"Redis down", map[string]string{"EVENTAPI_REDIS_URL": "redis://" + down + "/0"}, "",
			"serve starts without it: rate limits fail open and keyed writes get 503 until it answers"},
		{"Redis refuses the database", map[string]string{"EVENTAPI_REDIS_URL": noSuchDB.String()}, "Redis refuses the connection's settings", ""},
		// The test Redis has no cluster mode: every command is refused.
		{"a Cluster URL for a Redis without cluster mode", map[string]string{"EVENTAPI_REDIS_URL": "redis+cluster://" + redisURL.Host},
			"This instance has cluster support disabled", ""},
		{"OTLP protocol", map[string]string{"EVENTAPI_REDIS_URL": "", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json", ""},
		{"EVENTAPI setting", map[string]string{"EVENTAPI_REDIS_URL": "", "EVENTAPI_LOG_LEVEL": "verbose"}, `EVENTAPI_LOG_LEVEL "verbose"`, ""},
		// Named by position, never by the credential it holds.
		{"OTLP header list", map[string]string{"EVENTAPI_REDIS_URL": "", "OTEL_EXPORTER_OTLP_HEADERS": "Authorization:Bearer SECRETTOKEN"},
			"OTEL_EXPORTER_OTLP_HEADERS: entry 1 of 1 has no '='", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The database is unreachable and the API's port taken: the
			// check reaches neither.
			t.Setenv("EVENTAPI_DATABASE_URL", "postgres://postgres@"+down+"/none?sslmode=disable")
			t.Setenv("EVENTAPI_ADDR", busy)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var out, errOut bytes.Buffer
			err := run(context.Background(), []string{"serve", "--check"}, &out, &errOut)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("serve --check: %v, want it to pass", err)
			case tt.wantErr == "" && !strings.Contains(errOut.String(), "configuration is usable"):
				t.Fatalf("serve --check passed saying %q", errOut.String())
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("serve --check: %v, want an error naming %q", err, tt.wantErr)
			case err != nil && strings.Contains(err.Error(), "SECRETTOKEN"):
				t.Fatalf("serve --check: %v repeats a header's value", err)
			case !strings.Contains(errOut.String(), tt.wantNote):
				t.Fatalf("serve --check said %q, want it to say %q", errOut.String(), tt.wantNote)
			}
		})
	}
}

// busyAndClosed returns the address of a port something listens on until
// the test ends and that of a port nothing listens on.
func busyAndClosed(t *testing.T) (busy, closed string) {
	t.Helper()
	var addrs [2]string
	for i := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs[i] = ln.Addr().String()
		if i == 0 {
			t.Cleanup(func() { ln.Close() })
		} else {
			ln.Close()
		}
	}
	return addrs[0], addrs[1]
}

// TestServeSaysWhyItStopped: a serve that stops on an error, a setting
// refused before the log's own level is known or a database that lacks
// migrations, writes its cause as one JSON ERROR line among its log
// lines, as well as the plain error main writes to stderr. One stopped by a
// signal while it waited for PostgreSQL writes a WARN line saying so, and
// no ERROR line.
func TestServeSaysWhyItStopped(t *testing.T) {
	_, down := busyAndClosed(t)
	for _, tc := range []struct {
		name     string
		env      map[string]string
		signaled bool
		want     string
		level    string
	}{
		{"a refused setting", map[string]string{"EVENTAPI_LOG_LEVEL": "verbose"}, false, `EVENTAPI_LOG_LEVEL "verbose"`, "ERROR"},
		{"a database without the schema", map[string]string{"EVENTAPI_DATABASE_URL": pgtest.NewEmptyDatabase(t)}, false, "migrate up", "ERROR"},
		{"a signal while waiting for PostgreSQL", map[string]string{"EVENTAPI_DATABASE_URL": "postgres://postgres@" + down + "/none?sslmode=disable"},
			true, "", "WARN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("EVENTAPI_REDIS_URL", "")
			t.Setenv("EVENTAPI_ADDR", "127.0.0.1:0")
			t.Setenv("EVENTAPI_METRICS_ADDR", "127.0.0.1:0")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var lines bytes.Buffer
			serveLog = &lines
			t.Cleanup(func() { serveLog = os.Stdout })
			ctx, cancel := context.WithCancel(context.Background())
			if tc.signaled {
				cancel()
			}
			defer cancel()
			err := run(ctx, []string{"serve"}, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("serve: %v, want an error naming %q", err, tc.want)
			}
			var stopped, errorLines []map[string]any
			for _, line := range strings.Split(strings.TrimSpace(lines.String()), "\n") {
				var l map[string]any
				if err := json.Unmarshal([]byte(line), &l); err != nil {
					t.Fatalf("a log line that is not JSON: %q", line)
				}
				if l["level"] == "ERROR" {
					errorLines = append(errorLines, l)
				}
				if msg, _ := l["msg"].(string); strings.HasPrefix(msg, "serve stopped") {
					stopped = append(stopped, l)
				}
			}
			if len(stopped) != 1 || stopped[0]["level"] != tc.level || !strings.Contains(fmt.Sprint(stopped[0]["error"]), tc.want) {
				t.Fatalf("stop lines %v, want one at %s naming %q; the log:\n%s", stopped, tc.level, tc.want, lines.String())
			}
			if tc.level != "ERROR" && len(errorLines) > 0 {
				t.Fatalf("ERROR lines %v on a stop a signal asked for", errorLines)
			}
		})
	}
}
