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

// fallback answers requests no route matched: 405 with an Allow header when
// the path exists under another method, else 404. The route table is read
// once, on the first unmatched request (routes are all registered by then).
func fallback(app *fiber.App) fiber.Handler {
	var once sync.Once
	var routes []route
	return func(c *fiber.Ctx) error {
		once.Do(func() {
			for _, r := range app.GetRoutes(true) {
				if r.Method != fiber.MethodHead {
					routes = append(routes, route{method: r.Method, segs: splitPath(r.Path)})
				}
			}
		})
		path := splitPath(c.Path())
		var allow []string
		for _, r := range routes {
			if r.method != c.Method() && !slices.Contains(allow, r.method) && segmentsMatch(r.segs, path) {
				allow = append(allow, r.method)
			}
		}
		if len(allow) == 0 {
			return errs.New(errs.NotFound, "no such route")
		}
		sort.Strings(allow)
		return &errs.Error{Code: errs.MethodNotAllowed, Message: "method " + c.Method() + " is not allowed on this path",
			Details: rest.AllowDetails{Allow: allow}}
	}
}

func splitPath(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

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
