package server

import (
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
)

// queryParameters returns the query parameters each v2 GET route of app
// takes, as the OpenAPI document declares them, by the route's Fiber path:
// a GET answer names the others in its ignored_parameters warning
// (rest.DeclareQueryParameters). The table is built on the first call, once
// every route is registered (New calls it last, so a defect in the
// embedded document stops the start, not a request). A route the document
// does not describe (one a test registers) is left out, and its answers
// carry no warning.
func queryParameters(app *fiber.App) func() rest.QueryParameters {
	return sync.OnceValue(func() rest.QueryParameters {
		declared, err := openapi.ReadQueryParameters()
		if err != nil {
			panic(err) // the document is embedded: a build defect the tests catch
		}
		table := rest.QueryParameters{}
		for _, rt := range app.GetRoutes(true) {
			if rt.Method != fiber.MethodGet || !strings.HasPrefix(rt.Path, rest.V2Prefix+"/") {
				continue
			}
			names, ok := declared[route.Template(rt.Path)]
			if !ok {
				continue
			}
			taken := make(map[string]struct{}, len(names))
			for _, n := range names {
				taken[n] = struct{}{}
			}
			table[rt.Path] = taken
		}
		return table
	})
}
