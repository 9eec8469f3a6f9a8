package isolation_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
)

// Entries for the request log: a record is made by a request of the
// organization, written out by flushing the log's buffer.
func init() {
	register(map[string]Fixture{
		"request_logs": {Table: "request_logs", Stamp: "created_at", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			t.Helper()
			reqID := o.Get("/api/v2/health").Header.Get("X-Request-Id")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.Env.Svc.RequestLog.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			res := o.Get("/api/v2/request_logs?request_id=" + url.QueryEscape(reqID))
			l := res.List()
			if res.Status != 200 || len(l) != 1 {
				t.Fatalf("request log fixture: %d %s", res.Status, res.Body)
			}
			return l[0]["id"].(string)
		}},
	}, map[string]Route{
		"GET /api/v2/request_logs":     {Fixture: "request_logs"},
		"GET /api/v2/request_logs/:id": {Fixture: "request_logs"},
	})
}

// TestRequestLogFiltersWithForeignValues: the filters of B's request log,
// given values only A's requests have (A's X-Request-Id, a route, a status
// and a method only A's requests had), are answered exactly as values no
// request has: a random uuid, a route nobody called, a status and a method
// nobody got. A finds its own records by each, so the check can fail. (The
// uuid filter key_id is TestListFiltersWithForeignIDs'.)
func TestRequestLogFiltersWithForeignValues(t *testing.T) {
	s := newSuite(t)
	// Only A calls /health, and only A is refused a DELETE (405: clients
	// are not deleted); nobody calls /changes, is refused 409 or sends a
	// PATCH in this test. B's own requests are the GETs of its request log.
	const called, uncalled = "/api/v2/health", "/api/v2/changes"
	reqID := s.A.Get(called).Header.Get("X-Request-Id")
	if r := s.A.Delete("/api/v2/clients/" + uuid.NewString()); r.Status != http.StatusMethodNotAllowed {
		t.Fatalf("A's DELETE of a client: %d %s, want 405", r.Status, r.Body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Env.Svc.RequestLog.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		filter, theirs, none string
	}{
		{"request_id", reqID, ""}, // "": a random uuid (sameAsMissing)
		{"route", called, uncalled},
		{"status", "405", "409"},
		{"method", "DELETE", "PATCH"},
	} {
		t.Run(c.filter, func(t *testing.T) {
			path := "/api/v2/request_logs?" + url.Values{c.filter: {c.theirs}}.Encode()
			if l := s.A.Get(path).List(); len(l) == 0 {
				t.Fatalf("A's request log filtered by its own %s %s is empty", c.filter, c.theirs)
			}
			var res *apitest.Response
			if c.none == "" {
				res = s.sameAsMissing(t, s.B, http.MethodGet, path, []string{c.theirs}, nil)
			} else {
				control := "/api/v2/request_logs?" + url.Values{c.filter: {c.none}}.Encode()
				res = s.sameAnswer(t, s.B, http.MethodGet, path, control, []string{c.theirs, c.none}, nil)
			}
			if res.Status != http.StatusOK || len(res.List()) != 0 {
				t.Errorf("B's request log filtered by A's %s: %d %s, want 200 and nothing", c.filter, res.Status, res.Body)
			}
		})
	}
}
