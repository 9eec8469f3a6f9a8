package server_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestPathsAreExact: another letter case or a trailing slash is no route
// (404), writes nothing, and does not spend its Idempotency-Key: the same
// key sent again to the documented path executes the request.
func TestPathsAreExact(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Exact")
	body := map[string]any{"name": "Aliased"}
	for _, path := range []string{"/API/V2/CLIENTS", "/api/v2/clients/", "/api/v2/Clients"} {
		if res := a.Do(http.MethodPost, path, body, "Idempotency-Key", "exact-1"); res.Status != 404 || res.ErrorCode() != "not_found" {
			t.Errorf("POST %s: %d %s, want 404", path, res.Status, res.Body)
		}
		if res := a.Get(path); res.Status != 404 {
			t.Errorf("GET %s: %d %s, want 404", path, res.Status, res.Body)
		}
	}
	if n := len(a.Get("/api/v2/clients").List()); n != 0 {
		t.Fatalf("%d clients after the aliases, want 0", n)
	}
	res := a.Do(http.MethodPost, "/api/v2/clients", body, "Idempotency-Key", "exact-1")
	if res.Status != 201 {
		t.Fatalf("POST /api/v2/clients with the key the aliases were sent with: %d %s", res.Status, res.Body)
	}
}

// TestPathsBesideTheAPIs: a path that only begins with an API group's path
// (/api/v1x, /api/v2equipment) is a 404 in the v2 envelope, before
// authentication: with or without a key, it spends no slot of the key's
// rate limit, carries no v1 deprecation headers and is not in the request
// log: such paths go through none of the group's middlewares.
func TestPathsBesideTheAPIs(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Beside")
	before := a.Get("/api/v2/health").Header.Get("X-RateLimit-Remaining")
	for _, path := range []string{"/api/v1x/equipment", "/api/v1equipment", "/api/v2x", "/api/v2clients", "/API/V1X"} {
		for _, res := range []*apitest.Response{a.Get(path), env.Send(apitest.Request{Method: http.MethodGet, Path: path})} {
			if res.Status != 404 || res.ErrorCode() != "not_found" {
				t.Errorf("GET %s: %d %s, want 404 not_found in the v2 envelope", path, res.Status, res.Body)
			}
			for _, h := range []string{"Deprecation", "Sunset", "X-RateLimit-Remaining"} {
				if v := res.Header.Get(h); v != "" {
					t.Errorf("GET %s: %s: %s, want none", path, h, v)
				}
			}
		}
	}
	// One GET of /health since: the paths above spent nothing.
	after := a.Get("/api/v2/health").Header.Get("X-RateLimit-Remaining")
	if b, af := atoi(t, before), atoi(t, after); af != b-1 {
		t.Errorf("X-RateLimit-Remaining %d, then %d after the paths: they spent slots", b, af)
	}
	if err := env.Svc.RequestLog.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, l := range a.Get("/api/v2/request_logs?limit=100").List() {
		if p, _ := l["path"].(string); p != "/api/v2/health" && p != "/api/v2/request_logs" {
			t.Errorf("the request log holds %s", p)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}
