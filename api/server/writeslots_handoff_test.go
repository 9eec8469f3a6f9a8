package server_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/rest/bulkhead"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/tenancy"
)

// TestEveryWriteRunsHoldingItsSlot: whichever of the write slot and the
// Idempotency-Key middleware takes a write's slot, its handler runs
// holding one. With no slot free, a keyed write the middleware takes over
// waits for its slot in the middleware's BeforeTx; every other write,
// keyed or not, waits in the write slot: a keyed write of a method the
// middleware does not key (PUT), or on a path no route of its method
// serves, would otherwise run with no slot at all, the write slot
// expecting the middleware to take it.
func TestEveryWriteRunsHoldingItsSlot(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Write slots")
	sealer, err := server.ResponseSealer(context.Background(), env.Svc.DB)
	if err != nil {
		t.Fatal(err)
	}
	writes := bulkhead.New(1, time.Minute)
	var deferred atomic.Int64 // writes that reached the middleware's BeforeTx
	slot, keys := server.KeyedWrites(writes, idempotency.Config{Store: env.Svc.Edge, DB: env.Svc.DB, Sealer: sealer,
		Serves: func(_, path string) bool { return path == "/served" }},
		func(*fiber.Ctx) idempotency.Wait { deferred.Add(1); return nil })
	defer keys.Close()
	principal := &tenancy.Principal{OrganizationID: org.ID}
	// released: the test gave the bulkhead's one slot back; held: the
	// handler ran after that, with the slot taken.
	var released, held atomic.Bool
	app := fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(env.Svc.Log)})
	app.Use(func(c *fiber.Ctx) error {
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), principal))
		return c.Next()
	}, slot, keys.Handle)
	app.All("/*", func(c *fiber.Ctx) error {
		// The bulkhead's one slot is the test's until released, then free
		// unless this request holds it.
		_, release, free := writes.TryHold(c.UserContext())
		if free {
			release()
		}
		held.Store(released.Load() && !free)
		return c.Status(fiber.StatusCreated).SendString(`{"data":{}}`)
	})

	for _, tt := range []struct {
		name, method, path string
		keyed, deferred    bool
	}{
		{"keyed POST the middleware serves", "POST", "/served", true, true},
		{"keyed DELETE the middleware serves", "DELETE", "/served", true, true},
		{"unkeyed POST", "POST", "/served", false, false},
		{"keyed PUT", "PUT", "/served", true, false},
		{"keyed POST on a path no route serves", "POST", "/other", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tenancy.WithPrincipal(context.Background(), principal)
			_, release, err := writes.Hold(ctx)
			if err != nil {
				t.Fatal(err)
			}
			released.Store(false)
			held.Store(false)
			deferred.Store(0)
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(`{"name":"a"}`))
			req.Header.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
			if tt.keyed {
				req.Header.Set(idempotency.Header, uuid.NewString())
			}
			answered := make(chan int, 1)
			go func() {
				resp, err := app.Test(req, -1)
				if err != nil {
					t.Error(err)
					answered <- 0
					return
				}
				answered <- resp.StatusCode
			}()
			status := -1
			for deadline := time.Now().Add(time.Minute); writes.Waiting() == 0 && status < 0; time.Sleep(time.Millisecond) {
				select {
				case status = <-answered:
				default:
				}
				if time.Now().After(deadline) {
					t.Fatal("the write neither waited for a slot nor was answered")
				}
			}
			released.Store(true)
			release()
			if status < 0 {
				status = <-answered
			}
			if status != fiber.StatusCreated || !held.Load() {
				t.Fatalf("%d, handler held a slot: %v; want 201 with the slot held", status, held.Load())
			}
			if got := deferred.Load() == 1; got != tt.deferred {
				t.Fatalf("the slot taken in the middleware's BeforeTx: %v, want %v", got, tt.deferred)
			}
		})
	}
}
