package rest

import (
	"bytes"
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
)

// RepeatedParamIssue is the issue of a query parameter given more than once.
const RepeatedParamIssue = "is given more than once; give it once"

// RepeatedListParamIssue is that issue for a parameter that takes a list
// (listParams), which says how to send one.
const RepeatedListParamIssue = RepeatedParamIssue + " (a list is one comma-separated value)"

// listParams are the query parameters that take a comma-separated list on
// some route: expand, the change feed's type, /availability's
// equipment_id.
var listParams = []string{"expand", "type", "equipment_id"}

// repeatedIssue is the issue of the parameter name given more than once.
func repeatedIssue(name string) string {
	if slices.Contains(listParams, name) {
		return RepeatedListParamIssue
	}
	return RepeatedParamIssue
}

// SingleQueryValues refuses a request that repeats a query parameter
// (?equipment_id=A&equipment_id=B, ?page=1&page=2) with a validation error
// naming each repeated parameter, instead of reading the first value and
// silently dropping the others (docs/decisions.md, "Query parameters").
// It runs as group middleware, before the router has matched a route, so a
// request that serves asks whether a route of its method matches its path:
// an unknown path or method keeps its 404 or 405.
func SingleQueryValues(serves func(method, path string) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		args := c.Request().URI().QueryArgs()
		if args.Len() < 2 {
			return c.Next()
		}
		var keys [][]byte
		var reported []bool
		var issues []errs.FieldIssue
		args.VisitAll(func(k, _ []byte) {
			if len(k) == 0 {
				return
			}
			for i, seen := range keys {
				if bytes.Equal(seen, k) {
					if !reported[i] { // each name once
						issues = append(issues, errs.FieldIssue{Field: errs.Echo(string(k)), Issue: repeatedIssue(string(k))})
						reported[i] = true
					}
					return
				}
			}
			keys, reported = append(keys, k), append(reported, false)
		})
		if len(issues) > 0 && serves(c.Method(), c.Path()) {
			return errs.Invalid(issues...)
		}
		return c.Next()
	}
}
