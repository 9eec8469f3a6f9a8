package server_test

import (
	"net/http"
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
