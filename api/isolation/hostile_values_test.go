package isolation_test

import (
	"strings"

	"github.com/google/uuid"
)

// The values TestHostileInput (hostile_test.go) sends.

// hostileValues are JSON values a body property may be sent: every JSON
// type, numbers past what PostgreSQL and an exact float64 hold, text
// PostgreSQL refuses (NUL, a lone surrogate), text past any bound, dates
// that do not exist, ids of no record, and nesting far deeper than any body
// has. A number past float64 itself (1e400) is left to api/rest's table
// tests: a route ignores it in a read-only member, and the contract check,
// which decodes the body into float64, cannot read such a request.
var hostileValues = []string{
	`null`, `true`, `false`, `0`, `-1`, `-0`, `1.5`, `1e308`, `-1e308`, `9007199254740993`,
	`99999999999999999999999999999999`, `""`, `" "`, `"` + strings.Repeat("x", 10_000) + `"`,
	`"a\u0000b"`, `"\ud800"`, `"\u202e\u0301"`, `"2026-02-30T00:00:00Z"`, `"0001-01-01T00:00:00Z"`,
	`"9999-12-31T23:59:59.999999999Z"`, `"00000000-0000-0000-0000-000000000000"`, `"not-a-uuid"`,
	`"NaN"`, `"-1"`, `[]`, `[null]`, `[""]`, `{}`, `{"id":"x"}`,
	strings.Repeat("[", 200) + strings.Repeat("]", 200),
	`[` + strings.TrimSuffix(strings.Repeat(`"`+uuid.Nil.String()+`",`, 300), ",") + `]`,
}

// hostileBodies replace a write's whole body. Each is refused but the one
// a PATCH may take: an object of unknown members only, which a PATCH
// ignores and a POST refuses (docs/decisions.md, "PATCH accepts arbitrary
// properties").
var hostileBodies = []struct {
	body       string
	patchTakes bool
}{
	{body: ``}, {body: `null`}, {body: `[]`}, {body: `"x"`}, {body: `1`}, {body: `{`}, {body: `{"a":`},
	{body: `{"a":1,"a":2}`}, {body: `{}{}`},
	{body: strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200), patchTakes: true},
}

// hostileQueryValues are query parameter values (before URL encoding).
var hostileQueryValues = []string{
	"", " ", "\x00", "\xff", strings.Repeat("x", 5000), "-1", "0", "1e999", "null", "[]", "true",
	"not-a-uuid", uuid.Nil.String(), "2026-13-45T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
	strings.Repeat("a,", 500), "%", "'; DROP TABLE clients; --",
}

// hostileHeaders are request headers each route is sent with, one at a
// time, with its valid body.
var hostileHeaders = [][2]string{
	{"Content-Type", "text/plain"}, {"Content-Type", "application/json; charset=latin1"},
	{"Content-Type", "multipart/form-data; boundary=x"}, {"Content-Type", ""}, {"Content-Type", "application/json; charset="},
	{"Idempotency-Key", ""}, {"Idempotency-Key", strings.Repeat("k", 256)}, {"Idempotency-Key", "clé"},
	{"Accept-Encoding", "gzip;q=x, *;q=0"}, {"Accept", "text/html"}, {"If-None-Match", strings.Repeat("\"", 100)},
	{"X-Forwarded-For", "not-an-address, ::ffff:999.1.1.1"}, {"User-Agent", strings.Repeat("u", 4000)},
	{"Authorization", "Bearer " + strings.Repeat("k", 4000)},
}

// hostileIDs fill a route's path parameters (URL-escaped).
var hostileIDs = []string{"not-a-uuid", "\x00", "\xff", uuid.Nil.String(), strings.Repeat("x", 3000),
	"00000000-0000-0000-0000-00000000000g", "..", "%2e%2e", " "}
