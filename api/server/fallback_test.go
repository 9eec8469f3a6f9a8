package server

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
)

// TestFallbackAgreesWithTheRouter serves paths the router matches, almost
// matches or does not match through a small app with the fallback last: a
// 405 is only for a path the router serves under another method, and every
// method its Allow lists is served.
func TestFallbackAgreesWithTheRouter(t *testing.T) {
	app := fiber.New(exactPaths(fiber.Config{ErrorHandler: rest.ErrorHandler(slog.New(slog.DiscardHandler))}))
	ok := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) }
	v2 := app.Group("/api/v2")
	v2.Get("/events", ok)
	v2.Post("/events", ok)
	v2.Get("/events/:id", ok)
	v2.Patch("/events/:id", ok)
	app.Use(fallback(route.New(app)))
	handler := app.Handler()
	serve := func(method, path string) *fasthttp.Response {
		var fctx fasthttp.RequestCtx
		fctx.Request.Header.SetMethod(method)
		fctx.Request.Header.SetHost("test")
		fctx.Request.SetRequestURI(path)
		handler(&fctx)
		var resp fasthttp.Response
		fctx.Response.CopyTo(&resp)
		return &resp
	}

	tests := []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/api/v2/events", 204, ""},
		{"DELETE", "/api/v2/events", 405, "GET, HEAD, POST"},
		{"DELETE", "/api/v2/events/1", 405, "GET, HEAD, PATCH"},
		{"GET", "/api/v2/nothing", 404, ""},
		// Empty segments: the router matches none of these.
		{"GET", "//api/v2/events", 404, ""},
		{"POST", "//api/v2/events", 404, ""},
		{"GET", "/api/v2//events", 404, ""},
		{"POST", "/api/v2//events", 404, ""},
		{"GET", "/api/v2/events//1", 404, ""},
		{"GET", "//", 404, ""},
		// Routing is strict and case-sensitive: a trailing slash or
		// another case is no route, for the router and the fallback alike.
		{"GET", "/api/v2/events/", 404, ""},
		{"POST", "/api/v2/events/", 404, ""},
		{"DELETE", "/api/v2/events/", 404, ""},
		{"DELETE", "/api/v2/events//", 404, ""},
		{"DELETE", "/api/v2/events/1/", 404, ""},
		{"GET", "/API/V2/Events", 404, ""},
		{"DELETE", "/API/V2/Events", 404, ""},
	}
	for _, tt := range tests {
		resp := serve(tt.method, tt.path)
		if resp.StatusCode() != tt.status || string(resp.Header.Peek("Allow")) != tt.allow {
			t.Errorf("%s %s: %d Allow %q %s, want %d Allow %q", tt.method, tt.path,
				resp.StatusCode(), resp.Header.Peek("Allow"), resp.Body(), tt.status, tt.allow)
			continue
		}
		if tt.allow == "" {
			continue
		}
		for _, m := range strings.Split(tt.allow, ", ") {
			if got := serve(m, tt.path); got.StatusCode() != 204 {
				t.Errorf("%s %s: Allow lists %s, which answers %d %s", tt.method, tt.path, m, got.StatusCode(), got.Body())
			}
		}
	}
}
