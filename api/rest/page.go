package rest

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// Page limits of ?limit= on v2 lists: its default and maximum in the
// OpenAPI document's Limit parameter (a test compares them).
const (
	DefaultLimit = 25
	MaxLimit     = 100
)

// pageLimit reads limit: DefaultLimit when absent, else an integer from 1
// to MaxLimit (PositiveInt); DefaultLimit and a 422 when bad.
func pageLimit(c *fiber.Ctx) (int, error) {
	if !QueryGiven(c, "limit") {
		return DefaultLimit, nil
	}
	n, ok := PositiveInt(QueryValue(c, "limit"), MaxLimit)
	if !ok {
		return DefaultLimit, errs.InvalidField("limit", "must be an integer from 1 to "+strconv.Itoa(MaxLimit))
	}
	return n, nil
}

// pageCursor reads cursor, which must be bound to one of scopes (the page's
// own, then a former one, Query.PageFormerly): nil when absent, a 422 when
// bound to none of them or not a cursor at all (an empty one too).
func pageCursor(c *fiber.Ctx, cs *storage.Cursors, scopes ...string) (*storage.Cursor, error) {
	if !QueryGiven(c, "cursor") {
		return nil, nil
	}
	raw := QueryValue(c, "cursor")
	for _, scope := range scopes {
		if cur, err := cs.Decode(scope, raw); err == nil {
			return &cur, nil
		}
	}
	return nil, storage.ErrBadCursor
}

// PositiveInt parses plain decimal digits into 1..max: the one reading of a
// page number or size, for v2 and v1 alike. A sign, a decimal point, an
// exponent, a hexadecimal prefix and a digit of another script are refused
// (strconv.Atoi would take "+5"); leading zeros are not.
func PositiveInt(s string, max int) (int, bool) {
	// Without leading zeros a value in range has at most 19 digits, so Atoi
	// cannot overflow.
	digits := strings.TrimLeft(s, "0")
	if s == "" || len(digits) > 19 {
		return 0, false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || n > max {
		return 0, false
	}
	return n, true
}

// Expansion is one value ?expand accepts on an endpoint, with the scopes
// that may read the records it inlines: the scopes the GET route of that
// object type requires (any one of them suffices). An expansion nested in
// another (Within: the equipment of a pick list's items) takes effect only
// with it.
type Expansion struct {
	Name   string
	Scopes []tenancy.Scope
	Within string
}

// Expand declares an expansion readable with any of scopes.
func Expand(name string, scopes ...tenancy.Scope) Expansion {
	return Expansion{Name: name, Scopes: scopes}
}

// In returns x nested in the expansion named parent, declared before it.
func (x Expansion) In(parent string) Expansion {
	x.Within = parent
	return x
}

// ExpansionNames returns the names of xs in order.
func ExpansionNames(xs []Expansion) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.Name
	}
	return out
}

// ParseExpansions reads the comma-separated expand parameter against allowed
// and returns the expansions that take effect: those asked for whose parent
// (Within) takes effect too. A value outside allowed is a 422 naming it; an
// expansion that takes effect and whose records the key may not read (it
// holds none of the expansion's scopes) is the 403 insufficient_scope of
// auth.Check, details.required listing those scopes. One that inlines
// nothing shows nothing, so it needs no scope. Every name is validated
// before any scope is checked.
func ParseExpansions(c *fiber.Ctx, allowed ...Expansion) (map[string]bool, error) {
	asked, err := parseExpand(c, ExpansionNames(allowed))
	if err != nil || len(asked) == 0 {
		return asked, err
	}
	out := map[string]bool{}
	for _, x := range allowed {
		if !asked[x.Name] || (x.Within != "" && !out[x.Within]) {
			continue
		}
		if err := auth.Check(c.UserContext(), x.Scopes...); err != nil {
			return nil, err
		}
		out[x.Name] = true
	}
	return out, nil
}

// NoExpansions is the middleware of a GET route whose records have no
// expansions: any expand value is the 422 ParseExpansions gives such a
// route (docs/decisions.md).
func NoExpansions(c *fiber.Ctx) error {
	if _, err := parseExpand(c, nil); err != nil {
		return err
	}
	return c.Next()
}

func parseExpand(c *fiber.Ctx, allowed []string) (map[string]bool, error) {
	out := map[string]bool{}
	raw := QueryValue(c, "expand")
	if raw == "" {
		return out, nil
	}
	for _, name := range ListElements(raw) {
		if !slices.Contains(allowed, name) {
			if len(allowed) == 0 {
				return nil, errs.InvalidField("expand", "this endpoint supports no expansions")
			}
			return nil, errs.InvalidField("expand", "unknown value "+strconv.Quote(errs.Echo(name))+"; allowed: "+strings.Join(allowed, ", "))
		}
		out[name] = true
	}
	return out, nil
}

// QueryGiven reports whether the query has the parameter name, empty or
// not. A filter given with an empty value (?vehicle_id=) is a bad value,
// not an absent filter: a client that built the query from a missing
// variable must not get the whole unfiltered list (docs/decisions.md).
func QueryGiven(c *fiber.Ctx, name string) bool {
	noteRead(c, name)
	return c.Context().QueryArgs().Has(name)
}

// QueryEnum reads an optional query parameter that must be one of values.
func QueryEnum(c *fiber.Ctx, name string, values ...string) (string, error) {
	if !QueryGiven(c, name) {
		return "", nil
	}
	v := QueryValue(c, name)
	for _, a := range values {
		if a == v {
			return v, nil
		}
	}
	return "", errs.InvalidField(name, "must be one of: "+strings.Join(values, ", "))
}

// QueryString reads an optional free-text query parameter: valid UTF-8,
// then checked and made as a body's one-line text is (Text: trimmed of
// white space and invisible characters at either end and in NFC, so a name
// copied with them, or composed otherwise, finds what it names; no NUL or
// control character, which no stored text holds; at most maxLen characters,
// the document's maxLength, counted as it matches).
func QueryString(c *fiber.Ctx, name string, maxLen int) (string, error) {
	return QueryText(name, QueryValue(c, name), maxLen)
}

// QueryText is QueryString of the value v of the parameter name: the CLI
// reads its filters with it, as the API reads them.
func QueryText(name, v string, maxLen int) (string, error) {
	if !utf8.ValidString(v) {
		return "", errs.InvalidField(name, "must be valid UTF-8 text")
	}
	s, issue := Text(v, Rule{MaxLen: maxLen})
	if issue != "" {
		return "", errs.InvalidField(name, issue)
	}
	return s, nil
}

// QueryUUID reads an optional uuid query parameter (422 when malformed).
func QueryUUID(c *fiber.Ctx, name string) (*uuid.UUID, error) {
	if !QueryGiven(c, name) {
		return nil, nil
	}
	id, err := storage.ParseUUID(QueryValue(c, name))
	if err != nil {
		return nil, errs.InvalidField(name, "must be a uuid")
	}
	return &id, nil
}

// QueryBool reads an optional boolean query parameter (true/false).
func QueryBool(c *fiber.Ctx, name string, def bool) (bool, error) {
	if !QueryGiven(c, name) {
		return def, nil
	}
	switch QueryValue(c, name) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return def, errs.InvalidField(name, "must be true or false")
}

// PathID reads the :id path parameter. A value that is not a uuid cannot name
// any record, so it is 404 not_found like any other unknown id.
func PathID(c *fiber.Ctx, kind string) (uuid.UUID, error) {
	id, err := storage.ParseUUID(c.Params("id"))
	if err != nil {
		return uuid.Nil, errs.NotFoundOf(kind)
	}
	return id, nil
}
