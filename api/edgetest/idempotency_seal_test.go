package edgetest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestStoredResponsesAreSealed: a webhook endpoint created with an
// Idempotency-Key answers with its signing secret, shown once. The copy kept
// for replays, in PostgreSQL and in the edge store, must not hold it in the
// clear; a replay from either still answers it.
func TestStoredResponsesAreSealed(t *testing.T) {
	env, _ := newApp(t, apitest.WithConfig(func(c *config.Config) { c.Webhook.AllowPrivate = true }))
	org := env.NewOrg("Acme").WithKey(apikey.Live, tenancy.WebhooksRead, tenancy.WebhooksWrite, tenancy.ClientsRead)
	body := map[string]any{"url": "http://127.0.0.1:9/hooks", "enabled_events": []string{"client.created"}}
	ctx := context.Background()
	name := idempotency.StoreKey(org.ID, "seal-1")

	created := org.Do("POST", "/api/v2/webhook_endpoints", body, keyHeader, "seal-1")
	if created.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	secret, _ := created.Data()["secret"].(string)
	if secret == "" {
		t.Fatalf("no secret in %s", created.Body)
	}

	t.Run("the database row holds it sealed", func(t *testing.T) {
		var row struct {
			Response []byte `bun:"response"`
			Sealed   bool   `bun:"response_sealed"`
		}
		err := env.Svc.DB.NewRaw("SELECT response, response_sealed FROM idempotency_keys WHERE organization_id = ? AND key = ?",
			org.ID, "seal-1").Scan(ctx, &row)
		if err != nil {
			t.Fatal(err)
		}
		if !row.Sealed || len(row.Response) == 0 || bytes.Contains(row.Response, []byte(secret)) {
			t.Fatalf("response_sealed %v, %d bytes, holds the secret: %v", row.Sealed, len(row.Response), bytes.Contains(row.Response, []byte(secret)))
		}
	})
	t.Run("the edge record holds it sealed", func(t *testing.T) {
		raw, ok, err := env.Svc.Edge.Get(ctx, name)
		if err != nil || !ok {
			t.Fatalf("edge record: %v %v", ok, err)
		}
		var rec struct {
			Body   []byte `json:"b"`
			Sealed bool   `json:"z"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			t.Fatal(err)
		}
		if !rec.Sealed || len(rec.Body) == 0 || bytes.Contains(rec.Body, []byte(secret)) || bytes.Contains(raw, []byte(secret)) {
			t.Fatalf("sealed %v, %d bytes, holds the secret: %v", rec.Sealed, len(rec.Body), bytes.Contains(rec.Body, []byte(secret)))
		}
	})
	replayed := func(t *testing.T) {
		t.Helper()
		r := org.Do("POST", "/api/v2/webhook_endpoints", body, keyHeader, "seal-1")
		if r.Status != http.StatusCreated || r.Header.Get(idempotency.HeaderReplayed) != "true" || !bytes.Equal(r.Body, created.Body) {
			t.Fatalf("replay: %d (replayed %q) %s, want the first answer %s", r.Status, r.Header.Get(idempotency.HeaderReplayed), r.Body, created.Body)
		}
	}
	t.Run("a replay from the edge store answers it", replayed)
	t.Run("a replay from the database answers it", func(t *testing.T) {
		if err := env.Svc.Edge.Delete(ctx, name); err != nil {
			t.Fatal(err)
		}
		replayed(t)
	})
	t.Run("another instance opens it", func(t *testing.T) {
		if err := env.Svc.Edge.Delete(ctx, name); err != nil {
			t.Fatal(err)
		}
		r := org.Via(env.Replica()).Do("POST", "/api/v2/webhook_endpoints", body, keyHeader, "seal-1")
		if r.Status != http.StatusCreated || !bytes.Equal(r.Body, created.Body) {
			t.Fatalf("replica replay: %d %s", r.Status, r.Body)
		}
	})
}
