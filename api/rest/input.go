package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/money"
)

// DefaultMaxLen bounds a string field unless its rule says otherwise (the
// document states a maxLength for every request string; see
// api/openapi.Rules).
const DefaultMaxLen = 255

// Field is one decoded input value: Set when the key was present, Null when
// it was JSON null.
type Field[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Ptr returns nil when the field is absent or null, else a pointer to the value.
func (f Field[T]) Ptr() *T {
	if !f.Set || f.Null {
		return nil
	}
	v := f.Value
	return &v
}

// Rule constrains one field.
type Rule struct {
	Required bool
	Nullable bool
	// MaxLen bounds strings (runes); 0 means DefaultMaxLen.
	MaxLen int
	// MinLen is the minimum length of a string after trimming (default 1
	// for required strings and 0 otherwise).
	MinLen int
	Email  bool
	OneOf  []string
	Match  *regexp.Regexp
	// Min and Max bound integers and numbers when set.
	Min, Max *float64
	// Positive requires a number > 0.
	Positive bool
	// MaxItems bounds arrays (StringList).
	MaxItems int
	// UniqueItems refuses an array (StringList) that holds a value twice.
	UniqueItems bool
	// MultiLine lets a string hold tabs and line breaks: free text such as
	// notes (Rules.MultiLine). Any other string is one line, without
	// control characters (controlIssue).
	MultiLine bool
}

// Bound returns a pointer for Rule.Min / Rule.Max.
func Bound(v float64) *float64 { return &v }

// Input is a JSON object body being decoded field by field. Every getter
// records problems instead of stopping, so Err reports every bad field.
type Input struct {
	// text is the object, one copy of it: the members' values are parts
	// of it.
	text    []byte
	members []member // sorted by name
	issues  []errs.FieldIssue
	// unlisted counts the unknown fields Err found beyond those it made
	// issues of: an answer lists errs.MaxListedFields fields at most, so
	// only the first of them are made, the rest counted.
	unlisted int
	// lenient is set for PATCH bodies: read-only and unknown fields are
	// ignored (and listed by Ignored) instead of refused (docs/decisions.md).
	lenient bool
	ignored firstNames
}

// member is one member of the object: its name (decoded), where its value
// lies in Input.text, and whether a getter read it.
type member struct {
	name       string
	start, end int
	used       bool
}

// listedNames is how many names of a body Input keeps for an answer that
// lists errs.MaxListedFields of them: one more, so that it is known when
// there are more.
const listedNames = errs.MaxListedFields + 1

// firstNames keeps, of the names added to it, the listedNames smallest
// distinct ones, which is all that an answer listing the first
// errs.MaxListedFields sorted names needs: a body of a thousand unknown
// fields costs a few hundred names, not a thousand issues.
type firstNames struct{ names []string }

// add adds a name; the names kept are trimmed each time they double.
func (f *firstNames) add(name string) {
	f.names = append(f.names, name)
	if len(f.names) >= 2*listedNames {
		f.trim()
	}
}

// trim sorts the names kept and keeps the listedNames smallest distinct
// ones: a name dropped has that many smaller ones before it, for good.
func (f *firstNames) trim() {
	sort.Strings(f.names)
	f.names = slices.Compact(f.names)
	f.names = f.names[:min(len(f.names), listedNames)]
}

// sorted returns the names kept, sorted, without repeats.
func (f *firstNames) sorted() []string {
	f.trim()
	return slices.Clone(f.names)
}

// MaxMembers bounds the members of each object of a request body, at any
// depth: more than any resource has (a few dozen fields), and few enough
// that the names of a body cost a bounded amount to read (docs/decisions.md).
const MaxMembers = 1000

// ParseObject reads a JSON object: invalid JSON is 400 malformed_json and
// any other top-level value is 422.
func ParseObject(body []byte) (*Input, error) {
	// encoding/json accepts invalid UTF-8 inside strings and replaces it with
	// U+FFFD, which would store a mangled value: refuse it instead.
	if !json.Valid(body) || !utf8.Valid(body) {
		return nil, malformed(body)
	}
	// Nor a lone surrogate escape (\ud800), which it turns into U+FFFD too.
	if loneSurrogate(body) {
		return nil, errs.New(errs.MalformedJSON, `the request body holds a lone UTF-16 surrogate escape (such as \ud800); send valid Unicode`)
	}
	// Before any name is read (repeatedName keeps the names of each
	// object, readMembers each name of the body's object): a 1 MiB body
	// holds 110,000 short names.
	members, objects, over := countMembers(body, MaxMembers)
	if over {
		return nil, tooManyMembers(body, MaxMembers)
	}
	trimmed := bytes.TrimSpace(body)
	// An object holding no other (a line item's) has its names compared
	// once read and sorted, below; any other body is read for a repeated
	// name at every depth.
	flat := objects == 1 && len(trimmed) > 0 && trimmed[0] == '{'
	if !flat {
		if at, ok := repeatedName(body); ok {
			return nil, repeatedNameError(at)
		}
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errs.InvalidField("body", "must be a JSON object")
	}
	in, err := readMembers(trimmed, members)
	if err != nil {
		return nil, errs.New(errs.MalformedJSON, "the request body is not valid JSON")
	}
	if flat && in.repeats() {
		// repeatedName names the first name repeated, in the body's order.
		if at, ok := repeatedName(body); ok {
			return nil, repeatedNameError(at)
		}
	}
	return in, nil
}

// repeats reports whether two members have the same name (they are sorted).
func (in *Input) repeats() bool {
	for i := 1; i < len(in.members); i++ {
		if in.members[i].name == in.members[i-1].name {
			return true
		}
	}
	return false
}

// readMembers reads the members of a JSON object that ParseObject has
// judged: valid, in UTF-8, each name once, none too many, n members. The
// values are parts of one copy of the text (encoding/json copied each into
// a map): a body costs that copy and its names, at most MaxMembers.
func readMembers(obj []byte, n int) (*Input, error) {
	in := &Input{text: bytes.Clone(obj), members: make([]member, 0, n)}
	dec := jsontext.NewDecoder(bytes.NewBuffer(obj), allowInvalidUTF8, jsontext.AllowDuplicateNames(true))
	if _, err := dec.ReadToken(); err != nil { // {
		return nil, err
	}
	var name []byte
	for dec.PeekKind() == '"' {
		quoted, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if name, err = jsontext.AppendUnquote(name[:0], quoted); err != nil {
			return nil, err
		}
		m := member{name: string(name)}
		value, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		m.end = int(dec.InputOffset())
		m.start = m.end - len(value)
		in.members = append(in.members, m)
	}
	if _, err := dec.ReadToken(); err != nil { // }
		return nil, err
	}
	slices.SortFunc(in.members, func(a, b member) int { return strings.Compare(a.name, b.name) })
	return in, nil
}

// member returns the member named name, or nil.
func (in *Input) member(name string) *member {
	i, ok := slices.BinarySearchFunc(in.members, name, func(m member, name string) int { return strings.Compare(m.name, name) })
	if !ok {
		return nil
	}
	return &in.members[i]
}

// value returns the JSON text of m's value: a part of in.text, which
// appending to cannot overwrite.
func (in *Input) value(m *member) json.RawMessage {
	return json.RawMessage(in.text[m.start:m.end:m.end])
}

// maxNesting is how deeply encoding/json lets arrays and objects nest: it
// refuses a deeper text, valid JSON or not.
const maxNesting = 10000

// malformed is the 400 for a body encoding/json does not read, saying so
// when the body is refused for its depth alone.
func malformed(body []byte) error {
	if nestsDeeperThan(body, maxNesting) {
		return errs.New(errs.MalformedJSON, "the request body nests arrays and objects deeper than 10,000 levels")
	}
	if json.Valid(body) && !utf8.Valid(body) {
		// Often a body in another charset (ISO-8859-1, UTF-16), whatever
		// its Content-Type declares: JSON is read as UTF-8 (RFC 8259).
		return errs.New(errs.MalformedJSON, "the request body is not valid UTF-8: send JSON in UTF-8, whatever charset the Content-Type names")
	}
	return errs.New(errs.MalformedJSON, "the request body is not valid JSON")
}

// nestsDeeperThan reports whether the arrays and objects of a JSON text
// (brackets outside its strings) open more than limit levels deep.
func nestsDeeperThan(body []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range body {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > limit {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// objectOver reports whether an object of a JSON text, at any depth, has
// more than limit members. body must be valid JSON (json.Valid).
func objectOver(body []byte, limit int) bool {
	_, _, over := countMembers(body, limit)
	return over
}

// countMembers returns the members of the JSON text's outermost object,
// how many objects it holds in all, and whether one of them, at any depth,
// has more than limit members (then it stops there). body must be valid
// JSON (json.Valid): a member is then a string that opens an object or
// follows a comma in one. It counts without allocating, for bodies that
// are not too deep.
func countMembers(body []byte, limit int) (outer, objects int, over bool) {
	var stack [32]int
	// The members of each open object so far; -1 for an open array.
	open := stack[:0]
	inString, escaped, name := false, false, false
	for _, c := range body {
		switch {
		case escaped:
			escaped = false
		case inString:
			if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			if name {
				name = false
				top := len(open) - 1
				if open[top]++; open[top] > limit {
					return 0, 0, true
				}
				if top == 0 {
					outer++
				}
			}
		case c == '{':
			open = append(open, 0)
			name = true
			objects++
		case c == '[':
			open = append(open, -1)
		case c == '}' || c == ']':
			open = open[:len(open)-1]
			name = false
		case c == ',':
			name = open[len(open)-1] >= 0
		}
	}
	return outer, objects, false
}

// tooManyMembers is the 400 for a body with an object of more than limit
// members (objectOver), saying which object: the body is read again, to
// that object only, without keeping names.
func tooManyMembers(body []byte, limit int) error {
	where := "an object"
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), allowInvalidUTF8, jsontext.AllowDuplicateNames(true))
	for {
		if _, err := dec.ReadToken(); err != nil {
			break
		}
		// An object's index counts its names and values: past 2×limit,
		// its name number limit+1 was just read.
		if kind, n := dec.StackIndex(dec.StackDepth()); kind == '{' && n > 2*int64(limit) {
			where = "the top-level object"
			if parent := dec.StackPointer().Parent(); parent != "" {
				where = fmt.Sprintf("the object at %s", errs.Echo(string(parent)))
			}
			break
		}
	}
	return errs.Newf(errs.MalformedJSON, "the request body has more than %s members in %s; an object may have at most %s members",
		thousands(limit), where, thousands(limit))
}

// thousands writes a positive n with comma separators (1,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Body parses the request body of c as a JSON object.
func Body(c *fiber.Ctx) (*Input, error) { return ParseObject(c.Body()) }

// NoFields checks the body of a POST that takes no fields (a redelivery):
// none, or an empty JSON object. A body that is not a JSON object is 400,
// and a field is 422 "is not a known field", as on a create: a request
// whose body the action would ignore is refused, not acted on.
func NoFields(c *fiber.Ctx) error { return noFields(c.Body()) }

func noFields(body []byte) error {
	if len(body) == 0 {
		return nil
	}
	in, err := ParseObject(body)
	if err != nil {
		return err
	}
	return in.Err()
}

// PatchBody parses the body of a v2 PATCH: like Body, but lenient, so a
// client may send back a whole record it read (docs/decisions.md, "PATCH
// accepts arbitrary properties").
func PatchBody(c *fiber.Ctx) (*Input, error) {
	in, err := Body(c)
	if err != nil {
		return nil, err
	}
	return in.Lenient(true), nil
}

// Lenient sets whether read-only and unknown fields are ignored (PATCH)
// rather than refused (POST), and returns in.
func (in *Input) Lenient(on bool) *Input { in.lenient = on; return in }

// IsLenient reports whether in ignores read-only and unknown fields.
func (in *Input) IsLenient() bool { return in.lenient }

// NoteIgnored adds fields to those a write reports in its ignored_fields
// warning (Ignored), named as the client sees them: fields a nested decoder
// ignored (line_items[0].id), and fields that were read and valid but that
// the write did not store (a reservation PATCH's).
func (in *Input) NoteIgnored(names ...string) {
	for _, n := range names {
		in.ignored.add(n)
	}
}

// Ignored returns the fields a lenient body carried but that were not
// written, sorted: the first errs.MaxListedFields+1 of them, which is
// more than a warning lists (IgnoredWarnings). Call it after Err.
func (in *Input) Ignored() []string { return in.ignored.sorted() }

// Has reports whether the key is present.
func (in *Input) Has(name string) bool { return in.member(name) != nil }

// Keys returns the keys present, sorted.
func (in *Input) Keys() []string {
	keys := make([]string, len(in.members))
	for i, m := range in.members {
		keys[i] = m.name
	}
	return keys
}

// Issue records a problem with a field.
func (in *Input) Issue(field, issue string) {
	in.issues = append(in.issues, errs.FieldIssue{Field: field, Issue: issue})
}

// ReadOnly marks fields that may never be written: present ones become
// issues, or ignored fields when in is lenient.
func (in *Input) ReadOnly(names ...string) {
	for _, n := range names {
		if m := in.member(n); m != nil && !m.used {
			m.used = true
			if in.lenient {
				in.ignored.add(n)
			} else {
				in.Issue(n, "is read-only")
			}
		}
	}
}

// Ignore marks fields as accepted without reading them.
func (in *Input) Ignore(names ...string) {
	for _, n := range names {
		if m := in.member(n); m != nil {
			m.used = true
		}
	}
}

// Raw returns the raw JSON of a field and marks it used.
func (in *Input) Raw(name string) (json.RawMessage, bool) {
	m := in.member(name)
	if m == nil {
		return nil, false
	}
	m.used = true
	return in.value(m), true
}

// Err returns a validation_error naming every bad field, and every unknown
// field unless in is lenient (then they are Ignored), or nil. Unknown
// fields come after the others, sorted by name; as the answer lists
// errs.MaxListedFields fields at most, only the first listedNames of them
// are made issues and the others counted in the message.
func (in *Input) Err() error {
	listed := 0
	for i := range in.members {
		m := &in.members[i]
		if m.used {
			continue
		}
		m.used = true
		// The name is the client's own text: repeated at most
		// errs.MaxEcho bytes of it.
		switch {
		case in.lenient:
			in.ignored.add(errs.Echo(m.name))
		case listed < listedNames:
			// The members are sorted: these are the first unknown names.
			in.Issue(errs.Echo(m.name), "is not a known field")
			listed++
		default:
			in.unlisted++
		}
	}
	if len(in.issues) == 0 {
		return nil
	}
	e := errs.Invalid(in.issues...)
	if in.unlisted > 0 {
		// errs.Invalid counted the issues it was given; there are more.
		e.Message = fmt.Sprintf("request validation failed: %d fields, the first %d listed",
			len(in.issues)+in.unlisted, errs.MaxListedFields)
	}
	return e
}

// HasIssues reports whether any problem was recorded so far.
func (in *Input) HasIssues() bool { return len(in.issues) > 0 }

// HasIssue reports whether a problem with field was recorded so far.
func (in *Input) HasIssue(field string) bool {
	return slices.ContainsFunc(in.issues, func(i errs.FieldIssue) bool { return i.Field == field })
}

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
			in.Issue(name, "must have at most 2 decimal places")
		} else {
			in.Issue(name, "must be a number from 0 to 9999999999.99")
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
	id, err := ParseUUID(s)
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

// ParseUUID parses a canonical uuid (36 characters with hyphens).
func ParseUUID(s string) (uuid.UUID, error) {
	if len(s) != 36 {
		return uuid.Nil, fmt.Errorf("not a uuid")
	}
	return uuid.Parse(s)
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
