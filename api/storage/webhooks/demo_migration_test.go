package webhooks_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestTheDemoMigrationMarksTestKeysEndpoints: the migration that gives
// webhook endpoints their demo column marks the endpoints already there
// that a test key registered, or that lie in a sandbox, and no other;
// rolled back, it drops the column.
func TestTheDemoMigrationMarksTestKeysEndpoints(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenDirect(t)
	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	const before, demo = "20261209010000", "20261209020000_webhook_endpoints_demo"
	// Later migrations, if any, are rolled back and applied with it.
	if down, err := m.Down(ctx, database.DownTo{Migration: before}); err != nil || !slices.Contains(down, demo) {
		t.Fatalf("down to %s: %v %v, want %s among them", before, down, err, demo)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(query, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	org, sandbox := uuid.New(), uuid.New()
	exec("INSERT INTO organizations (id, name) VALUES (?, 'Live')", org)
	exec("INSERT INTO organizations (id, name, sandbox_of) VALUES (?, 'Live (sandbox)', ?)", sandbox, org)
	keys := map[string]uuid.UUID{"live": uuid.New(), "test": uuid.New()}
	for mode, id := range keys {
		exec("INSERT INTO api_keys (id, organization_id, name, prefix, hash, mode) VALUES (?, ?, ?, 'svc_', ?, ?)",
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
		exec(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret, created_by_key_id)
			VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00', ?)`, endpoints[i].id, e.org, e.key)
	}
	if up, err := m.Up(ctx); err != nil || !slices.Contains(up, demo) {
		t.Fatalf("up: %v %v, want %s among them", up, err, demo)
	}
	for _, e := range endpoints {
		var got bool
		if err := db.NewRaw("SELECT demo FROM webhook_endpoints WHERE id = ?", e.id).Scan(ctx, &got); err != nil || got != e.want {
			t.Errorf("%s: demo %v (%v), want %v", e.name, got, err, e.want)
		}
	}

	if _, err := m.Down(ctx, database.DownTo{Migration: before}); err != nil {
		t.Fatal(err)
	}
	var columns int
	if err := db.NewRaw(`SELECT count(*) FROM information_schema.columns
		WHERE table_name = 'webhook_endpoints' AND column_name = 'demo'`).Scan(ctx, &columns); err != nil || columns != 0 {
		t.Fatalf("after down: %d demo columns (%v), want none", columns, err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
}
