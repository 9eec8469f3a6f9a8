package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
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
