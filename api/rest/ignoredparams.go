package rest

import (
	"encoding/json"
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
)

// WarningIgnoredParameters is the code of the warning a v2 GET answer gets
// when its query string carried parameters the route does not take, which
// were ignored (docs/decisions.md, "Query parameters"): a misspelt filter
// (?eventid=) lists everything, and the warning says why.
const WarningIgnoredParameters = "ignored_parameters"

// IgnoredParametersDetails is the details of an ignored_parameters warning.
type IgnoredParametersDetails struct {
	Parameters []string `json:"parameters"`
}

// QueryParameters is, for each GET route by its Fiber path
// (/api/v2/events/:id), the set of query parameters it takes. A route it
// does not hold is not checked: its answers carry no warning.
type QueryParameters map[string]map[string]struct{}

const localQueryParameters = "eventapi.query_parameters"

// DeclareQueryParameters is group middleware that gives a request with a
// query string the routes' parameters (table, called on every such request,
// so it should return one table built once), against which its GET answer
// names those it ignored (respond). A request without a query string skips
// it.
func DeclareQueryParameters(table func() QueryParameters) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if c.Request().URI().QueryArgs().Len() > 0 {
			c.Locals(localQueryParameters, table)
		}
		return c.Next()
	}
}

// ignoredParameters returns the warnings member's value for c's answer, a
// JSON array holding one ignored_parameters warning, or nil when the answer
// gets none: only a 200 to a GET (or HEAD) of a declared route whose query
// string names a parameter the route does not take. The names are sorted,
// each at most errs.MaxEcho bytes, the first errs.MaxListedFields of them;
// a parameter with an empty name (?&a=1) names nothing and is left out.
func ignoredParameters(c *fiber.Ctx, status int) []byte {
	if status != fiber.StatusOK {
		return nil
	}
	table, _ := c.Locals(localQueryParameters).(func() QueryParameters)
	if table == nil {
		return nil
	}
	if m := c.Method(); m != fiber.MethodGet && m != fiber.MethodHead {
		return nil
	}
	taken, declared := table()[c.Route().Path]
	if !declared {
		return nil
	}
	var names []string
	c.Request().URI().QueryArgs().VisitAll(func(k, _ []byte) {
		if len(k) == 0 {
			return
		}
		if _, ok := taken[string(k)]; !ok {
			names = append(names, errs.Echo(string(k)))
		}
	})
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	names = slices.Compact(names)
	names = names[:min(len(names), errs.MaxListedFields)]
	b, err := json.Marshal([]Warning{{Code: WarningIgnoredParameters, Details: IgnoredParametersDetails{Parameters: names}}})
	if err != nil {
		return nil // strings and a slice of them always encode
	}
	return b
}

// withWarnings returns body, a JSON object, with a last member
// "warnings": warnings; body itself when warnings is nil or body is not an
// object.
func withWarnings(body, warnings []byte) []byte {
	n := len(body)
	if warnings == nil || n < 2 || body[0] != '{' || body[n-1] != '}' {
		return body
	}
	body = body[:n-1]
	if n > 2 {
		body = append(body, ',')
	}
	body = append(body, `"warnings":`...)
	body = append(body, warnings...)
	return append(body, '}')
}
