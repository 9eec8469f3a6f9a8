package idempotency

import (
	"context"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestALargeAnswerIsNotKept: a keyed write whose answer is larger than
// MaxKeptAnswer executes once and answers in full; neither the edge store
// nor the database keeps that answer, and its retry is refused (409, saying
// what the request did) instead of executing again, also from the
// database's copy alone (the edge store lost). Kept whole, a 235 MB answer
// makes a 335 MB Redis value that no read fetches in time: every retry
// would answer 503 for the key's 24 hours.
func TestALargeAnswerIsNotKept(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Large answers", nil)
	if err != nil {
		t.Fatal(err)
	}
	big := `{"data":"` + strings.Repeat("x", MaxKeptAnswer) + `"}`
	app := func(store edge.Store) *fiber.App {
		env := &rest.Env{DB: db}
		return testApp(t, org.ID, Config{Store: store, DB: db}, func(app *fiber.App) {
			app.Post("/api/v2/clients", func(c *fiber.Ctx) error {
				if _, err := env.Conn(c.UserContext()).NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, 'c')", org.ID).
					Exec(c.UserContext()); err != nil {
					return database.Error(err)
				}
				return c.Status(201).SendString(big)
			})
		})
	}
	store := edge.NewMemory()
	first := send(t, app(store), "POST", "/api/v2/clients", "large-1", `{"name":"c"}`)
	if first.status != 201 || len(first.body) != len(big) {
		t.Fatalf("first: %d, %d bytes; want 201 and the whole answer", first.status, len(first.body))
	}
	kept, found, err := store.Get(ctx, StoreKey(org.ID, "large-1"))
	if err != nil || !found || len(kept) > 4096 {
		t.Fatalf("the edge store keeps %d bytes (%v), want the record without the answer", len(kept), err)
	}
	var stored int
	if err := db.NewRaw("SELECT octet_length(response) FROM idempotency_keys WHERE organization_id = ? AND key = 'large-1'", org.ID).
		Scan(ctx, &stored); err != nil || stored > 4096 {
		t.Fatalf("the database keeps %d bytes of the answer (%v), want none of it", stored, err)
	}
	for name, store := range map[string]edge.Store{"edge store": store, "database alone": edge.NewMemory()} {
		retry := send(t, app(store), "POST", "/api/v2/clients", "large-1", `{"name":"c"}`)
		if retry.status != 409 || !strings.Contains(retry.body, `"idempotency_key_mismatch"`) ||
			!strings.Contains(retry.body, "executed (status 201)") || !strings.Contains(retry.body, "was not kept") {
			t.Fatalf("retry from the %s: %d %.300s; want 409 saying the request was executed", name, retry.status, retry.body)
		}
	}
	var n int
	if err := db.NewRaw("SELECT count(*) FROM clients WHERE organization_id = ?", org.ID).Scan(ctx, &n); err != nil || n != 1 {
		t.Fatalf("%d clients (%v), want the one write", n, err)
	}
}
