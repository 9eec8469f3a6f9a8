package server_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
)

// TestRequestDeadline: a request whose database work outlasts
// EVENTAPI_REQUEST_TIMEOUT is answered 503 service_unavailable, in the
// envelope, without database text, instead of waiting for the query; a
// query within the bound answers as usual. (The statement here sleeps 60 s
// in PostgreSQL with statement_timeout lifted: without the deadline the
// request would take a minute and answer 200.)
func TestRequestDeadline(t *testing.T) {
	var db *bun.DB // set once the app is up; the route runs after
	env := apitest.New(t,
		apitest.WithConfig(func(c *config.Config) { c.RequestTimeout = 2 * time.Second }),
		apitest.WithRoutes(func(v2 fiber.Router) {
			v2.Get("/test/sleep/:seconds", func(c *fiber.Ctx) error {
				// statement_timeout (15 s) is lifted for the sleep, as a
				// stalled connection is not bounded by it either.
				err := db.RunInTx(c.UserContext(), nil, func(ctx context.Context, tx bun.Tx) error {
					if _, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
						return err
					}
					_, err := tx.ExecContext(ctx, "SELECT pg_sleep(?::float8)", c.Params("seconds"))
					return err
				})
				if err != nil {
					return database.Error(err)
				}
				return c.JSON(fiber.Map{"data": fiber.Map{"slept": true}})
			})
		}))
	db = env.Svc.DB
	a := env.NewOrg("Deadline")
	// The route is outside the OpenAPI document, so it is called through
	// the app directly rather than through the contract-checked client.
	get := func(path string) (int, string) {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+a.Key)
		resp, err := env.Svc.App.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := get("/api/v2/test/sleep/0"); status != 200 {
		t.Fatalf("a query within the bound: %d %s", status, body)
	}
	status, body := get("/api/v2/test/sleep/60")
	if status != 503 || !strings.Contains(body, `"service_unavailable"`) {
		t.Fatalf("a query past the bound: %d %s, want 503 service_unavailable", status, body)
	}
	apitest.AssertNoDatabaseText(t, []byte(body))
	// The pool is whole: the next request is served.
	if status, body := get("/api/v2/test/sleep/0"); status != 200 {
		t.Fatalf("after the timeout: %d %s", status, body)
	}
}
