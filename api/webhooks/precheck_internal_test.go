package webhooks

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestPrecheckTemplatesAreRoutes: each template OptionalBody and
// CheckURLFirst match against is the one the resolver names for a request
// to the route Routes registers, so a route renamed on one side only fails
// here rather than quietly turning the pre-checks off (the URL would then
// be looked up inside the request's transaction).
func TestPrecheckTemplatesAreRoutes(t *testing.T) {
	app := fiber.New()
	Routes(app.Group(rest.V2Prefix), nil, Options{})
	routes := route.New(app)
	ids := strings.NewReplacer("{id}", "0198f2c4-7d1e-7000-8000-000000000001", "{delivery_id}", "0198f2c4-7d1e-7000-8000-000000000002")
	for _, tc := range []struct{ method, template string }{
		{fiber.MethodPost, endpointsPath},
		{fiber.MethodPatch, endpointPath},
		{fiber.MethodPost, rotatePath},
		{fiber.MethodPost, retryPath},
	} {
		path := ids.Replace(tc.template)
		if !routes.Serves(tc.method, path) {
			t.Errorf("no route serves %s %s", tc.method, path)
		}
		if got := routes.Match(tc.method, path); got != tc.template {
			t.Errorf("%s %s matches %q, want %q", tc.method, path, got, tc.template)
		}
	}
}

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
	// The real routes (the middleware above answers before any runs),
	// and another of the group.
	Routes(app.Group(rest.V2Prefix), nil, Options{})
	app.Post("/api/v2/events", func(c *fiber.Ctx) error { return nil })
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
