package tenancy

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func epochOf(t *testing.T, db bun.IDB) int64 {
	t.Helper()
	var v int64
	if err := db.NewRaw("SELECT epoch FROM auth_epoch").Scan(context.Background(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestWhatMovesTheAuthEpoch: every change to what a cached key lookup holds
// raises auth_epoch, and the writes that change nothing it holds (last use,
// names, updated_at) leave it, so they never end other keys' reuse.
func TestWhatMovesTheAuthEpoch(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org, err := CreateOrganization(ctx, db, "Epoch AV", nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "k", Scopes: []Scope{EventsRead}, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	other, err := CreateOrganization(ctx, db, "Other AV", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		sql   string
		moves bool
	}{
		{"last use", "UPDATE api_keys SET last_used_at = clock_timestamp() WHERE id = ?0", false},
		{"key name", "UPDATE api_keys SET name = 'renamed', updated_at = clock_timestamp() WHERE id = ?0", false},
		{"organization name", "UPDATE organizations SET name = 'Renamed', updated_at = clock_timestamp() WHERE id = ?1", false},
		{"scopes", "UPDATE api_keys SET scopes = '{quotes:read}' WHERE id = ?0", true},
		{"expiry", "UPDATE api_keys SET expires_at = clock_timestamp() + interval '1 day' WHERE id = ?0", true},
		{"revocation", "UPDATE api_keys SET revoked_at = clock_timestamp() WHERE id = ?0", true},
		{"rate limit", "UPDATE organizations SET rate_limit_per_window = 5 WHERE id = ?1", true},
		{"stock guard", "UPDATE organizations SET stock_guard_mode = 'warn' WHERE id = ?1", true},
		{"new key", "INSERT INTO api_keys (organization_id, name, prefix, hash, mode) VALUES (?1, 'n', 'p', '\\x01', 'live')", true},
		{"sandbox created", "INSERT INTO organizations (name, sandbox_of) VALUES ('Sandbox', ?1)", true},
		{"key deleted", "DELETE FROM api_keys WHERE id = ?0", true},
		{"organization deleted", "DELETE FROM organizations WHERE id = ?2", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := epochOf(t, db)
			if _, err := db.NewRaw(tt.sql, k.ID, org.ID, other.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if moved := epochOf(t, db) != before; moved != tt.moves {
				t.Fatalf("epoch moved: %v, want %v", moved, tt.moves)
			}
		})
	}
}

// TestLookupsOutliveTheTTLWhileTheEpochStays: past the TTL a cached lookup
// costs one epoch query per TTL for the whole process, not one lookup per
// key; a change to any key or organization setting ends the reuse within
// the TTL; maxEntryAge ends it anyway; a key that expires while cached is
// refused at once.
func TestLookupsOutliveTheTTLWhileTheEpochStays(t *testing.T) {
	db, qc := openCounted(t)
	ctx := context.Background()
	org, err := CreateOrganization(ctx, db, "Reuse AV", nil)
	if err != nil {
		t.Fatal(err)
	}
	newKey := func(expires *time.Time) string {
		k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "k", Scopes: []Scope{EventsRead},
			Mode: apikey.Live, ExpiresAt: expires})
		if err != nil {
			t.Fatal(err)
		}
		return k.Secret
	}
	keys := []string{newKey(nil), newKey(nil), newKey(nil)}
	a := NewAuthenticator(db, nil)
	defer a.Close()
	clock := time.Now()
	a.now = func() time.Time { return clock }
	queries := func(f func()) int64 {
		t.Helper()
		before := qc.n.Load()
		f()
		return qc.n.Load() - before
	}
	authenticateAll := func() {
		t.Helper()
		for _, k := range keys {
			if _, err := a.Authenticate(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := queries(authenticateAll); n != int64(len(keys)) {
		t.Fatalf("first use: %d queries, want one lookup per key", n)
	}

	clock = clock.Add(CacheTTL + time.Millisecond)
	if n := queries(func() { authenticateAll(); authenticateAll() }); n != 1 {
		t.Fatalf("past the TTL, nothing changed: %d queries, want 1 (the epoch)", n)
	}

	five := 5
	if _, err := UpdateOrganization(ctx, db, org.ID, OrganizationUpdate{RateLimit: &five}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(CacheTTL + time.Millisecond)
	if n := queries(authenticateAll); n != 1+int64(len(keys)) {
		t.Fatalf("after a settings change: %d queries, want the epoch and one lookup per key", n)
	}
	if p, err := a.Authenticate(ctx, keys[0]); err != nil || p.RateLimit != five {
		t.Fatalf("principal %+v, %v: want the new rate limit", p, err)
	}

	clock = clock.Add(maxEntryAge)
	if n := queries(authenticateAll); n != int64(len(keys)) {
		t.Fatalf("past maxEntryAge: %d queries, want one lookup per key", n)
	}

	soon := clock.Add(CacheTTL / 2)
	expiring := newKey(&soon)
	if _, err := a.Authenticate(ctx, expiring); err != nil {
		t.Fatalf("before its expiry: %v", err)
	}
	clock = soon
	if _, err := a.Authenticate(ctx, expiring); !errs.Is(err, errs.InvalidCredentials) {
		t.Fatalf("a key past its expiry, still cached, was accepted: %v", err)
	}
}

// TestAnEpochThatWentBackRevivesNoKey: a database that lost commits (a
// restore, a failover to a replica that was behind) takes auth_epoch back
// to a value it held before; a revocation then raises it again. The pods
// must not find there the value they cached the key under before the loss:
// counted up by one, they did, and accepted the revoked key for up to
// maxEntryAge.
func TestAnEpochThatWentBackRevivesNoKey(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org, err := CreateOrganization(ctx, db, "Restored AV", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := epochOf(t, db)
	k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "k", Scopes: []Scope{EventsRead}, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuthenticator(db, nil)
	defer a.Close()
	clock := time.Now()
	a.now = func() time.Time { return clock }
	if _, err := a.Authenticate(ctx, k.Secret); err != nil {
		t.Fatal(err)
	}
	// The key's creation is lost: the epoch is back where it was before it.
	if _, err := db.NewRaw("UPDATE auth_epoch SET epoch = ?", before).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := RevokeKey(ctx, db, k.ID); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(CacheTTL + time.Millisecond)
	if _, err := a.Authenticate(ctx, k.Secret); !errs.Is(err, errs.InvalidCredentials) {
		t.Fatalf("the revoked key one TTL later: %v, want invalid_credentials", err)
	}
}
