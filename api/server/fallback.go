package server

import (
	"sort"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// fallback answers requests no route matched: 405 with an Allow header when
// the path exists under another method, else 404.
func fallback(app *fiber.App) fiber.Handler {
	var once sync.Once
	var routes []fiber.Route
	return func(c *fiber.Ctx) error {
		once.Do(func() { routes = app.GetRoutes(true) })
		var allow []string
		seen := map[string]bool{}
		for _, r := range routes {
			if r.Method == fiber.MethodHead || seen[r.Method] {
				continue
			}
			if r.Method != c.Method() && pathMatches(r.Path, c.Path()) {
				allow = append(allow, r.Method)
				seen[r.Method] = true
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

// pathMatches matches a Fiber route pattern with :params against a path.
func pathMatches(pattern, path string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, ":") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	return true
}
