package server

import (
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// notAllowed is the 405 of a method the server does not implement at all
// (FOO): Allow lists the methods of path, none when the path is unknown.
// The method, the client's own text of up to the header buffer's size, is
// repeated at most errs.MaxEcho bytes long.
func notAllowed(routes *route.Resolver, method, path string) error {
	return &errs.Error{Code: errs.MethodNotAllowed, Message: "method " + errs.Echo(method) + " is not supported",
		Details: rest.AllowDetails{Allow: routes.Allow(method, path)}}
}

// fallback answers requests no route matched: 405 with an Allow header when
// the path exists under another method, else 404.
func fallback(routes *route.Resolver) fiber.Handler {
	return func(c *fiber.Ctx) error {
		allow := routes.Allow(c.Method(), c.Path())
		if len(allow) == 0 {
			return noSuchRoute()
		}
		return &errs.Error{Code: errs.MethodNotAllowed, Message: "method " + errs.Echo(c.Method()) + " is not allowed on this path",
			Details: rest.AllowDetails{Allow: allow}}
	}
}

// noSuchRoute is the 404 of a path no route serves.
func noSuchRoute() error { return rest.NoSuchRoute() }

// publicMethods answers a request of another method than GET or HEAD on a
// public path (the OpenAPI documents, the reference page and its assets)
// with fallback's 405 and Allow, as any served path answers a method it
// does not serve. Without it such a request, keyless, went on to the
// authenticated group below and got 401, and with a key 405: a browser's
// preflight of the CORS-enabled document failed. Every other request goes
// on, after a few string comparisons.
func publicMethods(routes *route.Resolver) fiber.Handler {
	refuse := fallback(routes)
	return func(c *fiber.Ctx) error {
		switch c.Method() {
		case fiber.MethodGet, fiber.MethodHead:
			return c.Next()
		}
		if !openapi.IsPublicPath(c.Path()) {
			return c.Next()
		}
		return refuse(c)
	}
}
