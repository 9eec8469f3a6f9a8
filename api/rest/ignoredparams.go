package rest

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
)

// WarningIgnoredParameters is the code of the warning a v2 GET answer gets
// when its query string carried parameters the handler never read, which
// were therefore ignored (docs/decisions.md, "Query parameters"): a
// misspelt filter (?eventid=) lists everything, and the warning says why.
const WarningIgnoredParameters = "ignored_parameters"

// IgnoredParametersDetails is the details of an ignored_parameters warning.
type IgnoredParametersDetails struct {
	Parameters []string `json:"parameters"`
}

// queryReads is the names of the query parameters a request's handler read,
// each once; the first few in the record itself, which is pooled, so that a
// request reading no more than that allocates nothing.
type queryReads struct {
	names []string
	first [8]string
}

func (r *queryReads) has(name []byte) bool {
	for _, n := range r.names {
		if n == string(name) { // compared without a copy
			return true
		}
	}
	return false
}

const localQueryReads = "eventapi.query_reads"

// TrackQueryReads is group middleware that records which query parameters
// the handler reads (QueryValue, QueryGiven and the readers built on them),
// so that its GET answer can name those it ignored (respond). A request
// without a query string has nothing to ignore and skips it.
func TrackQueryReads(c *fiber.Ctx) error {
	if c.Request().URI().QueryArgs().Len() > 0 {
		r := readsPool.Get().(*queryReads)
		r.names = r.first[:0]
		c.Locals(localQueryReads, r)
		defer func() {
			// The answer is written (respond read the record) and nothing
			// reads it after the handler: the record goes back, cleared.
			c.Locals(localQueryReads, nil)
			clear(r.first[:])
			r.names = nil
			readsPool.Put(r)
		}()
	}
	return c.Next()
}

var readsPool = sync.Pool{New: func() any { return new(queryReads) }}

// QueryValue returns the value of the query parameter name ("" when absent)
// and records that the request read it: every reader of a v2 query
// parameter goes through it or QueryGiven, which is what tells a parameter
// used from one ignored.
func QueryValue(c *fiber.Ctx, name string) string {
	noteRead(c, name)
	return c.Query(name)
}

func noteRead(c *fiber.Ctx, name string) {
	r, ok := c.Locals(localQueryReads).(*queryReads)
	if ok && !slices.Contains(r.names, name) {
		r.names = append(r.names, name)
	}
}

// ignoredParameters returns the warnings member's value for c's answer, a
// JSON array holding one ignored_parameters warning, or nil when the answer
// gets none: only a 200 to a GET (or HEAD) whose query string names a
// parameter the handler did not read. The names are made valid UTF-8 and
// cut as every echoed name is (errs.Echo), then sorted and named once each,
// the first errs.MaxListedFields of them; a parameter with an empty name
// (?&a=1) names nothing and is left out.
func ignoredParameters(c *fiber.Ctx, status int) []byte {
	if status != fiber.StatusOK {
		return nil
	}
	reads, _ := c.Locals(localQueryReads).(*queryReads)
	if reads == nil {
		return nil
	}
	if m := c.Method(); m != fiber.MethodGet && m != fiber.MethodHead {
		return nil
	}
	var names []string
	c.Request().URI().QueryArgs().VisitAll(func(k, _ []byte) {
		if len(k) == 0 || reads.has(k) {
			return
		}
		names = append(names, errs.Echo(strings.ToValidUTF8(string(k), "\uFFFD")))
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
