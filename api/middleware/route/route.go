// Package route names the route template a request matched, in the OpenAPI
// form (/api/v2/events/{id}), for span names, metric labels and the request
// log. It is never the raw path, so it is safe as a low-cardinality label.
//
// Fiber's c.Route() is the template only when a route handler ran; a request
// answered by middleware (401, 429) stops at the group's prefix. The Resolver
// then matches the path against the app's routes itself, in registration
// order as Fiber does. A path that exists under other methods only (a 405)
// is named by its template too: the route is null only for an unknown path
// (docs/observability.md).
package route

import (
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// Resolver finds route templates for one app. Build it before the app serves
// and use it from any goroutine; it reads the routes on first use, when
// every route is registered.
type Resolver struct {
	app   *fiber.App
	once  sync.Once
	known map[string]string     // "METHOD fiberpath" -> template
	byM   map[string][]template // method -> routes in registration order
	all   []template            // every method's routes in registration order
}

type template struct {
	segs []string
	name string
}

// New returns a Resolver for app.
func New(app *fiber.App) *Resolver { return &Resolver{app: app} }

func (r *Resolver) load() {
	r.known, r.byM = map[string]string{}, map[string][]template{}
	for _, rt := range r.app.GetRoutes(true) {
		name := Template(rt.Path)
		key := rt.Method + " " + rt.Path
		if _, dup := r.known[key]; dup {
			continue
		}
		r.known[key] = name
		t := template{segs: split(rt.Path), name: name}
		r.byM[rt.Method] = append(r.byM[rt.Method], t)
		r.all = append(r.all, t)
	}
}

// Of returns the template of c's request, or "" when no route of any method
// matches (an unknown path).
func (r *Resolver) Of(c *fiber.Ctx) string {
	r.once.Do(r.load)
	method := c.Method()
	if rt := c.Route(); rt != nil {
		if name, ok := r.known[method+" "+rt.Path]; ok {
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
	segs := split(path)
	for _, routes := range [][]template{r.byM[method], r.all} {
		for _, t := range routes {
			if matches(t.segs, segs) {
				return t.name
			}
		}
	}
	return ""
}

func matches(pattern, path []string) bool {
	for i, p := range pattern {
		if p == "*" || strings.HasPrefix(p, "+") {
			return true
		}
		if i >= len(path) {
			return strings.HasSuffix(p, "?") && strings.HasPrefix(p, ":") && i == len(pattern)-1
		}
		if strings.HasPrefix(p, ":") {
			if path[i] == "" {
				return false
			}
			continue
		}
		if !strings.EqualFold(p, path[i]) {
			return false
		}
	}
	return len(pattern) == len(path)
}

func split(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
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
