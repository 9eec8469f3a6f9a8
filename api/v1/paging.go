package v1

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// v1 page limits: the default and maximum of ?limit= and the maximum of
// ?page= in v1.yaml's Limit and Page parameters (a test compares them).
const (
	DefaultLimit = 50
	MaxLimit     = 100
	// MaxPage keeps (page-1)*limit far inside int64.
	MaxPage = 1<<31 - 1
)

// pageRequest is a 1-indexed page of limit records.
type pageRequest struct {
	Page, Limit int
}

func (p pageRequest) offset() int { return (p.Page - 1) * p.Limit }

// parsePage reads page (default 1) and limit (DefaultLimit, at most MaxLimit). A
// value that is present but not a positive integer in range is 400.
func parsePage(c *fiber.Ctx) (pageRequest, error) {
	p := pageRequest{Page: 1, Limit: DefaultLimit}
	var issues []errs.FieldIssue
	if raw, ok := queryParam(c, "page"); ok {
		if n, ok := rest.PositiveInt(raw, MaxPage); ok {
			p.Page = n
		} else {
			issues = append(issues, errs.FieldIssue{Field: "page", Issue: "must be an integer from 1 to " + strconv.Itoa(MaxPage)})
		}
	}
	if raw, ok := queryParam(c, "limit"); ok {
		if n, ok := rest.PositiveInt(raw, MaxLimit); ok {
			p.Limit = n
		} else {
			issues = append(issues, errs.FieldIssue{Field: "limit", Issue: "must be an integer from 1 to " + strconv.Itoa(MaxLimit)})
		}
	}
	if len(issues) > 0 {
		return p, errs.Invalid(issues...)
	}
	return p, nil
}

// queryParam returns a query parameter and whether it is present (even empty).
func queryParam(c *fiber.Ctx, name string) (string, bool) {
	if !c.Context().QueryArgs().Has(name) {
		return "", false
	}
	return c.Query(name), true
}
