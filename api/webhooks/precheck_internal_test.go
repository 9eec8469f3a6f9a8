package webhooks

import (
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/tenancy"
)

// TestMayRegister checks which requests CheckURLFirst resolves a URL for:
// endpoint writes by a key the route admits (webhooks:write, and for an
// update webhooks:read as well), nothing else.
func TestMayRegister(t *testing.T) {
	write := tenancy.NewScopeSet(tenancy.WebhooksWrite)
	read := tenancy.NewScopeSet(tenancy.WebhooksRead)
	both := tenancy.NewScopeSet(tenancy.WebhooksWrite, tenancy.WebhooksRead)
	cases := []struct {
		method, path string
		scopes       tenancy.ScopeSet
		want         bool
	}{
		{"POST", "/api/v2/webhook_endpoints", write, true},
		{"POST", "/API/v2/Webhook_Endpoints/", write, true},
		{"POST", "/api/v2/webhook_endpoints", both, true},
		{"PATCH", "/api/v2/webhook_endpoints/0198f2c4-7d1e-7000-8000-000000000001", both, true},
		{"PATCH", "/api/v2/webhook_endpoints/0198f2c4-7d1e-7000-8000-000000000001", write, false},
		{"POST", "/api/v2/webhook_endpoints", read, false},
		{"PATCH", "/api/v2/webhook_endpoints", write, false},
		{"POST", "/api/v2/webhook_endpoints/0198f2c4-7d1e-7000-8000-000000000001", write, false},
		{"POST", "/api/v2/webhook_endpoints/x/deliveries/y/retry", write, false},
		{"DELETE", "/api/v2/webhook_endpoints/x", write, false},
		{"POST", "/api/v2/events", write, false},
		{"POST", "/api/v2/webhook", write, false},
	}
	app := fiber.New()
	routes := route.New(app)
	var got bool
	scopes := write
	app.Use(func(c *fiber.Ctx) error {
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), &tenancy.Principal{Scopes: scopes}))
		got = mayRegister(c, routes)
		return c.SendStatus(204)
	})
	ok := func(c *fiber.Ctx) error { return nil }
	app.Post("/api/v2/webhook_endpoints", ok)
	app.Patch("/api/v2/webhook_endpoints/:id", ok)
	app.Delete("/api/v2/webhook_endpoints/:id", ok)
	app.Post("/api/v2/webhook_endpoints/:id/deliveries/:delivery_id/retry", ok)
	app.Post("/api/v2/events", ok)
	for _, tc := range cases {
		scopes = tc.scopes
		if _, err := app.Test(httptest.NewRequest(tc.method, tc.path, nil)); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s %s (%v): %v, want %v", tc.method, tc.path, tc.scopes.List(), got, tc.want)
		}
	}
}
