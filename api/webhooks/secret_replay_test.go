package webhooks_test

import (
	"context"
	"net/http"
	"testing"

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
