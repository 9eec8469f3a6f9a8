// Package route matches request paths against an app's routes, the one
// place that does so outside Fiber's router. It names the route template a
// request matched, in the OpenAPI form (/api/v2/events/{id}), for span
// names, metric labels and the request log, and lists the methods a path
// allows, for 405 answers. A template is never the raw path, so it is safe
// as a low-cardinality label.
//
// Fiber's c.Route() is the template only when a route handler ran; a
// request answered by middleware (401, 429) stops at the group's prefix, and
// one no route serves (404, 405) at the last middleware. The Resolver then
// matches the path itself, reading it as the router does: case folded unless
// the app is case sensitive, trailing slashes dropped unless it is strict,
// every other empty segment kept (so "//api/v2/events" matches nothing, as
// in the router). A path that exists under other methods only (a 405) is
// named by its template too: the route is null only for an unknown path
// (docs/observability.md).
package route

import (
	"slices"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// Resolver matches paths against one app's routes. Build it before the app
// serves and use it from any goroutine; it reads the routes on first use,
// when every route is registered.
type Resolver struct {
	app  *fiber.App
	once sync.Once
	// strict and caseSensitive are the router's settings that decide which
	// paths match.
	strict, caseSensitive bool
	known                 map[routeKey]string // Fiber's method and path -> template
	routes                []route             // in registration order
}

// route is a registered route with its pattern split once into segments.
// routeKey names a registered route; a lookup by it builds no string.
type routeKey struct{ method, path string }

type route struct {
	method string
	segs   []string
	name   string
}

// New returns a Resolver for app.
func New(app *fiber.App) *Resolver { return &Resolver{app: app} }

func (r *Resolver) load() {
	cfg := r.app.Config()
	r.strict, r.caseSensitive = cfg.StrictRouting, cfg.CaseSensitive
	r.known = map[routeKey]string{}
	for _, rt := range r.app.GetRoutes(true) {
		key := routeKey{rt.Method, rt.Path}
		if _, dup := r.known[key]; dup {
			continue
		}
		name := Template(rt.Path)
		r.known[key] = name
		r.routes = append(r.routes, route{method: rt.Method, segs: r.split(rt.Path), name: name})
	}
}

// Of returns the template of c's request, or "" when no route of any method
// matches (an unknown path).
func (r *Resolver) Of(c *fiber.Ctx) string {
	r.once.Do(r.load)
	method := c.Method()
	if rt := c.Route(); rt != nil {
		if name, ok := r.known[routeKey{method, rt.Path}]; ok {
			return name
		}
	}
	return r.Match(method, c.Path())
}

// Match returns the template of the first route of method whose pattern
// matches path; failing that, of the first route of any method (a method the
// path does not allow); or "".
func (r *Resolver) Match(method, path string) string {
	r.once.Do(r.load)
	segs := r.split(path)
	other := ""
	for _, rt := range r.routes {
		if !matches(rt.segs, segs) {
			continue
		}
		if rt.method == method {
			return rt.name
		}
		if other == "" {
			other = rt.name
		}
	}
	return other
}

// Serves reports whether a route of method itself matches path (Match also
// answers for a path that only another method serves).
func (r *Resolver) Serves(method, path string) bool {
	r.once.Do(r.load)
	segs := r.split(path)
	for _, rt := range r.routes {
		if rt.method == method && matches(rt.segs, segs) {
			return true
		}
	}
	return false
}

// Allow returns the methods other than method registered on path, sorted;
// none for an unknown path. HEAD is among them wherever GET is: Fiber
// answers it on every GET route, and Allow lists every method the path
// answers (RFC 9110, section 10.2.1).
func (r *Resolver) Allow(method, path string) []string {
	r.once.Do(r.load)
	segs := r.split(path)
	allow := []string{}
	for _, rt := range r.routes {
		if rt.method != method && !slices.Contains(allow, rt.method) && matches(rt.segs, segs) {
			allow = append(allow, rt.method)
		}
	}
	slices.Sort(allow)
	return allow
}

// split cuts a path or pattern into segments as the router reads it.
func (r *Resolver) split(p string) []string {
	if !r.caseSensitive {
		p = strings.ToLower(p)
	}
	if !r.strict && len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return strings.Split(p, "/")
}

// matches matches a pattern's segments against a path's: a :param matches
// one non-empty segment, or none when it is the last and optional (:id?);
// a wildcard (* or +) matches the rest.
func matches(pattern, path []string) bool {
	for i, p := range pattern {
		if p == "*" || strings.HasPrefix(p, "+") {
			return true
		}
		if i >= len(path) {
			return i == len(pattern)-1 && strings.HasPrefix(p, ":") && strings.HasSuffix(p, "?")
		}
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
	return len(pattern) == len(path)
}

// Template renders a Fiber path in OpenAPI form: :id becomes {id}.
func Template(fiberPath string) string {
	if !strings.ContainsAny(fiberPath, ":*+") {
		return fiberPath
	}
	segs := strings.Split(fiberPath, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, ":"):
			segs[i] = "{" + strings.TrimSuffix(s[1:], "?") + "}"
		case s == "*" || s == "+":
			segs[i] = "{path}"
		}
	}
	return strings.Join(segs, "/")
}
