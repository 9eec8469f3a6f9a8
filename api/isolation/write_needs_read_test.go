package isolation_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// scopesOf reads the documented scopes of every operation (openapi.Scopes:
// any one of Required, and any one of Also as well), keyed like the suite's
// routes ("PATCH /api/v2/events/:id").
func scopesOf(t *testing.T) map[string]openapi.OperationScopes {
	t.Helper()
	out := map[string]openapi.OperationScopes{}
	for key, s := range openapi.Scopes() {
		method, path := splitKey(key)
		out[method+" "+routePath(strings.TrimPrefix(path, rest.V2Prefix))] = s
	}
	return out
}

// routePath turns a document path (/events/{id}) into the router's form
// (/api/v2/events/:id).
func routePath(doc string) string {
	parts := strings.Split(doc, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			parts[i] = ":" + p[1:len(p)-1]
		}
	}
	return "/api/v2" + strings.Join(parts, "/")
}

// answersRecord reports whether a route writes to an existing record and
// answers its state: a PATCH, or a POST on a record (a delivery retry). A
// DELETE answers 204 and a POST on a collection creates.
func answersRecord(method, path string) bool {
	return method == http.MethodPatch || (method == http.MethodPost && hasParam(path))
}

// fillEach replaces the path's :params with the slash-separated ids a
// fixture returns for a nested record ("endpoint/delivery"), or every
// :param with id when it is a single id.
func fillEach(path, id string) string {
	ids := strings.Split(id, "/")
	if len(ids) != strings.Count(path, "/:") {
		return fill(path, id)
	}
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i], ids = ids[0], ids[1:]
		}
	}
	return strings.Join(parts, "/")
}

// scopes converts scope names.
func scopes(names ...string) []tenancy.Scope {
	out := make([]tenancy.Scope, len(names))
	for i, n := range names {
		out[i] = tenancy.Scope(n)
	}
	return out
}

// allBut is every scope except names: a key that holds whatever else a
// write may look at (a webhook endpoint's subscribed record types) but none
// of names.
func allBut(names []string) []tenancy.Scope {
	var out []tenancy.Scope
	for _, s := range tenancy.AllScopes {
		if !slices.Contains(names, string(s)) {
			out = append(out, s)
		}
	}
	return out
}

// TestWriteNeedsRead: a write that answers an existing record's state
// (every PATCH, a delivery retry) needs one of the record's read scopes as
// well as the write scope, since the scopes are independent. A key lacking
// the read scopes gets 403 insufficient_scope naming them, before any
// lookup or validation, and the record is left as it was; with one of them
// the write is served. The routes come from the router, their scopes from
// the document (x-required-scopes, x-also-required-scopes), so a new route
// of the kind is covered and a route the document leaves without read
// scopes fails.
func TestWriteNeedsRead(t *testing.T) {
	s := newSuite(t)
	documented := scopesOf(t)
	var checked int
	for _, key := range v2Routes(s.Env) {
		method, path := splitKey(key)
		if !answersRecord(method, path) {
			continue
		}
		checked++
		t.Run(key, func(t *testing.T) {
			doc, ok := documented[key]
			if !ok || len(doc.Required) == 0 || len(doc.Also) == 0 {
				t.Fatalf("the document states no write and read scopes for %s: %+v", key, doc)
			}
			s.checkWriteNeedsRead(t, method, path, routes[key], doc)
		})
	}
	if checked < 13 {
		t.Errorf("only %d writes answering a record found", checked)
	}
}

// checkWriteNeedsRead runs the table of keys against one route on a new
// record of A.
func (s *Suite) checkWriteNeedsRead(t *testing.T, method, route string, r Route, doc openapi.OperationScopes) {
	fx := fixtures[r.Fixture]
	stamp := fx.Stamp
	if stamp == "" {
		stamp = "updated_at"
	}
	id := s.Make(t, r.Fixture, s.A)
	rowID := id[strings.LastIndex(id, "/")+1:]
	path := fillEach(route, id) + r.Query
	before, ok := s.row(t, fx.Table, stamp, s.A.ID, rowID)
	if !ok {
		t.Fatalf("fixture %s made no row %s in %s", r.Fixture, rowID, fx.Table)
	}
	write := scopes(doc.Required...)
	refused := []struct {
		name   string
		scopes []tenancy.Scope
		path   string
		body   any
	}{
		{"write scope only", write, path, s.body(t, method, r, s.A)},
		{"every scope but the read ones", allBut(doc.Also), path, s.body(t, method, r, s.A)},
		// The scope check comes before the lookup and the body's checks.
		{"write scope only, unknown id, body not an object", write, fill(route, uuid.NewString()), []any{}},
	}
	for _, tc := range refused {
		res := s.A.WithKey(apikey.Live, tc.scopes...).Do(method, tc.path, tc.body)
		got, _ := res.ErrorDetails()["required"].([]any)
		if res.Status != http.StatusForbidden || res.ErrorCode() != "insufficient_scope" || !sameNames(got, doc.Also) {
			t.Errorf("%s: %d %s, want 403 insufficient_scope requiring %v", tc.name, res.Status, res.Body, doc.Also)
		}
	}
	if after, ok := s.row(t, fx.Table, stamp, s.A.ID, rowID); !ok || !after.Equal(before) {
		t.Fatalf("a refused %s changed or removed the record (exists=%v)", method, ok)
	}
	for _, read := range doc.Also {
		key := s.A.WithKey(apikey.Live, append(allBut(doc.Also), tenancy.Scope(read))...)
		if res := key.Do(method, path, s.body(t, method, r, s.A)); res.Status >= 300 {
			t.Errorf("write scope and %s: %d %s, want it served", read, res.Status, res.Body)
		}
	}
}

// sameNames reports whether got (a decoded JSON list) holds exactly the
// scope names want, in any order.
func sameNames(got []any, want []string) bool {
	names := make([]string, 0, len(got))
	for _, g := range got {
		n, _ := g.(string)
		names = append(names, n)
	}
	return slices.Equal(sorted(names), sorted(want))
}

// sorted is a sorted copy of names.
func sorted(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}
