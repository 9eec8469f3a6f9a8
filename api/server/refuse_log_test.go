package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// TestRefusalsHaveAnAccessLine: a request refused before routing (an
// unknown method, a body over the limit) gets an access line carrying the
// X-Request-Id it was answered with, so that the id a client quotes is
// found in the logs like any other.
func TestRefusalsHaveAnAccessLine(t *testing.T) {
	longMethod := strings.Repeat("X", 1500)
	addr, out := guardedApp(t)

	for _, tt := range []struct {
		name, request, method string
		status                int
	}{
		{"unknown method", "FOO /api/v2/clients HTTP/1.1\r\nHost: t\r\n\r\n", "FOO", 405},
		// The client's kilobytes of method are logged (and repeated in the
		// 405) at most errs.MaxEcho bytes long.
		{"unknown method of 1,500 bytes", longMethod + " /api/v2/clients HTTP/1.1\r\nHost: t\r\n\r\n", errs.Echo(longMethod), 405},
		{"body over the limit", "POST /api/v2/clients HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n" +
			strings.Repeat(" ", 64), "POST", 413},
		{"chunked body over the limit", "POST /api/v2/clients HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" +
			strings.Repeat(" ", 64) + "\r\n0\r\n\r\n", "POST", 413},
		{"ambiguous framing", "POST /api/v2/clients HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", "POST", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sent := time.Now()
			resp, body := rawExchange(t, "http://"+addr, tt.request, nil)
			if len(body) > 1024 {
				t.Errorf("a %d-byte answer, want the client's text repeated at most %d bytes: %.300s…", len(body), errs.MaxEcho, body)
			}
			window := time.Since(sent)
			id := resp.Header.Get("X-Request-Id")
			if resp.StatusCode != tt.status || id == "" {
				t.Fatalf("%d X-Request-Id %q, want %d with an id", resp.StatusCode, id, tt.status)
			}
			for _, line := range strings.Split(out.String(), "\n") {
				var rec map[string]any
				if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" && rec["request_id"] == id {
					// fasthttp resets a request it could not read whole
					// (to GET /): the line names it as it was sent.
					if rec["status"] != float64(tt.status) || rec["path"] != "/api/v2/clients" || rec["method"] != tt.method {
						t.Errorf("access line %s, want status %d for %s /api/v2/clients", line, tt.status, tt.method)
					}
					// A request refused while it was read is timed from
					// its first bytes (fasthttp sets RequestCtx.Time only
					// for the handler): within the client's exchange.
					checkDuration(t, line, rec, window)
					return
				}
			}
			t.Fatalf("no access line with request_id %s in:\n%s", id, out.String())
		})
	}
}

// TestRefusalAfterARequestHasNoStaleDuration: on a kept-alive connection a
// request refused while it was read is timed from its own first bytes, not
// from the connection's previous request, which fasthttp's RequestCtx.Time
// still holds then.
func TestRefusalAfterARequestHasNoStaleDuration(t *testing.T) {
	addr, out := guardedApp(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	send := func(request string) *http.Response {
		if _, err := io.WriteString(conn, request); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := send("POST /api/v2/clients HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"); resp.StatusCode != 204 {
		t.Fatalf("first request: %d", resp.StatusCode)
	}
	time.Sleep(50 * time.Millisecond) // a stale start would show as a duration longer than the exchange
	sent := time.Now()
	resp := send("POST /api/v2/clients HTTP/1.1\r\nHost: t\r\nContent-Length: 64\r\n\r\n" + strings.Repeat(" ", 64))
	window := time.Since(sent)
	id := resp.Header.Get("X-Request-Id")
	if resp.StatusCode != 413 || id == "" {
		t.Fatalf("oversized request: %d, X-Request-Id %q", resp.StatusCode, id)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" && rec["request_id"] == id {
			checkDuration(t, line, rec, window)
			return
		}
	}
	t.Fatalf("no access line with request_id %s in:\n%s", id, out.String())
}

// checkDuration: the access line has a duration_ms, and it is no longer
// than the client's whole exchange took (window), which holds the
// server's time from the request's first bytes to its answer.
func checkDuration(t *testing.T, line string, rec map[string]any, window time.Duration) {
	t.Helper()
	ms, ok := rec["duration_ms"].(float64)
	if !ok || ms < 0 || ms > float64(window.Microseconds())/1000 {
		t.Errorf("access line %s: duration_ms %v, want one within the exchange's %v", line, rec["duration_ms"], window)
	}
}

// guardedApp serves POST /api/v2/clients (204, bodies up to 16 bytes)
// behind the server's guard, logging to the returned buffer.
func guardedApp(t *testing.T) (string, *logtest.Buffer) {
	_, addr, out := server.GuardedTestApp(t, fiber.Config{BodyLimit: 16})
	return addr, out
}
