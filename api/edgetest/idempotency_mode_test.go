package edgetest

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestLiveAndTestKeysAreDifferentRequests: in an organization without a
// sandbox a test key writes into the organization itself (marked demo) and
// shares its Idempotency-Keys. The same key and body from a live key is
// another request, 409 idempotency_key_mismatch, never a replay of the demo
// write that would tell the live key its record exists.
func TestLiveAndTestKeysAreDifferentRequests(t *testing.T) {
	env, _ := newApp(t)
	org := env.NewOrg("No sandbox")
	live := org.WithKey(apikey.Live, tenancy.ClientsRead, tenancy.ClientsWrite)
	test := org.WithKey(apikey.Test, tenancy.ClientsRead, tenancy.ClientsWrite)
	body := map[string]any{"name": "Northwind"}

	tests := []struct {
		name, key   string
		first, then *orgKey
	}{
		{"test first, then live", "mode-1", &orgKey{test, true}, &orgKey{live, false}},
		{"live first, then test", "mode-2", &orgKey{live, false}, &orgKey{test, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := tt.first.org.Do("POST", "/api/v2/clients", body, keyHeader, tt.key)
			if first.Status != http.StatusCreated || first.Data()["demo"] != tt.first.demo {
				t.Fatalf("first: %d %s", first.Status, first.Body)
			}
			other := tt.then.org.Do("POST", "/api/v2/clients", body, keyHeader, tt.key)
			if other.Status != http.StatusConflict || other.ErrorCode() != "idempotency_key_mismatch" ||
				other.Header.Get(idempotency.HeaderReplayed) != "" {
				t.Fatalf("the other mode: %d %s", other.Status, other.Body)
			}
			again := tt.first.org.Do("POST", "/api/v2/clients", body, keyHeader, tt.key)
			if again.Status != http.StatusCreated || again.Header.Get(idempotency.HeaderReplayed) != "true" {
				t.Fatalf("the same mode again: %d %s", again.Status, again.Body)
			}
		})
	}
	if n := count(t, env, "clients", org.ID); n != 2 {
		t.Fatalf("%d clients, want the 2 first writes", n)
	}
}

// orgKey is a key of the organization and whether it writes demo records.
type orgKey struct {
	org  *apitest.Org
	demo bool
}

// TestA405IsNotStored: a keyed write to a path that does not allow its
// method executed nothing; it is answered again, with its Allow header,
// rather than replayed from a record that keeps no Allow.
func TestA405IsNotStored(t *testing.T) {
	env, _ := newApp(t)
	org := env.NewOrg("Acme")
	path := "/api/v2/jobs/" + uuid.NewString()
	for i := range 2 {
		r := org.Do("PATCH", path, map[string]any{"name": "x"}, keyHeader, "allow-1")
		if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") == "" || r.Header.Get(idempotency.HeaderReplayed) != "" {
			t.Fatalf("attempt %d: %d (Allow %q, replayed %q) %s", i+1, r.Status, r.Header.Get("Allow"), r.Header.Get(idempotency.HeaderReplayed), r.Body)
		}
	}
	if n := keyRows(t, env, org.ID, "allow-1"); n != 0 {
		t.Fatalf("%d idempotency rows for a 405", n)
	}
}
