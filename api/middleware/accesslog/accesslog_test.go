package accesslog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/middleware/accesslog"
	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// unrenderable is details no encoder can write: the render of an error
// carrying it fails.
type unrenderable struct{}

func (unrenderable) MarshalJSON() ([]byte, error) { return nil, errors.New("details refused") }

// longID is a path segment longer than the request log keeps of a path.
var longID = strings.Repeat("b", requestlog.MaxPath+500)

func TestOneLinePerRequestWithTheFinalStatus(t *testing.T) {
	org := uuid.MustParse("6f1c2a9e-0000-4000-8000-000000000001")
	ok := func(c *fiber.Ctx) error { return c.SendStatus(200) }
	tests := []struct {
		name    string
		path    string
		handler fiber.Handler
		withOrg bool
		status  int
		route   string
		// resolver names routes by their template (route.Resolver); gate
		// answers 429 in a middleware before any route handler runs.
		resolver, gate bool
		// logged is the path the line carries, when not path.
		logged string
		// body is how the answer's body starts, when it matters.
		body string
	}{
		{name: "success", path: "/things/42", handler: ok, withOrg: true, status: 200, route: "/things/:id"},
		{name: "an error rendered by the error handler", path: "/things/42", handler: func(*fiber.Ctx) error {
			return errs.New(errs.NotFound, "thing not found")
		}, withOrg: true, status: 404, route: "/things/:id"},
		{name: "a validation error", path: "/things/7", handler: func(*fiber.Ctx) error {
			return errs.InvalidField("name", "is required")
		}, status: 422, route: "/things/:id"},
		{name: "an error whose render failed: the 500 answered", path: "/things/7", handler: func(*fiber.Ctx) error {
			return &errs.Error{Code: errs.Validation, Message: "bad", Details: unrenderable{}}
		}, status: 500, route: "/things/:id", body: `{"error":{"code":"internal_error"`},
		{name: "the template with a resolver", path: "/things/42", handler: ok, status: 200, route: "/things/{id}", resolver: true},
		{name: "answered by middleware, with a resolver", path: "/things/42", handler: ok, status: 429,
			route: "/things/{id}", resolver: true, gate: true},
		{name: "answered by middleware, without a resolver", path: "/things/42", handler: ok, status: 429,
			route: "/", gate: true},
		{name: "a path no route serves, with a resolver", path: "/nothing", handler: ok, status: 404, route: "",
			resolver: true},
		{name: "a long path, cut as the request log cuts it", path: "/things/" + longID, handler: ok, status: 200,
			route: "/things/:id", logged: errs.Clip("/things/"+longID, requestlog.MaxPath)},
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
			cfg := accesslog.Config{Log: log, ErrorHandler: handler}
			if tt.resolver {
				cfg.Routes = route.New(app)
			}
			app.Use(accesslog.New(cfg))
			if tt.gate {
				app.Use(func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusTooManyRequests) })
			}
			app.Get("/things/:id", tt.handler)
			resp, err := app.Test(httptest.NewRequest("GET", tt.path, nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if body, _ := io.ReadAll(resp.Body); !bytes.HasPrefix(body, []byte(tt.body)) {
				t.Fatalf("body %s, want it to start %s", body, tt.body)
			}
			lines := bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n"))
			if len(lines) != 1 {
				t.Fatalf("%d log lines, want 1: %s", len(lines), logs.String())
			}
			var line map[string]any
			if err := json.Unmarshal(lines[0], &line); err != nil {
				t.Fatal(err)
			}
			logged := tt.path
			if tt.logged != "" {
				logged = tt.logged
			}
			if len(logged) > requestlog.MaxPath {
				t.Fatalf("the case expects a path of %d bytes", len(logged))
			}
			if line["msg"] != "request" || line["method"] != "GET" || line["path"] != logged ||
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
