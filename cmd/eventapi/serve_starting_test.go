package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestServeAnswersProbesWhileWaitingForItsDatabase: a serve started while
// PostgreSQL cannot be reached says alive, not ready, on its port (a
// startup probe passes; docs/helm.md, "Rolling updates and draining"), and
// its /metrics says eventapi_database_up 0, so EventapiDatabaseUnavailable
// fires for pods that all restarted during an outage (they had no series);
// once the database answers it is ready, on the same port, and the gauge
// reads 1.
func TestServeAnswersProbesWhileWaitingForItsDatabase(t *testing.T) {
	dbURL, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	gate := newGate(t, dbURL.Host)
	dbURL.Host = gate.addr
	_, free := busyAndClosed(t)
	_, metricsAddr := busyAndClosed(t)
	t.Setenv("EVENTAPI_DATABASE_URL", dbURL.String())
	t.Setenv("EVENTAPI_REDIS_URL", "")
	t.Setenv("EVENTAPI_ADDR", free)
	t.Setenv("EVENTAPI_METRICS_ADDR", metricsAddr)
	t.Setenv("EVENTAPI_DRAIN_DELAY", "0s")
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		var out, errOut bytes.Buffer
		served <- run(ctx, []string{"serve"}, &out, &errOut)
	}()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()

	base := "http://" + free
	waitFor(t, "serve to try the database", func() bool { return gate.tries.Load() > 0 })
	if s := status(base + "/livez"); s != http.StatusOK {
		t.Fatalf("/livez while waiting for the database: %d, want 200", s)
	}
	if s := status(base + "/readyz"); s != http.StatusServiceUnavailable {
		t.Fatalf("/readyz while waiting for the database: %d, want 503", s)
	}
	if s := status(base + "/api/v2/health"); s != http.StatusServiceUnavailable {
		t.Fatalf("a request while waiting for the database: %d, want 503", s)
	}
	databaseUp := func() string { return gauge("http://"+metricsAddr+"/metrics", "eventapi_database_up") }
	// Set once the first attempt has failed, which a try at the gate starts.
	waitFor(t, "eventapi_database_up 0 while waiting for the database", func() bool { return databaseUp() == "0" })
	gate.open.Store(true)
	waitFor(t, "serve to be ready once the database answers", func() bool { return status(base+"/readyz") == http.StatusOK })
	waitFor(t, "eventapi_database_up 1 once the database answers", func() bool { return databaseUp() == "1" })
}

// gauge returns the value of the one sample of name in the Prometheus text
// at url ("" when there is none, or more than one).
func gauge(url, name string) string {
	res, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`(?m)^`+name+`(?:\{[^}]*\})? (\S+)$`).FindAllSubmatch(body, -1)
	if len(m) != 1 {
		return ""
	}
	return string(m[0][1])
}

// gate forwards connections to target once open, and closes them at once
// before: a PostgreSQL that is down, then back.
type gate struct {
	addr  string
	open  atomic.Bool
	tries atomic.Int64
}

func newGate(t *testing.T, target string) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	g := &gate{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			g.tries.Add(1)
			if !g.open.Load() {
				c.Close()
				continue
			}
			go forward(c, target)
		}
	}()
	return g
}

func forward(c net.Conn, target string) {
	defer c.Close()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
}

// status is the status of a GET of url, 0 when none came within 10 s (a
// port that takes connections and answers nothing).
func status(url string) int {
	res, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// waitFor polls cond; the deadline is a safety net for a stuck start, not
// a bound on how fast it is.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 2 minutes for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
