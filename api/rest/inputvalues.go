package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/money"
)

// begin handles presence, null and required; ok=false means nothing to decode.
func begin[T any](in *Input, name string, r Rule) (Field[T], json.RawMessage, bool) {
	m := in.member(name)
	if m == nil {
		if r.Required {
			in.Issue(name, "is required")
		}
		return Field[T]{}, nil, false
	}
	m.used = true
	raw := in.value(m)
	if string(raw) == "null" {
		if !r.Nullable {
			if r.Required {
				in.Issue(name, "is required")
			} else {
				in.Issue(name, "must not be null")
			}
			return Field[T]{}, nil, false
		}
		return Field[T]{Set: true, Null: true}, nil, false
	}
	return Field[T]{Set: true}, raw, true
}

// String decodes a string (trimmed).
func (in *Input) String(name string, r Rule) Field[string] {
	f, raw, ok := begin[string](in, name, r)
	if !ok {
		return f
	}
	s, issue := stringValue(raw, r)
	if issue != "" {
		in.Issue(name, issue)
		return Field[string]{}
	}
	f.Value = s
	return f
}

// stringValue checks one JSON value against the string rules of r and
// returns it as canonicalText makes it, or the issue. String and each item of
// StringList use it, so a string is checked the same wherever it appears.
func stringValue(raw json.RawMessage, r Rule) (string, string) {
	// json.Unmarshal would turn null into "": refuse it here, where begin
	// has not already dealt with it (list items).
	if string(bytes.TrimSpace(raw)) == "null" {
		return "", "must not be null"
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", "must be a string"
	}
	return Text(s, r)
}

// Text checks a string against the string rules of r and returns it as
// canonicalText makes it, or the issue: the one rule of every text the API
// reads, a body's string or a free-text query parameter (QueryString). The
// length is counted after canonicalText, so it counts what is stored or
// matched. s must be valid UTF-8.
func Text(s string, r Rule) (string, string) {
	s = canonicalText(s)
	if blank(s) {
		// Only invisible format characters: empty to whoever reads it, so
		// empty to every rule (required, or required unless another field).
		s = ""
	}
	if strings.ContainsRune(s, 0) {
		return "", "must not contain NUL characters"
	}
	if issue := controlIssue(s, r.MultiLine); issue != "" {
		return "", issue
	}
	max := r.MaxLen
	if max == 0 {
		max = DefaultMaxLen
	}
	min := r.MinLen
	if min == 0 && r.Required {
		min = 1
	}
	switch n := utf8.RuneCountInString(s); {
	case n > max:
		return "", fmt.Sprintf("must be at most %d characters", max)
	case min == 1 && n == 0:
		return "", "must not be empty"
	case n < min:
		return "", fmt.Sprintf("must be at least %d characters", min)
	case r.Email && !validEmail(s):
		return "", "must be a valid email address"
	case len(r.OneOf) > 0 && !slices.Contains(r.OneOf, s):
		return "", "must be one of: " + strings.Join(r.OneOf, ", ")
	case r.Match != nil && !r.Match.MatchString(s):
		return "", "has an invalid format"
	}
	return s, ""
}

// validEmail reports whether s is an address as the document's format:
// email means (RFC 5321, ASCII): a local part of at most 64 characters that
// net/mail parses, and a domain of two or more labels of letters, digits
// and inner hyphens. Anything outside printable ASCII (a zero-width space,
// a bidi override, a non-breaking space, an emoji) is refused: it passed
// net/mail and could not be told from another address on screen.
func validEmail(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	at := strings.LastIndexByte(s, '@')
	if at < 1 || at > 64 || !validDomain(s[at+1:]) {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// validDomain reports whether d is a host name of two or more labels, each
// 1 to 63 letters, digits and hyphens, not starting or ending with one.
func validDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(d) > 253 || len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Int decodes an integer: a JSON number with no fractional part, in any
// form JSON Schema counts as an integer (5, 5.0, 5e0), read exactly
// (money.Integer); a quoted number is not one.
func (in *Input) Int(name string, r Rule) Field[int] {
	f, raw, ok := begin[int](in, name, r)
	if !ok {
		return f
	}
	v, err := money.Integer(bytes.TrimSpace(raw))
	if errors.Is(err, money.ErrNotInteger) {
		in.Issue(name, "must be an integer")
		return Field[int]{}
	}
	// A whole number past the 32-bit range (3e9, 1e18, 1e400) is out of
	// range, not "not an integer": the issue names the range.
	if err != nil || v > math.MaxInt32 || v < math.MinInt32 {
		in.Issue(name, boundsText(int32Bounds(r), "an integer"))
		return Field[int]{}
	}
	if !inBounds(float64(v), r) {
		in.Issue(name, boundsText(r, "an integer"))
		return Field[int]{}
	}
	f.Value = int(v)
	return f
}

// int32Bounds is r with the 32-bit range filling an unset bound, for the
// issue of an integer past it.
func int32Bounds(r Rule) Rule {
	if r.Min == nil {
		r.Min = Bound(math.MinInt32)
	}
	if r.Max == nil {
		r.Max = Bound(math.MaxInt32)
	}
	return r
}

// MaxNumber bounds every number field (weights and case sizes).
const MaxNumber = 1e9

// PositiveNumberIssue is the issue of a Positive number field out of range.
var PositiveNumberIssue = fmt.Sprintf("must be a positive number of at most %d", int64(MaxNumber))

// Number decodes a JSON number of at most MaxNumber.
func (in *Input) Number(name string, r Rule) Field[float64] {
	f, raw, ok := begin[float64](in, name, r)
	if !ok {
		return f
	}
	v, err := readNumber(raw)
	if err != nil || v != v {
		var overflow *json.UnmarshalTypeError
		if errors.As(err, &overflow) && strings.HasPrefix(overflow.Value, "number") {
			// A number past float64 (1e400, -1e400): out of range below.
			v = math.Inf(1)
			if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("-")) {
				v = math.Inf(-1)
			}
		} else {
			in.Issue(name, "must be a number")
			return Field[float64]{}
		}
	}
	if (r.Positive && v <= 0) || !inBounds(v, r) || v > MaxNumber || roundedIntoBounds(raw, v, r) {
		if r.Positive {
			in.Issue(name, PositiveNumberIssue)
		} else {
			in.Issue(name, boundsText(r, "a number"))
		}
		return Field[float64]{}
	}
	f.Value = v
	return f
}

func inBounds(v float64, r Rule) bool {
	return (r.Min == nil || v >= *r.Min) && (r.Max == nil || v <= *r.Max)
}

// roundedIntoBounds reports whether raw lies outside r's bounds although
// its float64 reading v sits on one of them: 1000000000.0000000001 reads
// as 1e9. Only a v equal to a bound needs the literal's exact digits.
func roundedIntoBounds(raw json.RawMessage, v float64, r Rule) bool {
	beyond := func(bound float64, side int) bool {
		if v != bound {
			return false
		}
		c, ok := exactCmp(string(raw), bound)
		return !ok || c == side
	}
	above := func(bound float64) bool { return beyond(bound, 1) }
	below := func(bound float64) bool { return beyond(bound, -1) }
	return above(MaxNumber) || r.Max != nil && above(*r.Max) || r.Min != nil && below(*r.Min)
}

// boundsText states a number's bounds as a client would write them
// (1000000, not 1e+06).
func boundsText(r Rule, what string) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	switch {
	case r.Min != nil && r.Max != nil:
		return fmt.Sprintf("must be %s from %s to %s", what, num(*r.Min), num(*r.Max))
	case r.Min != nil:
		return fmt.Sprintf("must be %s of at least %s", what, num(*r.Min))
	case r.Max != nil:
		return fmt.Sprintf("must be %s of at most %s", what, num(*r.Max))
	}
	return "must be " + what
}

// Money decodes an exact amount (JSON number, at most 2 decimals, ≥ 0).
func (in *Input) Money(name string, r Rule) Field[money.Amount] {
	f, raw, ok := begin[money.Amount](in, name, r)
	if !ok {
		return f
	}
	var a money.Amount
	if err := json.Unmarshal(raw, &a); err != nil {
		if err == money.ErrPrecision {
			in.Issue(name, money.ErrPrecision.Error())
		} else {
			in.Issue(name, money.ErrRange.Error())
		}
		return Field[money.Amount]{}
	}
	f.Value = a
	return f
}

// Bool decodes a boolean.
func (in *Input) Bool(name string, r Rule) Field[bool] {
	f, raw, ok := begin[bool](in, name, r)
	if !ok {
		return f
	}
	if err := json.Unmarshal(raw, &f.Value); err != nil {
		in.Issue(name, "must be a boolean")
		return Field[bool]{}
	}
	return f
}

// UUID decodes a uuid string.
func (in *Input) UUID(name string, r Rule) Field[uuid.UUID] {
	f, raw, ok := begin[uuid.UUID](in, name, r)
	if !ok {
		return f
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		in.Issue(name, "must be a uuid string")
		return Field[uuid.UUID]{}
	}
	id, err := storage.ParseUUID(s)
	if err != nil {
		in.Issue(name, "must be a uuid")
		return Field[uuid.UUID]{}
	}
	f.Value = id
	return f
}

// DateTime decodes an RFC 3339 timestamp of a year from storage.MinYear to
// storage.MaxYear, normalised to UTC and truncated to the microsecond (see
// ParseDateTime).
func (in *Input) DateTime(name string, r Rule) Field[time.Time] {
	f, raw, ok := begin[time.Time](in, name, r)
	if !ok {
		return f
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		in.Issue(name, "must be an RFC 3339 date-time string")
		return Field[time.Time]{}
	}
	t, issue := DateTimeIssue(s, "2026-05-01T18:00:00Z")
	if issue != "" {
		in.Issue(name, issue)
		return Field[time.Time]{}
	}
	f.Value = t
	return f
}

// Date decodes a YYYY-MM-DD date (of a year from storage.MinYear to
// storage.MaxYear, as DateTime).
func (in *Input) Date(name string, r Rule) Field[storage.Date] {
	f, raw, ok := begin[storage.Date](in, name, r)
	if !ok {
		return f
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		in.Issue(name, "must be a date string YYYY-MM-DD")
		return Field[storage.Date]{}
	}
	d, err := storage.ParseDate(s)
	if errors.Is(err, storage.ErrYearRange) {
		in.Issue(name, storage.YearRangeIssue)
		return Field[storage.Date]{}
	}
	if err != nil {
		in.Issue(name, "must be a date YYYY-MM-DD")
		return Field[storage.Date]{}
	}
	f.Value = d
	return f
}

// StringList decodes an array of strings. Each item is checked as String
// checks a field, with r's item limits (MaxLen, MinLen), and a bad item is
// named by its index: tags[2].
func (in *Input) StringList(name string, r Rule) Field[[]string] {
	maxItems := r.MaxItems
	f, raw, ok := begin[[]string](in, name, r)
	if !ok {
		return f
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		in.Issue(name, "must be an array of strings")
		return Field[[]string]{}
	}
	if len(items) > maxItems {
		in.Issue(name, fmt.Sprintf("must have at most %d items", maxItems))
		return Field[[]string]{}
	}
	// Required and Nullable are about the list itself, not its items.
	itemRule := Rule{MaxLen: r.MaxLen, MinLen: r.MinLen, MultiLine: r.MultiLine}
	v := make([]string, 0, len(items))
	first := map[string]int{} // UniqueItems: where each value came first
	bad := false
	for i, item := range items {
		s, issue := stringValue(item, itemRule)
		if j, seen := first[s]; issue == "" && r.UniqueItems && seen {
			issue = fmt.Sprintf("repeats %s[%d]", name, j)
		}
		if issue != "" {
			in.Issue(fmt.Sprintf("%s[%d]", name, i), issue)
			bad = true
			continue
		}
		first[s] = i
		v = append(v, s)
	}
	if bad {
		return Field[[]string]{}
	}
	f.Value = v
	return f
}

// Rules are the rules of the fields of one request body, keyed by field
// name. They are derived from the OpenAPI document (api/openapi.Rules), the
// one place request limits are stated.
type Rules map[string]Rule

// Get returns the rule of a field. A field the schema does not list panics:
// the decoder and the document disagree, a defect the package's tests (and
// start-up) catch at once.
func (rs Rules) Get(field string) Rule {
	r, ok := rs[field]
	if !ok {
		panic("request rules: the OpenAPI schema has no field " + field)
	}
	return r
}
