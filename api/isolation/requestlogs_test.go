package isolation_test

import (
	"context"
	"net/url"
	"testing"
	"time"

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
