package rest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/platform/errs"
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
		return nil, malformed(trimmed)
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
	return errs.InvalidOf(len(in.issues)+in.unlisted, in.issues...)
}

// HasIssues reports whether any problem was recorded so far.
func (in *Input) HasIssues() bool { return len(in.issues) > 0 }

// HasIssue reports whether a problem with field was recorded so far.
func (in *Input) HasIssue(field string) bool {
	return slices.ContainsFunc(in.issues, func(i errs.FieldIssue) bool { return i.Field == field })
}
