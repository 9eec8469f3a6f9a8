package server_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// TestServeWhileStartingIsMeteredAndLogged: while serve waits for its
// database, its answers are in the request-duration histogram and the
// access log as the service's are, with their request id; the probes have
// their route, so the alerts that leave them out (http_route) still do,
// and the requests that the service's routes would serve have none yet.
func TestServeWhileStartingIsMeteredAndLogged(t *testing.T) {
	u := metricsEndpoint(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	logs := &logtest.Buffer{}
	stop := server.ServeWhileStarting(ln, telemetry.NewLogger(logs, "info"), time.Time{})
	defer stop()
	base := "http://" + ln.Addr().String()

	count := func(series string) uint64 { return requestCount(t, u, series) }
	requests := []struct {
		method, path, series, route string
		status                      int
	}{
		{"GET", "/livez", "GET /livez 200", "/livez", http.StatusOK},
		{"GET", "/readyz", "GET /readyz 503", "/readyz", http.StatusServiceUnavailable},
		// A method the tests' other requests do not send with a 503.
		{"OPTIONS", "/api/v2/clients", "OPTIONS  503", "", http.StatusServiceUnavailable},
	}
	before := make([]uint64, len(requests))
	for i, r := range requests {
		before[i] = count(r.series)
	}
	ids := map[string]bool{}
	for _, r := range requests {
		req, err := http.NewRequest(r.method, base+r.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != r.status || res.Header.Get("X-Request-Id") == "" {
			t.Fatalf("%s %s while starting: %d, X-Request-Id %q; want %d with an id", r.method, r.path, res.StatusCode, res.Header.Get("X-Request-Id"), r.status)
		}
		ids[res.Header.Get("X-Request-Id")] = true
	}
	for i, r := range requests {
		if got := count(r.series) - before[i]; got != 1 {
			t.Errorf("series %q grew by %d for one %s %s while starting, want 1", r.series, got, r.method, r.path)
		}
	}
	logged := map[string]bool{}
	for line := range strings.Lines(logs.String()) {
		var entry struct {
			Msg, Method, Path, Route string
			Status                   int
			RequestID                string `json:"request_id"`
		}
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if entry.Msg == "request" && ids[entry.RequestID] {
			logged[entry.Method+" "+entry.Path+" "+entry.Route] = true
		}
	}
	for _, r := range requests {
		if want := r.method + " " + r.path + " " + r.route; !logged[want] {
			t.Errorf("no access line (method, path, route) %q with the answer's request id; log:\n%s", want, logs)
		}
	}
}
