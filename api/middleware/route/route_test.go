package route

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

func TestTemplate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/api/v2/events", "/api/v2/events"},
		{"/api/v2/events/:id", "/api/v2/events/{id}"},
		{"/api/v2/pick_lists/:id/items/:item_id", "/api/v2/pick_lists/{id}/items/{item_id}"},
		{"/files/*", "/files/{path}"},
	}
	for _, tt := range tests {
		if got := Template(tt.in); got != tt.want {
			t.Errorf("Template(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestResolverNamesMiddlewareAnswers checks that a request answered by group
// middleware (as the rate limiter's 429 is) still gets its route's template,
// that a path answered 405 (allowed under other methods only) is named too,
// and that an unknown path gets none.
func TestResolverNamesMiddlewareAnswers(t *testing.T) {
	app := fiber.New()
	r := New(app)
	var got string
	app.Use(func(c *fiber.Ctx) error {
		err := c.Next()
		got = r.Of(c)
		return err
	})
	g := app.Group("/api/v2", func(c *fiber.Ctx) error {
		if c.Get("X-Refuse") != "" {
			return c.SendStatus(429)
		}
		return c.Next()
	})
	g.Get("/events", func(c *fiber.Ctx) error { return c.SendString("list") })
	g.Get("/events/:id", func(c *fiber.Ctx) error { return c.SendString("one") })
	g.Post("/events/:id/items/:item_id", func(c *fiber.Ctx) error { return c.SendString("item") })

	tests := []struct {
		method, path string
		refuse       bool
		want         string
	}{
		{"GET", "/api/v2/events", false, "/api/v2/events"},
		{"GET", "/api/v2/events/42", false, "/api/v2/events/{id}"},
		{"GET", "/api/v2/events/42", true, "/api/v2/events/{id}"},
		{"POST", "/api/v2/events/1/items/2", true, "/api/v2/events/{id}/items/{item_id}"},
		{"GET", "/api/v2/events/", true, "/api/v2/events"},
		{"GET", "/api/v2/nothing/here", true, ""},
		{"DELETE", "/api/v2/events/42", true, "/api/v2/events/{id}"},
		{"DELETE", "/api/v2/events/42", false, "/api/v2/events/{id}"},
		{"POST", "/api/v2/events", false, "/api/v2/events"},
		{"DELETE", "/api/v2/nothing/here", false, ""},
	}
	for _, tt := range tests {
		got = "unset"
		req := httptest.NewRequest(tt.method, tt.path, nil)
		if tt.refuse {
			req.Header.Set("X-Refuse", "1")
		}
		res, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		if got != tt.want {
			t.Errorf("%s %s (refused=%v): route %q, want %q", tt.method, tt.path, tt.refuse, got, tt.want)
		}
	}
}

// TestMatchReadsPathsAsTheRouter: paths are matched as Fiber's router reads
// them at its defaults (neither strict nor case sensitive): trailing
// slashes and case ignored, other empty segments kept. Match names a path
// served under another method only; Allow lists those methods.
func TestMatchReadsPathsAsTheRouter(t *testing.T) {
	app := fiber.New()
	ok := func(c *fiber.Ctx) error { return nil }
	app.Get("/api/v2/clients", ok)
	app.Post("/api/v2/clients", ok)
	app.Get("/api/v2/clients/:id", ok)
	app.Patch("/api/v2/clients/:id", ok)
	app.Get("/files/*", ok)
	r := New(app)

	tests := []struct {
		method, path string
		route        string
		allow        string
	}{
		{"GET", "/api/v2/clients", "/api/v2/clients", "HEAD POST"},
		{"GET", "/api/v2/clients/123", "/api/v2/clients/{id}", "HEAD PATCH"},
		{"DELETE", "/api/v2/clients/123", "/api/v2/clients/{id}", "GET HEAD PATCH"},
		{"GET", "/api/v2/clients/123/", "/api/v2/clients/{id}", "HEAD PATCH"},
		{"GET", "/api/v2/clients/", "/api/v2/clients", "HEAD POST"},
		{"GET", "/API/V2/Clients", "/api/v2/clients", "HEAD POST"},
		{"GET", "/api/v2/crew/123", "", ""},
		{"GET", "/api/v2/clients/123/items", "", ""},
		{"GET", "/api/v2/clients//123", "", ""},
		{"GET", "//api/v2/clients", "", ""},
		{"GET", "/api/v2//clients", "", ""},
		{"GET", "/files/a/b", "/files/{path}", "HEAD"},
	}
	for _, tt := range tests {
		if got := r.Match(tt.method, tt.path); got != tt.route {
			t.Errorf("Match(%s %s) = %q, want %q", tt.method, tt.path, got, tt.route)
		}
		if got := strings.Join(r.Allow(tt.method, tt.path), " "); got != tt.allow {
			t.Errorf("Allow(%s %s) = %q, want %q", tt.method, tt.path, got, tt.allow)
		}
	}
}
