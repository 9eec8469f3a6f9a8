package server_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// TestReadinessLogsItsStateNotTheRefusals: a readiness probe's 503 is the
// pod's state, logged once when the pod stops being ready and once when it
// is ready again, and never counted in the WARN line of requests refused:
// counted there, the probes' 503s swamped the clients' in an outage, and
// the line went on after the load balancer had stopped sending requests
// (an SRE review read 44 "failures" of a pod that no client reached). The
// pod's path to PostgreSQL is really cut (a TCP relay that closes every
// connection), and a drain's 503s are probes too.
func TestReadinessLogsItsStateNotTheRefusals(t *testing.T) {
	var log logtest.Buffer
	relay := newRelay(t)
	env := apitest.NewAccessLogging(t, &log, apitest.WithConfig(func(c *config.Config) { c.DatabaseURL = relay.in(t, c.DatabaseURL) }))
	probe := func() int {
		t.Helper()
		resp, err := env.Svc.App.Test(httptest.NewRequest("GET", "/readyz", nil), 10_000)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	if code := probe(); code != 200 {
		t.Fatalf("/readyz with PostgreSQL reachable: %d", code)
	}
	relay.cut()
	for range 4 {
		if code := probe(); code != 503 {
			t.Fatalf("/readyz with the path cut: %d, want 503", code)
		}
	}
	relay.restore()
	waitFor(t, "/readyz 200 with the path restored", func() bool { return probe() == 200 })
	env.Svc.Drain.Start()
	if code := probe(); code != 503 {
		t.Fatalf("/readyz while draining: %d, want 503", code)
	}
	// Close writes what the refusals' line held back.
	if err := env.Svc.App.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := env.Svc.Close(); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	for line, want := range map[string]int{
		"readiness: not ready: PostgreSQL is unavailable": 1,
		"readiness: ready again":                          1,
		"requests refused: service unavailable":           0,
	} {
		if n := strings.Count(out, line); n != want {
			t.Errorf("%d log lines %q, want %d:\n%s", n, line, want, out)
		}
	}
}

// TestStartingProbesAreNotRefusals: while a pod waits for PostgreSQL at
// start, its readiness probes' 503s are not counted as requests refused
// either (the wait has its own log lines); a client's request then is.
func TestStartingProbesAreNotRefusals(t *testing.T) {
	for _, tc := range []struct {
		path    string
		counted bool
	}{{"/readyz", false}, {"/api/v2/clients", true}} {
		t.Run(tc.path, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var log logtest.Buffer
			stop := server.ServeWhileStarting(ln, telemetry.NewLogger(&log, "info"), time.Time{})
			for range 3 {
				res, err := http.Get("http://" + ln.Addr().String() + tc.path)
				if err != nil {
					t.Fatal(err)
				}
				_ = res.Body.Close()
				if res.StatusCode != http.StatusServiceUnavailable {
					t.Fatalf("GET %s while starting: %d, want 503", tc.path, res.StatusCode)
				}
			}
			stop()
			telemetry.FlushOutageLogs(context.Background())
			if counted := strings.Contains(log.String(), "requests refused: service unavailable"); counted != tc.counted {
				t.Errorf("three GET %s counted as requests refused: %v, want %v:\n%s", tc.path, counted, tc.counted, log.String())
			}
		})
	}
}
