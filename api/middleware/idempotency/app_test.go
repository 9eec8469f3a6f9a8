package idempotency

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// testApp is a Fiber app as the service orders it for this middleware:
// the v2 error handler, a principal of org (what authentication leaves),
// the middleware with cfg, then the routes.
func testApp(t *testing.T, org uuid.UUID, cfg Config, routes func(app *fiber.App)) *fiber.App {
	t.Helper()
	if cfg.Sealer == nil {
		sealer, err := seal.New([]byte(strings.Repeat("k", seal.KeySize)))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sealer = sealer
	}
	app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(slog.New(slog.DiscardHandler))})
	app.Use(func(c *fiber.Ctx) error {
		rest.EnsureRequestID(c)
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), &tenancy.Principal{OrganizationID: org}))
		return c.Next()
	})
	m := NewMiddleware(cfg)
	t.Cleanup(m.Close)
	app.Use(m.Handle)
	routes(app)
	return app
}

// answer is one response of a testApp.
type answer struct {
	status int
	header http.Header
	body   string
}

// send sends a request with an Idempotency-Key (none when key is "") and a
// JSON body (none when body is "").
func send(t *testing.T, app *fiber.App, method, path, key, body string) answer {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	}
	if key != "" {
		req.Header.Set(Header, key)
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(raw)}
}
