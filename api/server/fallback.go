package server

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// route is a registered route with its pattern split once into segments.
type route struct {
	method string
	segs   []string
}

// routeTable is the app's routes with their patterns split into segments,
// read once, on first use (routes are all registered by then), with the
// router's settings that decide which paths match.
type routeTable struct {
	once                  sync.Once
	routes                []route
	strict, caseSensitive bool
}

// allow returns the methods other than method registered on path, sorted.
func (t *routeTable) allow(app *fiber.App, method, path string) []string {
	t.once.Do(func() {
		cfg := app.Config()
		t.strict, t.caseSensitive = cfg.StrictRouting, cfg.CaseSensitive
		for _, r := range app.GetRoutes(true) {
			if r.Method != fiber.MethodHead {
				t.routes = append(t.routes, route{method: r.Method, segs: t.split(r.Path)})
			}
		}
	})
	segs := t.split(path)
	allow := []string{}
	for _, r := range t.routes {
		if r.method != method && !slices.Contains(allow, r.method) && segmentsMatch(r.segs, segs) {
			allow = append(allow, r.method)
		}
	}
	sort.Strings(allow)
	return allow
}

// notAllowed is the 405 of a method the server does not implement at all
// (FOO): Allow lists the methods of path, none when the path is unknown.
func (t *routeTable) notAllowed(app *fiber.App, method, path string) error {
	return &errs.Error{Code: errs.MethodNotAllowed, Message: "method " + method + " is not supported",
		Details: rest.AllowDetails{Allow: t.allow(app, method, path)}}
}

// fallback answers requests no route matched: 405 with an Allow header when
// the path exists under another method, else 404.
func fallback(app *fiber.App, routes *routeTable) fiber.Handler {
	return func(c *fiber.Ctx) error {
		allow := routes.allow(app, c.Method(), c.Path())
		if len(allow) == 0 {
			return errs.New(errs.NotFound, "no such route")
		}
		return &errs.Error{Code: errs.MethodNotAllowed, Message: "method " + c.Method() + " is not allowed on this path",
			Details: rest.AllowDetails{Allow: allow}}
	}
}

// split cuts a path or pattern into segments as the router reads it: case
// folded unless the router is case sensitive, trailing slashes dropped
// unless it is strict, and every other empty segment kept, so that
// "//api/v2/events" (four segments) matches no route the router would not.
func (t *routeTable) split(p string) []string {
	if !t.caseSensitive {
		p = strings.ToLower(p)
	}
	if !t.strict && len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return strings.Split(p, "/")
}

// segmentsMatch matches a route pattern with :params against a path.
func segmentsMatch(pattern, path []string) bool {
	if len(pattern) != len(path) {
		return false
	}
	for i, p := range pattern {
		if strings.HasPrefix(p, ":") {
			if path[i] == "" {
				return false
			}
			continue
		}
		if p != path[i] {
			return false
		}
	}
	return true
}
