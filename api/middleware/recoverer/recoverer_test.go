package recoverer_test

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/recoverer"
	"github.com/eventapi/eventapi/api/middleware/requestid"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

func TestPanicsBecomeA500WithoutTheirCause(t *testing.T) {
	tests := []struct {
		name       string
		handler    fiber.Handler
		status     int
		code       string
		logged     bool   // a panic line is logged
		loggedText string // and names the cause there
	}{
		{"a string panic", func(*fiber.Ctx) error { panic("secret detail") }, 500, "internal_error", true, "secret detail"},
		{"an error panic", func(*fiber.Ctx) error { panic(errors.New("secret error")) }, 500, "internal_error", true, "secret error"},
		{"a nil map write", func(*fiber.Ctx) error {
			var m map[string]int
			//lint:ignore SA5000 deliberate: the case needs a real runtime panic (a runtime.Error) from a nil map write
			m["secret"] = 1
			return nil
		}, 500, "internal_error", true, "assignment to entry in nil map"},
		{"no panic passes through", func(c *fiber.Ctx) error { return c.SendStatus(204) }, 204, "", false, ""},
		{"a returned error is left to the error handler", func(*fiber.Ctx) error {
			return errs.New(errs.NotFound, "thing not found")
		}, 404, "not_found", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&logs, nil))
			app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(log)})
			app.Use(requestid.New(), recoverer.New(recoverer.Config{Log: log}))
			app.Get("/", tt.handler)
			resp, err := app.Test(httptest.NewRequest("GET", "/", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.code != "" && !strings.Contains(string(body), `"code":"`+tt.code+`"`) {
				t.Fatalf("body %s lacks code %s", body, tt.code)
			}
			if strings.Contains(string(body), "secret") || strings.Contains(string(body), "goroutine") {
				t.Fatalf("the panic's cause reached the client: %s", body)
			}
			if got := strings.Contains(logs.String(), "panic in handler"); got != tt.logged {
				t.Fatalf("panic logged = %v, want %v: %s", got, tt.logged, logs.String())
			}
			if tt.logged && (!strings.Contains(logs.String(), tt.loggedText) || !strings.Contains(logs.String(), "recoverer_test.go")) {
				t.Fatalf("the log lacks the cause %q or the stack: %s", tt.loggedText, logs.String())
			}
		})
	}
}
