// Package requestlogs serves an organization's request log:
// GET /api/v2/request_logs (newest first, cursor pages, filters) and
// GET /api/v2/request_logs/{id}, both with the request_logs:read scope. The
// records come from platform/requestlog; an organization sees only its own.
package requestlogs

import (
	"strings"
	"time"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy/auth"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	read := auth.Require(tenancy.RequestLogsRead)
	r.Get("/request_logs", read, rest.NoExpansions, list(env))
	r.Get("/request_logs/:id", read, rest.NoExpansions, get(env))
}

func list(env *rest.Env) fiber.Handler {
	return func(c *fiber.Ctx) error {
		org := tenancy.OrgID(c.UserContext())
		f, err := parseFilter(c)
		if err != nil {
			return err
		}
		p, err := rest.ParsePage(c, env.Cursors, storage.ListScope("request_logs", org, f.Key()))
		if err != nil {
			return err
		}
		var after *requestlog.Position
		if p.After != nil {
			after = &requestlog.Position{CreatedAt: p.After.CreatedAt, ID: p.After.ID}
		}
		items, more, err := requestlog.List(c.UserContext(), env.Conn(c.UserContext()), org.UUID, f, after, p.Limit)
		if err != nil {
			return err
		}
		var next *string
		if more && len(items) > 0 {
			last := items[len(items)-1]
			next = p.NextCursor(env.Cursors, true, storage.Cursor{CreatedAt: last.CreatedAt, ID: last.ID})
		}
		return rest.Page(c, items, next)
	}
}

func get(env *rest.Env) fiber.Handler {
	return func(c *fiber.Ctx) error {
		org := tenancy.OrgID(c.UserContext())
		id, err := rest.PathID(c, "request log")
		if err != nil {
			return err
		}
		rec, err := requestlog.Get(c.UserContext(), env.Conn(c.UserContext()), org.UUID, id)
		if err != nil {
			return err
		}
		if rec == nil {
			return errs.NotFoundf("request log")
		}
		return rest.OK(c, rec)
	}
}

// parseFilter reads the filters, naming every bad one in one 422.
func parseFilter(c *fiber.Ctx) (requestlog.Filter, error) {
	var f requestlog.Filter
	var issues []errs.FieldIssue
	bad := func(field, issue string) { issues = append(issues, errs.FieldIssue{Field: field, Issue: issue}) }
	if s := c.Query("status"); rest.QueryGiven(c, "status") {
		if sf, ok := requestlog.ParseStatus(s); ok {
			f.Status, f.StatusClass = sf.Status, sf.StatusClass
		} else {
			bad("status", "must be a status code (100 to 599) or a class such as 4xx")
		}
	}
	if rest.QueryGiven(c, "method") {
		if m, ok := requestlog.ParseMethod(c.Query("method")); ok {
			f.Method = m
		} else {
			bad("method", "must be one of: "+strings.Join(requestlog.Methods, ", "))
		}
	}
	if r, err := rest.QueryString(c, "route", 255); err != nil {
		issues = append(issues, errs.Issues(err)...) // too long, or not UTF-8 text
	} else {
		f.Route = r
	}
	if rest.QueryGiven(c, "request_id") {
		if rid, ok := requestlog.ParseRequestID(c.Query("request_id")); ok {
			f.RequestID = rid
		} else {
			bad("request_id", "must be a request id: the uuid of a response's X-Request-Id")
		}
	}
	if k, err := rest.QueryUUID(c, "key_id"); err != nil {
		bad("key_id", "must be a uuid")
	} else {
		f.KeyID = k
	}
	// since and until are read as every date-time of the API is
	// (rest.ParseDateTime); given empty, they are a bad value like every
	// structured filter (docs/decisions.md).
	for _, q := range []struct {
		name string
		dst  **time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if s := c.Query(q.name); rest.QueryGiven(c, q.name) {
			t, issue := rest.DateTimeIssue(s, "2026-11-23T00:00:00Z")
			if issue != "" {
				bad(q.name, issue)
				continue
			}
			*q.dst = &t
		}
	}
	if f.EmptyWindow() {
		bad("until", "must be after since")
	}
	if len(issues) > 0 {
		return f, errs.Invalid(issues...)
	}
	return f, nil
}
