package rest

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
)

// TestErrorLogLevels: a failure of the service is logged as an error; a
// refusal that is expected while draining or while a dependency is down
// (503, a readiness probe answers one every second) is a warning; a
// client's error is not logged here (the access log has it).
func TestErrorLogLevels(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		level string
	}{
		{"internal", errors.New("boom"), "level=ERROR"},
		{"unavailable", errs.New(errs.ServiceUnavailable, "draining"), "level=WARN"},
		{"client error", errs.New(errs.NotFound, "no such record"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(slog.New(slog.NewTextHandler(&out, nil)))})
			app.Get("/x", func(*fiber.Ctx) error { return tt.err })
			if _, err := app.Test(httptest.NewRequest("GET", "/x", nil)); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tt.level == "" && got != "" || tt.level != "" && !strings.Contains(got, tt.level) {
				t.Fatalf("log %q, want %q", got, tt.level)
			}
		})
	}
}

func TestIsV1Path(t *testing.T) {
	for path, want := range map[string]bool{
		"/api/v1": true, "/api/v1/equipment": true, "/API/V1/jobs": true, "/Api/v1/": true,
		"/api/v10/x": false, "/api/v2/events": false, "/api": false, "": false, "/x/api/v1": false,
	} {
		if got := IsV1Path(path); got != want {
			t.Errorf("IsV1Path(%q) = %v, want %v", path, got, want)
		}
	}
}
