package idempotency

import (
	"context"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestDeleteBodyIsNotFingerprinted: a DELETE's body is not read
// (docs/decisions.md, "Requests that take no body"), so a retry of a keyed
// DELETE is the same request whatever body it carries: the stored 204 is
// replayed, where a retry without the body (dropped by an intermediary)
// got 409 idempotency_key_mismatch. The method and path still count.
func TestDeleteBodyIsNotFingerprinted(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Deleting", nil)
	if err != nil {
		t.Fatal(err)
	}
	const (
		path  = "/api/v2/equipment_reservations/0b7c3c1e-5f55-4b43-9a4e-6d3f1c2a9e10"
		other = "/api/v2/equipment_reservations/1c8d4d2f-6a66-4c54-8b54-7e4a2d3b0f21"
	)
	deletions := 0
	app := testApp(t, org.ID, Config{Store: edge.NewMemory(), DB: db}, func(app *fiber.App) {
		app.Delete("/api/v2/equipment_reservations/:id", func(c *fiber.Ctx) error {
			deletions++
			return rest.NoContent(c)
		})
	})
	first := send(t, app, "DELETE", path, "del-1", `{"reason":"typo"}`)
	if first.status != 204 || deletions != 1 {
		t.Fatalf("first DELETE: %d %s, %d deletions", first.status, first.body, deletions)
	}
	for _, body := range []string{"", `{"reason":"another"}`, "not json", `{"reason":"typo"}`} {
		retry := send(t, app, "DELETE", path, "del-1", body)
		if retry.status != 204 || retry.header.Get(HeaderReplayed) != "true" || deletions != 1 {
			t.Fatalf("retry with body %q: %d %s (replayed %q), %d deletions; want the stored 204 replayed",
				body, retry.status, retry.body, retry.header.Get(HeaderReplayed), deletions)
		}
	}
	if res := send(t, app, "DELETE", other, "del-1", ""); res.status != 409 || deletions != 1 {
		t.Fatalf("the key on another path: %d %s, %d deletions; want 409 idempotency_key_mismatch", res.status, res.body, deletions)
	}
}

// TestFingerprintOfBodylessMethods: a DELETE's fingerprint is its method
// and path; a POST's and a PATCH's body still counts.
func TestFingerprintOfBodylessMethods(t *testing.T) {
	const path = "/api/v2/clients/0b6f5d1e-8a7c-4c1e-9f00-aa11bb22cc33"
	for _, tt := range []struct {
		method string
		same   bool
	}{
		{"DELETE", true},
		{"POST", false},
		{"PATCH", false},
	} {
		with := Fingerprint(tt.method, path, []byte(`{"name":"A"}`))
		without := Fingerprint(tt.method, path, nil)
		if got := string(with) == string(without); got != tt.same {
			t.Errorf("%s: with and without a body the same fingerprint: %v, want %v", tt.method, got, tt.same)
		}
	}
}

// TestReadsAreNotKeyed: GET and HEAD with an Idempotency-Key run as
// without one: nothing is claimed, so no edge store call is made.
func TestReadsAreNotKeyed(t *testing.T) {
	store := &countingStore{Store: edge.NewMemory()}
	org := uuid.New()
	app := testApp(t, org, Config{Store: store}, func(app *fiber.App) {
		app.Get("/api/v2/clients", func(c *fiber.Ctx) error { return c.SendString("{}") })
	})
	for _, method := range []string{"GET", "HEAD"} {
		for i := 0; i < 2; i++ {
			if res := send(t, app, method, "/api/v2/clients", "read-1", ""); res.status != 200 {
				t.Fatalf("%s with a key: %d %s", method, res.status, res.body)
			}
		}
	}
	if n := store.calls.Load(); n != 0 {
		t.Fatalf("%d edge store calls for keyed reads, want none", n)
	}
}
