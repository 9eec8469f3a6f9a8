package accesslog_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/middleware/accesslog"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

func TestOneLinePerRequestWithTheFinalStatus(t *testing.T) {
	org := uuid.MustParse("6f1c2a9e-0000-4000-8000-000000000001")
	tests := []struct {
		name    string
		path    string
		handler fiber.Handler
		withOrg bool
		status  int
		route   string
	}{
		{"success", "/things/42", func(c *fiber.Ctx) error { return c.SendStatus(200) }, true, 200, "/things/:id"},
		{"an error rendered by the error handler", "/things/42", func(*fiber.Ctx) error {
			return errs.New(errs.NotFound, "thing not found")
		}, true, 404, "/things/:id"},
		{"a validation error", "/things/7", func(*fiber.Ctx) error {
			return errs.InvalidField("name", "is required")
		}, false, 422, "/things/:id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&logs, nil))
			handler := rest.ErrorHandler(slog.New(slog.DiscardHandler))
			app := fiber.New(fiber.Config{ErrorHandler: handler})
			if tt.withOrg {
				app.Use(func(c *fiber.Ctx) error {
					c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), &tenancy.Principal{OrganizationID: org}))
					return c.Next()
				})
			}
			app.Use(accesslog.New(accesslog.Config{Log: log, ErrorHandler: handler}))
			app.Get("/things/:id", tt.handler)
			resp, err := app.Test(httptest.NewRequest("GET", tt.path, nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			lines := bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n"))
			if len(lines) != 1 {
				t.Fatalf("%d log lines, want 1: %s", len(lines), logs.String())
			}
			var line map[string]any
			if err := json.Unmarshal(lines[0], &line); err != nil {
				t.Fatal(err)
			}
			if line["msg"] != "request" || line["method"] != "GET" || line["path"] != tt.path ||
				line["route"] != tt.route || line["status"] != float64(tt.status) {
				t.Fatalf("log line %v", line)
			}
			if d, ok := line["duration_ms"].(float64); !ok || d < 0 {
				t.Fatalf("duration_ms = %v", line["duration_ms"])
			}
			if got, want := line["organization_id"], map[bool]any{true: org.String(), false: nil}[tt.withOrg]; got != want {
				t.Fatalf("organization_id = %v, want %v", got, want)
			}
		})
	}
}
