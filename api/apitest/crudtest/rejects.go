package crudtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// Case is one bad request and its documented answer.
type Case struct {
	Name string
	// Method defaults to POST.
	Method string
	Path   string
	Body   any
	Status int
	Code   string
	// Field, when set, must be named in details.fields.
	Field string
	// Issue, when set, is the issue details.fields gives for Field.
	Issue string
}

// Rejects sends every case as o and asserts its status and code (and field),
// and that table's rows of o's organization are exactly as before: no row
// added and none updated.
func Rejects(t *testing.T, env *apitest.Env, o *apitest.Org, table string, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			method := c.Method
			if method == "" {
				method = http.MethodPost
			}
			before := Take(t, env, table, o.ID)
			r := o.Do(method, c.Path, c.Body)
			if r.Status != c.Status || r.ErrorCode() != c.Code {
				t.Fatalf("%s %s: got %d %q, want %d %q: %s", method, c.Path, r.Status, r.ErrorCode(), c.Status, c.Code, short(r.Body))
			}
			if c.Field != "" && !contains(Fields(r), c.Field) {
				t.Errorf("%s %s: details.fields %v does not name %q", method, c.Path, Fields(r), c.Field)
			}
			if got := Issues(r)[c.Field]; c.Issue != "" && got != c.Issue {
				t.Errorf("%s %s: the issue of %q is %q, want %q", method, c.Path, c.Field, got, c.Issue)
			}
			if after := Take(t, env, table, o.ID); after != before {
				t.Errorf("%s %s: %s changed from %+v to %+v", method, c.Path, table, before, after)
			}
		})
	}
}

// ListCases are the bad list queries every v2 list endpoint rejects:
// limits outside 1..100 or not a number, a forged, truncated or foreign
// cursor (from another list), and an expand value the endpoint lacks.
// cursor must be a valid cursor of path; foreign one of another list.
func ListCases(path, cursor, foreign string) []Case {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	forged := []byte(cursor)
	mid := len(forged) / 2
	if forged[mid] == 'A' {
		forged[mid] = 'B'
	} else {
		forged[mid] = 'A'
	}
	get := func(name, query, field string) Case {
		return Case{Name: name, Method: http.MethodGet, Path: path + sep + query, Status: 422, Code: "validation_error", Field: field}
	}
	return []Case{
		get("limit 0", "limit=0", "limit"),
		get("limit 101", "limit=101", "limit"),
		get("limit abc", "limit=abc", "limit"),
		get("limit empty", "limit=", "limit"),
		get("limit negative", "limit=-5", "limit"),
		get("forged cursor", "cursor="+string(forged), "cursor"),
		get("truncated cursor", "cursor="+cursor[:len(cursor)-3], "cursor"),
		get("garbage cursor", "cursor=not-a-cursor!", "cursor"),
		get("cursor of another list", "cursor="+foreign, "cursor"),
		get("unknown expand", "expand=everything", "expand"),
	}
}

// BodyCases are the bad bodies every POST and PATCH endpoint rejects.
// field is a string field of the resource (for the 100 kB string). Unknown
// and read-only fields are refused by POST only: a PATCH ignores them
// (PatchSemantics checks that). The read-only ones are named without a
// given issue, as an action's body (a secret rotation) knows no record
// field; ReadOnlyFields checks a resource's "is read-only".
func BodyCases(method, path, field string) []Case {
	big := strings.Repeat("x", 100<<10)
	cases := []Case{
		{Name: "invalid utf-8", Method: method, Path: path, Body: "{\"" + field + "\": \"a\xff\xfeb\"}", Status: 400, Code: "malformed_json"},
		{Name: "malformed json", Method: method, Path: path, Body: `{"name": `, Status: 400, Code: "malformed_json"},
		{Name: "array body", Method: method, Path: path, Body: `[]`, Status: 422, Code: "validation_error", Field: "body"},
		{Name: "string body", Method: method, Path: path, Body: `"x"`, Status: 422, Code: "validation_error", Field: "body"},
		{Name: "100 kB string", Method: method, Path: path, Body: map[string]any{field: big}, Status: 422, Code: "validation_error", Field: field},
	}
	if method == http.MethodPatch {
		return cases
	}
	cases = append(cases, Case{Name: "unknown field", Method: method, Path: path, Body: map[string]any{"no_such_field": 1},
		Status: 422, Code: "validation_error", Field: "no_such_field", Issue: "is not a known field"})
	for _, f := range CommonReadOnly {
		cases = append(cases, Case{Name: "read-only " + f, Method: method, Path: path, Body: map[string]any{f: readOnlyValues[f]},
			Status: 422, Code: "validation_error", Field: f})
	}
	return cases
}

// readOnlyValues are values of the type each field of CommonReadOnly shows.
var readOnlyValues = map[string]any{
	"id": "00000000-0000-0000-0000-000000000001", "organization_id": "00000000-0000-0000-0000-000000000001",
	"demo": true, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
}

func short(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "..."
	}
	return string(b)
}
