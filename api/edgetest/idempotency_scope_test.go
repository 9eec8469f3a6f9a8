package edgetest

import (
	"context"
	"net/http"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestReplayNeedsTheExecutingKeysScopes: an Idempotency-Key is shared by the
// organization's keys, but its stored response is replayed only to a key
// holding every scope of the key that executed it, since a replay skips the
// route's scope check; and a 403 for a key lacking the route's scope is not
// stored, so a key holding it may then execute.
func TestReplayNeedsTheExecutingKeysScopes(t *testing.T) {
	env, _ := newApp(t)
	org := env.NewOrg("Acme")
	full := org.WithKey(apikey.Live, tenancy.ClientsRead, tenancy.ClientsWrite)
	narrow := org.WithKey(apikey.Live, tenancy.EventsRead)
	writer := org.WithKey(apikey.Live, tenancy.ClientsWrite)
	body := map[string]any{"name": "Northwind"}

	first := full.Do("POST", "/api/v2/clients", body, keyHeader, "shared")
	if first.Status != http.StatusCreated {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	tests := []struct {
		name     string
		key      *apitest.Org
		status   int
		replayed string
	}{
		{"the executing key gets the replay", full, http.StatusCreated, "true"},
		{"a key lacking the route's scope is refused", narrow, http.StatusForbidden, ""},
		{"a key holding the route's scope but not all of the executing key's is refused", writer, http.StatusForbidden, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.key.Do("POST", "/api/v2/clients", body, keyHeader, "shared")
			if r.Status != tt.status || r.Header.Get(idempotency.HeaderReplayed) != tt.replayed {
				t.Fatalf("%d %s (replayed %q), want %d", r.Status, r.Body, r.Header.Get(idempotency.HeaderReplayed), tt.status)
			}
			if tt.status == http.StatusForbidden && r.ErrorCode() != "insufficient_scope" {
				t.Fatalf("%s, want insufficient_scope", r.Body)
			}
		})
	}

	t.Run("the database's copy keeps the scopes", func(t *testing.T) {
		// Without the edge store's record the database row answers.
		if err := env.Svc.Edge.Delete(context.Background(), idempotency.StoreKey(org.ID, "shared")); err != nil {
			t.Fatal(err)
		}
		if r := narrow.Do("POST", "/api/v2/clients", body, keyHeader, "shared"); r.Status != http.StatusForbidden {
			t.Fatalf("narrow key after the edge record was lost: %d %s", r.Status, r.Body)
		}
		if r := full.Do("POST", "/api/v2/clients", body, keyHeader, "shared"); r.Status != http.StatusCreated || r.Header.Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("executing key after the edge record was lost: %d %s", r.Status, r.Body)
		}
	})

	t.Run("a 403 is not stored", func(t *testing.T) {
		refused := narrow.Do("POST", "/api/v2/clients", map[string]any{"name": "Later"}, keyHeader, "refused-first")
		if refused.Status != http.StatusForbidden {
			t.Fatalf("narrow key: %d %s", refused.Status, refused.Body)
		}
		r := full.Do("POST", "/api/v2/clients", map[string]any{"name": "Later"}, keyHeader, "refused-first")
		if r.Status != http.StatusCreated || r.Header.Get(idempotency.HeaderReplayed) != "" {
			t.Fatalf("a key with the scope got %d %s (replayed %q), want a fresh 201", r.Status, r.Body, r.Header.Get(idempotency.HeaderReplayed))
		}
	})
}
