package requestlogs

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eventapi/eventapi/api/storage"
)

// ParseStatus reads a status filter: a code (100 to 599) or a class such
// as 4xx. ok is false for anything else.
func ParseStatus(s string) (f Filter, ok bool) {
	if len(s) == 3 && s[1:] == "xx" && s[0] >= '1' && s[0] <= '5' {
		return Filter{StatusClass: int(s[0] - '0')}, true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 100 && n <= 599 && len(s) == 3 {
		return Filter{Status: n}, true
	}
	return Filter{}, false
}

// Methods are those a request can reach authentication with, and so be
// recorded: the router answers any other before it (405).
var Methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"}

// ParseMethod reads a method filter in any case. ok is false for a method
// no record can have (Methods), so that a typo is refused rather than
// answered with an empty list.
func ParseMethod(s string) (method string, ok bool) {
	m := strings.ToUpper(s)
	return m, slices.Contains(Methods, m)
}

// ParseRequestID reads a request id filter. Every request id is its
// record's uuid (docs/decisions.md), read as every uuid of the API is and
// as GET /request_logs/{id} reads it (storage.ParseUUID: the 36 characters
// with hyphens, upper case too). Anything else (braces, a urn:uuid: prefix,
// no hyphens, white space, empty) is ok false: not a filter that matches
// nothing, and never the whole log.
func ParseRequestID(s string) (requestID string, ok bool) {
	id, err := storage.ParseUUID(s)
	if err != nil {
		return "", false
	}
	return id.String(), true
}

// stored is f with its instants rounded up to the microsecond records are
// stored in: PostgreSQL would truncate them, so since=…001 ns would include
// a record before it and until=…001 ns leave out one before it.
func (f Filter) stored() Filter {
	up := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		r := t.Truncate(time.Microsecond)
		if r.Before(*t) {
			r = r.Add(time.Microsecond)
		}
		return &r
	}
	f.Since, f.Until = up(f.Since), up(f.Until)
	return f
}
