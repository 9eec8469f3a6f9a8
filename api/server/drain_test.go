package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestSIGTERMDrainsInFlightRequests sends a real SIGTERM to the test process
// while a slow request is in flight: the request must complete, new
// connections must be refused, and Run must return.
func TestSIGTERMDrainsInFlightRequests(t *testing.T) {
	started := make(chan struct{})
	env := apitest.New(t, apitest.WithRoutes(func(v2 fiber.Router) {
		v2.Get("/slow", func(c *fiber.Ctx) error {
			close(started)
			time.Sleep(700 * time.Millisecond)
			return c.SendString("finished")
		})
	}))
	org := env.NewOrg("Acme")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- server.Run(ctx, env.Svc.App, ln, 10*time.Second) }()

	type result struct {
		status int
		body   string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("GET", "http://"+addr+"/api/v2/slow", nil)
		req.Header.Set("Authorization", "Bearer "+org.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- result{status: resp.StatusCode, body: string(b)}
	}()
	<-started
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.status != 200 || r.body != "finished" {
		t.Fatalf("in-flight request: %+v", r)
	}
	select {
	case err := <-runErr:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after draining")
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatal("new connections are still accepted after shutdown")
	}
}

// TestSIGTERMDrainsARealServer builds the eventapi binary, serves it as a
// process and sends it SIGTERM while a write is in flight (held by a row
// lock that the test owns). From the signal on, /readyz answers 503, while
// requests on kept-alive and on new connections still succeed and carry
// Connection: close. A second SIGTERM ends the drain delay (set very long
// here so that nothing depends on timing): the listener closes, the held
// write still completes, and the process exits cleanly.
func TestSIGTERMDrainsARealServer(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	db, key := processDB(t, dbURL)
	srv := apitest.StartProcess(t, "EVENTAPI_DATABASE_URL="+dbURL, "EVENTAPI_DATABASE_POOLER="+pgtest.Pooler(),
		"EVENTAPI_DRAIN_DELAY=1h", "EVENTAPI_SHUTDOWN_TIMEOUT=1m")
	base := "http://" + srv.Addr

	// kept is a client whose connection stays open across the signal;
	// fresh opens a new connection for every request.
	kept := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	defer kept.CloseIdleConnections()
	call := func(c *http.Client, method, path, body string) (*http.Response, string, bool) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		reused := false
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b), reused
	}

	resp, body, _ := call(kept, "POST", "/api/v2/events", `{"name":"Gala","start_date":"2026-06-01T18:00:00Z","end_date":"2026-06-02T02:00:00Z","venue":"Pier 4"}`)
	if resp.StatusCode != 201 || resp.Close {
		t.Fatalf("create before the signal: %d close=%v %s", resp.StatusCode, resp.Close, body)
	}
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &created); err != nil || created.Data.ID == "" {
		t.Fatalf("create: %v %s", err, body)
	}
	if resp, body, _ := call(fresh, "GET", "/readyz", ""); resp.StatusCode != 200 || !strings.Contains(body, `"draining":false`) {
		t.Fatalf("readyz before the signal: %d %s", resp.StatusCode, body)
	}

	// Hold the event's row so that a PATCH of it stays in flight.
	lock, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Rollback() }()
	if _, err := lock.ExecContext(ctx, "SELECT 1 FROM events WHERE id = ? FOR UPDATE", created.Data.ID); err != nil {
		t.Fatal(err)
	}
	type result struct {
		status int
		close  bool
		body   string
	}
	inFlight := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("PATCH", base+"/api/v2/events/"+created.Data.ID, strings.NewReader(`{"name":"Renamed"}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{}).Do(req)
		if err != nil {
			inFlight <- result{body: err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		inFlight <- result{status: resp.StatusCode, close: resp.Close, body: string(b)}
	}()
	waitFor(t, "the PATCH to wait for the row lock", func() bool {
		var n int
		_ = db.NewRaw("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").Scan(ctx, &n)
		return n > 0
	})

	srv.Signal(t, syscall.SIGTERM)
	// The webhook worker stops claiming when the drain starts, not after
	// it (docs/webhooks.md, "Shutdown").
	waitFor(t, "the webhook worker to stop claiming", func() bool {
		return strings.Contains(srv.Logs(), "webhooks: draining: no new attempts")
	})
	waitFor(t, "/readyz to answer 503", func() bool {
		resp, _, _ := call(fresh, "GET", "/readyz", "")
		return resp.StatusCode == 503
	})
	resp, body, _ = call(fresh, "GET", "/readyz", "")
	if resp.StatusCode != 503 || !strings.Contains(body, `"draining":true`) || !strings.Contains(body, "service_unavailable") {
		t.Fatalf("readyz while draining: %d %s", resp.StatusCode, body)
	}
	resp, body, reused := call(kept, "GET", "/api/v2/events/"+created.Data.ID, "")
	if resp.StatusCode != 200 || !reused || !resp.Close {
		t.Fatalf("read on the kept-alive connection while draining: %d reused=%v close=%v %s", resp.StatusCode, reused, resp.Close, body)
	}
	resp, body, _ = call(fresh, "POST", "/api/v2/events", `{"name":"Late","start_date":"2026-06-01T18:00:00Z","end_date":"2026-06-02T02:00:00Z","venue":"Pier 4"}`)
	if resp.StatusCode != 201 || !resp.Close {
		t.Fatalf("write on a new connection while draining: %d close=%v %s", resp.StatusCode, resp.Close, body)
	}
	select {
	case r := <-inFlight:
		t.Fatalf("the held PATCH finished before its row was released: %+v", r)
	default:
	}

	// End the delay: the listener closes while the PATCH is still held.
	srv.Signal(t, syscall.SIGTERM)
	waitFor(t, "the listener to close", func() bool {
		c, err := net.DialTimeout("tcp", srv.Addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	if err := lock.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-inFlight
	if r.status != 200 || !r.close || !strings.Contains(r.body, `"Renamed"`) {
		t.Fatalf("in-flight PATCH: %+v", r)
	}
	select {
	case <-srv.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("the process did not exit after draining")
	}
	if code := srv.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if !strings.Contains(srv.Logs(), "eventapi stopped") {
		t.Fatalf("no stop line in the log:\n%s", srv.Logs())
	}
}
