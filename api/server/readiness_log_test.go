package server_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
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
