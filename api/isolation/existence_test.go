package isolation_test

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
)

// Existence must not leak: another organization's id is answered exactly as
// an id that names nothing (docs/architecture.md, "Tenant isolation is
// structural": "a foreign id looks exactly like a missing one"; v1 alike,
// docs/v1.md). A 404 is not enough on its own: a message, a detail, a
// header or a length that differs between the two would tell B that A's
// record exists. sameAsMissing sends a request twice, once naming the
// other organization's records and once with random ids in their place,
// and requires the two answers to be the same.

// answer is a response reduced to what must not depend on whether a foreign
// id exists: the parts that differ between any two requests (request id,
// Date, the rate-limit window) are replaced by placeholders, and so are the
// ids the request named (an answer may echo what the caller sent).
type answer struct {
	Status int
	Header map[string]string
	Body   string
}

// volatileHeaders are replaced by a placeholder in an answer: X-Request-Id
// is per request, Date is the clock, and the X-RateLimit-* values count the
// caller's requests (docs/edge.md, "Headers"). Their presence is compared.
func volatileHeader(name string) bool {
	return name == "X-Request-Id" || name == "Date" || strings.HasPrefix(name, "X-Ratelimit-")
}

// normalise reduces res to an answer. ids come in pairs, an id of the other
// organization and the one standing in for it in the control request, and
// both of pair k become "<id k>", so an answer that echoes the id it was
// sent compares equal.
func normalise(res *apitest.Response, ids []string) answer {
	swap := func(s string) string {
		if rid := res.Header.Get("X-Request-Id"); rid != "" {
			s = strings.ReplaceAll(s, rid, "<request id>")
		}
		for i, id := range ids {
			s = strings.ReplaceAll(s, id, fmt.Sprintf("<id %d>", i/2))
		}
		return s
	}
	a := answer{Status: res.Status, Header: map[string]string{}, Body: swap(string(res.Body))}
	for name, values := range res.Header {
		if volatileHeader(name) {
			a.Header[name] = "<varies>"
			continue
		}
		a.Header[name] = swap(strings.Join(values, ", "))
	}
	return a
}

// diff describes how answer got differs from want, the answer to the
// request called other ("" when they do not differ).
func diff(got, want answer, other string) string {
	var out []string
	if got.Status != want.Status {
		out = append(out, fmt.Sprintf("status %d, %s %d", got.Status, other, want.Status))
	}
	for _, name := range slices.Sorted(maps.Keys(got.Header)) {
		if v, ok := want.Header[name]; !ok || v != got.Header[name] {
			out = append(out, fmt.Sprintf("header %s: %q, %s %q (present %v)", name, got.Header[name], other, v, ok))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want.Header)) {
		if _, ok := got.Header[name]; !ok {
			out = append(out, fmt.Sprintf("header %s only %s: %q", name, other, want.Header[name]))
		}
	}
	if got.Body != want.Body {
		out = append(out, fmt.Sprintf("body %s, %s %s", got.Body, other, want.Body))
	}
	return strings.Join(out, "; ")
}

// sameAsMissing sends method path as o, path naming the other
// organization's records foreign (in the path or the query), then the same
// request with a fresh random uuid in place of each, and fails t unless the
// two answers are the same after normalise. It returns the first response
// for the caller's own assertions. A HEAD must also come without a body.
func (s *Suite) sameAsMissing(t testing.TB, o *apitest.Org, method, path string, foreign []string, body map[string]any) *apitest.Response {
	t.Helper()
	missing := path
	ids := make([]string, 0, 2*len(foreign))
	for _, id := range foreign {
		random := uuid.NewString()
		missing = strings.ReplaceAll(missing, id, random)
		ids = append(ids, id, random)
	}
	if missing == path {
		t.Fatalf("sameAsMissing: %s names none of %v", path, foreign)
	}
	return s.sameAnswer(t, o, method, path, missing, ids, body)
}

// sameAnswer sends method path and then method control as o, and fails t
// unless the answers are the same after normalise (ids are the values by
// which the two requests differ). It returns the answer to path.
func (s *Suite) sameAnswer(t testing.TB, o *apitest.Org, method, path, control string, ids []string, body map[string]any) *apitest.Response {
	t.Helper()
	got, want := s.send(t, o, method, path, body), s.send(t, o, method, control, body)
	if d := diff(normalise(got, ids), normalise(want, ids), "for "+control); d != "" {
		t.Errorf("%s %s, naming another organization's records, is told apart from %s: %s", method, path, control, d)
	}
	if method == http.MethodHead && (len(got.Body) != 0 || len(want.Body) != 0) {
		t.Errorf("HEAD %s answered with a body: %q / %q", path, got.Body, want.Body)
	}
	return got
}

// send is o.Do, but for HEAD, which the harness's Send cannot take: its
// envelope check wants an error body on every v2 4xx, and a HEAD answer
// has none (every GET route also answers HEAD, the same status and headers
// without the body: docs/decisions.md, "`Allow` lists `HEAD` wherever `GET`
// is"). The contract check has nothing to check
// on a HEAD either (the document lists no HEAD operations).
func (s *Suite) send(t testing.TB, o *apitest.Org, method, path string, body map[string]any) *apitest.Response {
	t.Helper()
	if method != http.MethodHead {
		if body == nil {
			return o.Do(method, path, nil) // no body, not JSON null
		}
		return o.Do(method, path, body)
	}
	req := httptest.NewRequest(http.MethodHead, path, nil)
	req.Header.Set("Authorization", "Bearer "+o.Key)
	resp, err := s.Env.Svc.App.Test(req, 30_000)
	if err != nil {
		t.Fatalf("HEAD %s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// sameAsGet fails t unless head, the HEAD of a path, has get's status and
// headers (docs/decisions.md), so that a HEAD cannot tell apart what the
// GET hides.
func sameAsGet(t testing.TB, path string, get, head *apitest.Response) {
	t.Helper()
	g, h := normalise(get, nil), normalise(head, nil)
	g.Body, h.Body = "", ""
	if d := diff(h, g, "on GET"); d != "" {
		t.Errorf("HEAD %s differs from its GET: %s", path, d)
	}
}

// foreignItem is what B is told about A's record at path (a GET, PATCH,
// DELETE or POST on one record): the same as for a random id, and for a
// GET the same again on HEAD. It returns B's answer on the record.
func (s *Suite) foreignItem(t testing.TB, method, path string, foreign []string, body map[string]any) *apitest.Response {
	t.Helper()
	res := s.sameAsMissing(t, s.B, method, path, foreign, body)
	if method == http.MethodGet {
		sameAsGet(t, path, res, s.sameAsMissing(t, s.B, http.MethodHead, path, foreign, nil))
	}
	return res
}

// checkNested: B names A's records and its own in every mix the route's
// parameters allow (each parameter A's or B's, all B's left out): B's
// endpoint with A's delivery, A's endpoint with B's delivery, A's both.
// Each is 404 not_found, answered as if A's ids were random (on HEAD too for
// a GET), so a parent of B's cannot be used to probe A's children nor the
// other way round. B's own (all B's) is served, so the check can fail.
// a and b are the values Route.Params made for A and B.
func (s *Suite) checkNested(t *testing.T, method, route string, body map[string]any, a, b map[string]string) {
	t.Helper()
	names := params(route)
	if len(names) < 2 {
		t.Fatalf("checkNested on %s: it has %d path parameter(s)", route, len(names))
	}
	for mix := range 1<<len(names) - 1 { // bit i set: B's value for names[i]
		values, foreign := map[string]string{}, []string{}
		var who []string
		for i, n := range names {
			if mix&(1<<i) != 0 {
				values[n] = b[n]
				who = append(who, "B's "+n)
				continue
			}
			values[n] = a[n]
			foreign = append(foreign, a[n])
			who = append(who, "A's "+n)
		}
		res := s.foreignItem(t, method, fillParams(t, route, values), foreign, body)
		if res.Status != http.StatusNotFound || res.ErrorCode() != "not_found" {
			t.Errorf("B %s with %s: %d %s, want 404 not_found", method, strings.Join(who, ", "), res.Status, res.Body)
		}
	}
	if res := s.send(t, s.B, method, fillParams(t, route, b), body); res.Status >= 300 {
		t.Errorf("B %s with its own ids: %d %s", method, res.Status, res.Body)
	}
}
