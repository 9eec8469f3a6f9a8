package server_test

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// TestRefusalsHaveAnAccessLine: a request refused before routing (an
// unknown method, a body over the limit) gets an access line carrying the
// X-Request-Id it was answered with, so that the id a client quotes is
// found in the logs like any other.
func TestRefusalsHaveAnAccessLine(t *testing.T) {
	var out logtest.Buffer
	log := telemetry.NewLogger(&out, "info")
	errorHandler := rest.ErrorHandler(log)
	app := fiber.New(fiber.Config{ErrorHandler: errorHandler, BodyLimit: 16, DisableStartupMessage: true})
	routes := route.New(app)
	server.Guard(app, errorHandler, routes, log)
	app.Post("/api/v2/clients", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })

	for _, tt := range []struct {
		name, request string
		status        int
	}{
		{"unknown method", "FOO /api/v2/clients HTTP/1.1\r\nHost: t\r\n\r\n", 405},
		{"body over the limit", "POST /api/v2/clients HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n" +
			strings.Repeat(" ", 64), 413},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, _ := rawExchange(t, "http://"+ln.Addr().String(), tt.request, nil)
			id := resp.Header.Get("X-Request-Id")
			if resp.StatusCode != tt.status || id == "" {
				t.Fatalf("%d X-Request-Id %q, want %d with an id", resp.StatusCode, id, tt.status)
			}
			for _, line := range strings.Split(out.String(), "\n") {
				var rec map[string]any
				if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" && rec["request_id"] == id {
					if rec["status"] != float64(tt.status) {
						t.Errorf("access line %s, want status %d", line, tt.status)
					}
					return
				}
			}
			t.Fatalf("no access line with request_id %s in:\n%s", id, out.String())
		})
	}
}
