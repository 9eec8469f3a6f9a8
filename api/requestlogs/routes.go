// Package requestlogs serves an organization's request log:
// GET /api/v2/request_logs (newest first, cursor pages, filters) and
// GET /api/v2/request_logs/{id}, both with the request_logs:read scope. The
// records come from api/storage/requestlogs, which reads what
// platform/requestlog writes; an organization sees only its own.
package requestlogs

import (
	"strings"
	"time"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/tenancy/auth"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// Routes registers the endpoints on r (the authenticated /api/v2 group).
func Routes(r fiber.Router, env *rest.Env) {
	read := auth.Require(tenancy.RequestLogsRead)
	// The list refuses ?expand itself, so that one 422 names it beside
	// the other bad parameters (rest.Query).
	r.Get("/request_logs", read, list(env))
	r.Get("/request_logs/:id", read, rest.NoExpansions, get(env))
}

func list(env *rest.Env) fiber.Handler {
	return func(c *fiber.Ctx) error {
		org := tenancy.OrgID(c.UserContext())
		q := rest.NewQuery(c)
		f := parseFilter(q)
		q.Expansions()
		p := q.Page(env.Cursors, storage.ListScope("request_logs", org, f.Key()))
		if err := q.Err(); err != nil {
			return err
		}
		// A page reads at most requestlogs.MaxScan of the log: a filter that
		// matches little answers a short page, perhaps an empty one, with
		// has_more and a cursor from where the read stopped
		// (docs/observability.md, "Reading").
		page, err := requestlogs.ListPage(c.UserContext(), env.Conn(c.UserContext()), org, f, p.After, p.Limit)
		if err != nil {
			return err
		}
		var next *string
		if page.More {
			next = p.NextCursor(env.Cursors, true, *page.Next)
		}
		return rest.Page(c, page.Records, next)
	}
}

func get(env *rest.Env) fiber.Handler {
	return func(c *fiber.Ctx) error {
		org := tenancy.OrgID(c.UserContext())
		id, err := rest.PathID(c, "request log")
		if err != nil {
			return err
		}
		rec, err := requestlogs.Get(c.UserContext(), env.Conn(c.UserContext()), org, id)
		if err != nil {
			return err
		}
		if rec == nil {
			return errs.NotFoundOf("request log")
		}
		return rest.OK(c, rec)
	}
}

// MaxRouteLength is the longest ?route= of GET /request_logs, in characters
// of UTF-8 text (the parameter's maxLength in the OpenAPI document; a test
// compares them). The CLI's --route takes as much.
const MaxRouteLength = 255

// parseFilter reads the filters into q, each bad one an issue of q.
func parseFilter(q *rest.Query) requestlogs.Filter {
	var f requestlogs.Filter
	if s, given := q.Raw("status"); given {
		if sf, ok := requestlogs.ParseStatus(s); ok {
			f.Status, f.StatusClass = sf.Status, sf.StatusClass
		} else {
			q.Issue("status", "must be a status code (100 to 599) or a class such as 4xx")
		}
	}
	if s, given := q.Raw("method"); given {
		if m, ok := requestlogs.ParseMethod(s); ok {
			f.Method = m
		} else {
			q.Issue("method", "must be one of: "+strings.Join(requestlogs.Methods, ", "))
		}
	}
	f.Route = q.String("route", MaxRouteLength)
	if s, given := q.Raw("request_id"); given {
		if rid, ok := requestlogs.ParseRequestID(s); ok {
			f.RequestID = rid
		} else {
			q.Issue("request_id", "must be a request id: the uuid of a response's X-Request-Id")
		}
	}
	f.KeyID = q.UUID("key_id")
	// since and until are read as every date-time of the API is
	// (rest.ParseDateTime), rounded up to the microsecond, the precision of
	// created_at, so that "at or after since" and "before until" hold for
	// the instants sent (rest.DateTimeUpIssue); given empty, they are a bad
	// value like every structured filter (docs/decisions.md).
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if s, given := q.Raw(p.name); given {
			t, issue := rest.DateTimeUpIssue(s, "2026-11-23T00:00:00Z")
			if issue != "" {
				q.Issue(p.name, rest.QueryDateTimeIssue(s, issue))
				continue
			}
			*p.dst = &t
		}
	}
	if f.EmptyWindow() {
		q.Issue("until", requestlogs.EmptyWindowIssue)
	}
	return f
}
