package webhooks_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestASecretIsReplayedToItsKeyAlone: the answer of an endpoint's creation
// and of a secret rotation shows a signing secret the server made for that
// request; another key of the organization executing the request would get
// a secret of its own, so a replay under the same Idempotency-Key goes to
// the key that executed it and to no other, whatever its scopes (409
// idempotency_key_mismatch).
func TestASecretIsReplayedToItsKeyAlone(t *testing.T) {
	env := newEnv(t)
	org := env.NewOrg("Acme")
	owner := org.WithKey(apikey.Live, tenancy.AllScopes...)
	other := org.WithKey(apikey.Live, tenancy.AllScopes...)
	const header = "Idempotency-Key"
	body := map[string]any{"url": "http://127.0.0.1:9/hook", "enabled_events": []string{"*"}}
	created := owner.Do("POST", endpoints, body, header, "create-1")
	if created.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	id, _ := created.Data()["id"].(string)
	rotate := endpoints + "/" + id + "/rotate_secret"
	rotated := owner.Do("POST", rotate, nil, header, "rotate-1")
	if rotated.Status != http.StatusOK {
		t.Fatalf("rotate: %d %s", rotated.Status, rotated.Body)
	}
	for _, tc := range []struct {
		name, method, path, key string
		body                    any
		first                   string
	}{
		{"creation", "POST", endpoints, "create-1", body, created.Data()["secret"].(string)},
		{"rotation", "POST", rotate, "rotate-1", nil, rotated.Data()["secret"].(string)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The database's copy answers once the edge store's is gone.
			if err := env.Svc.Edge.Delete(context.Background(), idempotency.StoreKey(org.ID, tc.key)); err != nil {
				t.Fatal(err)
			}
			r := other.Do(tc.method, tc.path, tc.body, header, tc.key)
			if r.Status != http.StatusConflict || r.ErrorCode() != "idempotency_key_mismatch" {
				t.Fatalf("another key: %d %s, want 409 idempotency_key_mismatch", r.Status, r.Body)
			}
			again := owner.Do(tc.method, tc.path, tc.body, header, tc.key)
			if again.Header.Get(idempotency.HeaderReplayed) != "true" || again.Data()["secret"] != tc.first {
				t.Fatalf("the executing key: %d %s, want its answer replayed", again.Status, again.Body)
			}
		})
	}
}

// TestASecretIsNeverCached: an answer that shows a signing secret (an
// endpoint's creation, a rotation) says Cache-Control: no-store, with or
// without an Idempotency-Key, and so do its replays, from the edge store
// and from the database; the endpoint's GET, which shows no secret, keeps
// the reads' private, no-cache.
func TestASecretIsNeverCached(t *testing.T) {
	env := newEnv(t)
	org := env.NewOrg("Acme")
	key := org.WithKey(apikey.Live, tenancy.AllScopes...)
	const header = "Idempotency-Key"
	body := map[string]any{"url": "http://127.0.0.1:9/hook", "enabled_events": []string{"*"}}
	noStore := func(what string, r *apitest.Response, status int) {
		t.Helper()
		if r.Status != status || r.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%s: %d, Cache-Control %q, want %d and no-store (%s)", what, r.Status, r.Header.Get("Cache-Control"), status, r.Body)
		}
	}
	created := key.Do("POST", endpoints, body)
	noStore("create", created, http.StatusCreated)
	id, _ := created.Data()["id"].(string)
	rotate := endpoints + "/" + id + "/rotate_secret"
	noStore("rotate", key.Do("POST", rotate, nil), http.StatusOK)
	for _, tc := range []struct {
		name, path, key string
		body            any
		status          int
	}{
		{"keyed creation", endpoints, "create-1", body, http.StatusCreated},
		{"keyed rotation", rotate, "rotate-1", nil, http.StatusOK},
	} {
		noStore(tc.name, key.Do("POST", tc.path, tc.body, header, tc.key), tc.status)
		replay := key.Do("POST", tc.path, tc.body, header, tc.key)
		if replay.Header.Get(idempotency.HeaderReplayed) != "true" {
			t.Fatalf("%s: not replayed: %d %s", tc.name, replay.Status, replay.Body)
		}
		noStore(tc.name+", replayed from the edge store", replay, tc.status)
		if err := env.Svc.Edge.Delete(context.Background(), idempotency.StoreKey(org.ID, tc.key)); err != nil {
			t.Fatal(err)
		}
		noStore(tc.name+", replayed from the database", key.Do("POST", tc.path, tc.body, header, tc.key), tc.status)
	}
	if got := key.Get(endpoints + "/" + id); got.Status != http.StatusOK || got.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("GET: %d, Cache-Control %q, want 200 and private, no-cache", got.Status, got.Header.Get("Cache-Control"))
	}
}
