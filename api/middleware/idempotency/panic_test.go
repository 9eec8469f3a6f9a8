package idempotency

import (
	"context"
	"log/slog"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/recoverer"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// TestAPanicReleasesTheKey: a keyed write whose handler panics (a 500 from
// the recoverer above the middleware, as in the server) releases its key
// like any 5xx, so the retry executes again. A release that is not
// deferred is skipped by the panic: the retry would meet 409
// idempotency_key_in_use until the marker's TTL.
func TestAPanicReleasesTheKey(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Panics", nil)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New(make([]byte, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(log)})
	app.Use(recoverer.New(recoverer.Config{Log: log}))
	app.Use(func(c *fiber.Ctx) error {
		rest.EnsureRequestID(c)
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), &tenancy.Principal{OrganizationID: org.ID}))
		return c.Next()
	})
	app.Use(NewMiddleware(Config{Store: edge.NewMemory(), DB: db, Sealer: sealer}).Handle)
	runs := 0
	app.Post("/api/v2/clients", func(c *fiber.Ctx) error {
		if runs++; runs == 1 {
			panic("the handler's first run fails")
		}
		return c.Status(201).SendString(`{"data":{}}`)
	})
	if first := send(t, app, "POST", "/api/v2/clients", "panics-1", `{"name":"a"}`); first.status != 500 {
		t.Fatalf("first: %d %s, want the recoverer's 500", first.status, first.body)
	}
	if retry := send(t, app, "POST", "/api/v2/clients", "panics-1", `{"name":"a"}`); retry.status != 201 || runs != 2 {
		t.Fatalf("retry: %d %s after %d runs; want 201, the handler run again", retry.status, retry.body, runs)
	}
}
