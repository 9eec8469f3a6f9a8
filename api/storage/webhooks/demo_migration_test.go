package webhooks_test

import (
	"testing"

	"github.com/google/uuid"
)

// TestTheDemoMigrationMarksTestKeysEndpoints: the migration that gives
// webhook endpoints their demo column marks the endpoints already there
// that a test key registered, or that lie in a sandbox, and no other;
// rolled back, it drops the column.
func TestTheDemoMigrationMarksTestKeysEndpoints(t *testing.T) {
	c := rollBackBefore(t, "20261209010000", "20261209020000_webhook_endpoints_demo")
	org, sandbox := uuid.New(), uuid.New()
	c.exec("INSERT INTO organizations (id, name) VALUES (?, 'Live')", org)
	c.exec("INSERT INTO organizations (id, name, sandbox_of) VALUES (?, 'Live (sandbox)', ?)", sandbox, org)
	keys := map[string]uuid.UUID{"live": uuid.New(), "test": uuid.New()}
	for mode, id := range keys {
		c.exec("INSERT INTO api_keys (id, organization_id, name, prefix, hash, mode) VALUES (?, ?, ?, 'svc_', ?, ?)",
			id, org, mode, []byte(id.String()), mode)
	}
	endpoints := []struct {
		name string
		org  uuid.UUID
		key  *uuid.UUID
		want bool
		id   uuid.UUID
	}{
		{name: "live key", org: org, key: new(keys["live"]), want: false},
		{name: "test key", org: org, key: new(keys["test"]), want: true},
		{name: "no key", org: org, want: false},
		{name: "no key, in a sandbox", org: sandbox, want: true},
		{name: "live key's id, in a sandbox", org: sandbox, key: new(keys["live"]), want: true},
	}
	for i, e := range endpoints {
		endpoints[i].id = uuid.New()
		c.exec(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret, created_by_key_id)
			VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00', ?)`, endpoints[i].id, e.org, e.key)
	}
	c.up()
	for _, e := range endpoints {
		var got bool
		if err := c.db.NewRaw("SELECT demo FROM webhook_endpoints WHERE id = ?", e.id).Scan(c.ctx, &got); err != nil || got != e.want {
			t.Errorf("%s: demo %v (%v), want %v", e.name, got, err, e.want)
		}
	}
	c.downDropsColumns("webhook_endpoints", "demo")
}
