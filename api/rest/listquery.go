package rest

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/errs"
)

// Query reads the query parameters of a v2 GET and collects what is wrong
// with them, as Input does a body's fields, so that one 422 names every bad
// parameter (docs/decisions.md, "Validation reports every bad field at
// once"):
//
//	q := rest.NewQuery(c)
//	f.Status = q.Enum("status", statuses...)
//	want := q.Expansions(Expansions...)
//	p := q.Page(env.Cursors, storage.ListScope("quotes", org, f.Status))
//	if err := q.Err(); err != nil {
//		return err
//	}
//
// Each reader applies the rule of its single-parameter function (QueryUUID,
// ParseExpansions, ...) and returns the value it read, or the zero value
// (the default) when the parameter is bad. The issues are listed in the
// order the handler reads the parameters. An error that is not a
// validation_error, such as the 403 of an expansion the key may not read,
// is no issue of the query: Err answers it only when the query has no
// issue.
type Query struct {
	c      *fiber.Ctx
	issues []errs.FieldIssue
	// err is the first error that is not a validation_error.
	err error
	// filterBad tells that a parameter other than expand, limit and cursor
	// is bad: the cursor's scope may be built from it (Page).
	filterBad bool
}

// NewQuery returns a reader of c's query parameters.
func NewQuery(c *fiber.Ctx) *Query { return &Query{c: c} }

// Raw returns the parameter name as sent and whether it is given at all
// (empty or not, QueryGiven).
func (q *Query) Raw(name string) (string, bool) {
	return QueryValue(q.c, name), QueryGiven(q.c, name)
}

// Issue records a problem with a filter that the handler found itself.
func (q *Query) Issue(field, issue string) {
	q.issues = append(q.issues, errs.FieldIssue{Field: field, Issue: issue})
	q.filterBad = true
}

// Check records the answer of the handler's own check of some filters: the
// issues of a validation_error are collected; any other error is kept for
// Err, the first one only.
func (q *Query) Check(err error) { q.take(err, true) }

// take records err, of a filter when filter is set (see filterBad).
func (q *Query) take(err error, filter bool) {
	if err == nil {
		return
	}
	if issues := errs.Issues(err); len(issues) > 0 {
		q.issues = append(q.issues, issues...)
		q.filterBad = q.filterBad || filter
		return
	}
	if q.err == nil {
		q.err = err
	}
}

// Err returns one validation_error naming every bad parameter when there is
// one; else the first other error recorded (a 403 of Expansions, of a
// Check); else nil.
func (q *Query) Err() error {
	if len(q.issues) > 0 {
		return errs.Invalid(q.issues...)
	}
	return q.err
}

// UUID reads an optional uuid filter (QueryUUID): nil when absent or bad.
func (q *Query) UUID(name string) *uuid.UUID {
	v, err := QueryUUID(q.c, name)
	q.Check(err)
	return v
}

// Enum reads an optional filter that must be one of values (QueryEnum): ""
// when absent or bad.
func (q *Query) Enum(name string, values ...string) string {
	v, err := QueryEnum(q.c, name, values...)
	q.Check(err)
	return v
}

// Bool reads an optional boolean filter (QueryBool): def when absent or bad.
func (q *Query) Bool(name string, def bool) bool {
	v, err := QueryBool(q.c, name, def)
	q.Check(err)
	return v
}

// String reads an optional free-text filter (QueryString): "" when absent
// or bad.
func (q *Query) String(name string, maxLen int) string {
	v, err := QueryString(q.c, name, maxLen)
	q.Check(err)
	return v
}

// Expansions reads expand against allowed (ParseExpansions; none allowed
// refuses every value): an unknown name is an issue, and an expansion the
// key may not read is the 403 that Err answers when the query has no issue.
// Every name is still validated before any scope is checked. expand is no
// filter: a bad one leaves the cursor judged.
func (q *Query) Expansions(allowed ...Expansion) map[string]bool {
	want, err := ParseExpansions(q.c, allowed...)
	q.take(err, false)
	return want
}

// Page reads limit (pageLimit) and cursor (pageCursor), the cursor bound to
// scope, which should name the organization and the list and the value of
// every filter that changes what it lists or its order.
//
// limit is always checked. The cursor is judged only when every filter read
// before Page is good: scope is built from the filters' values, so against
// the scope of a bad filter a good cursor would be reported bad. A query
// with a bad filter and a bad cursor names the filter only; a bad expand
// does not keep the cursor from being judged.
func (q *Query) Page(cs *storage.Cursors, scope string) storage.PageRequest {
	return q.page(cs, scope)
}

// PageFormerly is Page for a list whose cursors are bound to a filter's
// value in another form than a build before bound them (the canonical value
// rather than its spelling): a cursor bound to former, the scope that build
// gave the same request, is accepted too, and the page answers cursors
// bound to scope, so that a walk begun on an older pod goes on
// (docs/decisions.md, "Requests and responses").
func (q *Query) PageFormerly(cs *storage.Cursors, scope, former string) storage.PageRequest {
	return q.page(cs, scope, former)
}

// page reads limit, and the cursor bound to any of scopes when no filter is
// bad; the page's scope is the first.
func (q *Query) page(cs *storage.Cursors, scopes ...string) storage.PageRequest {
	p := storage.PageRequest{Scope: scopes[0]}
	var err error
	p.Limit, err = pageLimit(q.c)
	q.take(err, false)
	if !q.filterBad {
		p.After, err = pageCursor(q.c, cs, scopes...)
		q.take(err, false)
	}
	return p
}
