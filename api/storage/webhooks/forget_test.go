package webhooks_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestExpiredPreviousSecretsAreForgotten: a previous secret whose grace
// period has ended is erased, with its expiry; one still in its grace
// period, and an endpoint never rotated, are left as they are, and no
// endpoint's updated_at moves.
func TestExpiredPreviousSecretsAreForgotten(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org := uuid.New()
	if _, err := db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'Forget')", org).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	endpoints := map[string]string{ // name: previous_secret_expires_at
		"expired": "clock_timestamp() - interval '1 second'",
		"grace":   "clock_timestamp() + interval '1 hour'",
		"never":   "NULL",
	}
	ids := map[string]uuid.UUID{}
	for name, expires := range endpoints {
		ids[name] = uuid.New()
		previous := "'\\x01'"
		if expires == "NULL" {
			previous = "NULL"
		}
		if _, err := db.NewRaw(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret,
			previous_secret, previous_secret_expires_at)
			VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00', `+previous+`, `+expires+`)`,
			ids[name], org).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var before string
	if err := db.NewRaw(`SELECT string_agg(updated_at::text, ',' ORDER BY id) FROM webhook_endpoints`).Scan(ctx, &before); err != nil {
		t.Fatal(err)
	}
	n, err := webhooks.ForgetExpiredSecrets(ctx, db)
	if err != nil || n != 1 {
		t.Fatalf("ForgetExpiredSecrets: %d, %v; want 1 (the expired one)", n, err)
	}
	for name, id := range ids {
		var kept bool
		if err := db.NewRaw(`SELECT previous_secret IS NOT NULL AND previous_secret_expires_at IS NOT NULL
			FROM webhook_endpoints WHERE id = ?`, id).Scan(ctx, &kept); err != nil {
			t.Fatal(err)
		}
		if want := name == "grace"; kept != want {
			t.Errorf("%s: previous secret kept %v, want %v", name, kept, want)
		}
	}
	var after string
	if err := db.NewRaw(`SELECT string_agg(updated_at::text, ',' ORDER BY id) FROM webhook_endpoints`).Scan(ctx, &after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("updated_at moved: %s, before %s", after, before)
	}
}
