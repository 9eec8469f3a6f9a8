package server_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
)

// TestShutdownEndsConnectionsThatSentNothing: a connection opened ahead of
// need (a load balancer's, a browser's) that has sent nothing when the
// server stops is closed without an answer, and the shutdown does not wait
// for it: it once waited for the 30 s read timeout, past the shutdown
// timeout (5 s here), and said in-flight requests were cancelled.
func TestShutdownEndsConnectionsThatSentNothing(t *testing.T) {
	env := apitest.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	var logged bytes.Buffer
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	runErr := make(chan error, 1)
	go func() {
		runErr <- server.RunWith(ctx, env.Svc.App, ln, server.Shutdown{Timeout: 5 * time.Second, Log: slog.New(slog.NewJSONHandler(&logged, nil))})
	}()
	unused, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer unused.Close()
	// Connections are accepted in the order they were opened: once a
	// request on a later one is answered, the unused one was accepted.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get("http://" + addr + "/api/v2/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	stop()
	if err := <-runErr; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if strings.Contains(logged.String(), "outlived the shutdown timeout") {
		t.Fatalf("the shutdown waited for a connection that sent nothing:\n%s", logged.String())
	}
	_ = unused.SetReadDeadline(time.Now().Add(10 * time.Second))
	if got, err := io.ReadAll(unused); err != nil || len(got) != 0 {
		t.Fatalf("the unused connection read %q, %v; want it closed without an answer", got, err)
	}
}
