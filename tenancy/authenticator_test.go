package tenancy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestAuthenticate(t *testing.T) {
	db, qc := openCounted(t)
	ctx := context.Background()
	org, err := CreateOrganization(ctx, db, "Acme AV", nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "planner", Scopes: []Scope{EventsRead, PickListsWrite}, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuthenticator(db, nil)
	defer a.Close()
	clock := time.Now()
	a.now = func() time.Time { return clock }

	t.Run("malformed keys never reach the database", func(t *testing.T) {
		before := qc.n.Load()
		// The key with its last character changed (to one it is not).
		tampered := k.Secret[:len(k.Secret)-1] + "x"
		if tampered == k.Secret {
			tampered = k.Secret[:len(k.Secret)-1] + "y"
		}
		for _, raw := range []string{"", "nope", tampered, "sk_live_zz"} {
			if _, err := a.Authenticate(ctx, raw); !errs.Is(err, errs.InvalidCredentials) {
				t.Errorf("Authenticate(%q) = %v, want invalid_credentials", raw, err)
			}
		}
		if n := qc.n.Load() - before; n != 0 {
			t.Fatalf("malformed keys ran %d queries", n)
		}
	})

	t.Run("known key resolves once, then from cache", func(t *testing.T) {
		p, err := a.Authenticate(ctx, k.Secret)
		if err != nil {
			t.Fatal(err)
		}
		if p.OrganizationID != org.ID || !p.Scopes.Has(EventsRead) || !p.Scopes.Has(PickListsWrite) || p.Scopes.Has(EventsWrite) || p.Sandbox {
			t.Fatalf("principal = %+v", p)
		}
		before := qc.n.Load()
		for i := 0; i < 100; i++ {
			if _, err := a.Authenticate(ctx, k.Secret); err != nil {
				t.Fatal(err)
			}
		}
		if n := qc.n.Load() - before; n != 0 {
			t.Fatalf("cached key ran %d queries", n)
		}
	})

	t.Run("unknown well-formed key is refused", func(t *testing.T) {
		other, _ := apikey.Generate(apikey.Live)
		if _, err := a.Authenticate(ctx, other); !errs.Is(err, errs.InvalidCredentials) || refusalOf(err) != nil {
			t.Fatalf("err = %v (details %+v), want the plain 401", err, refusalOf(err))
		}
	})

	t.Run("revoked key is refused once the cache TTL passes", func(t *testing.T) {
		if err := RevokeKey(ctx, db, k.ID); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(CacheTTL + time.Millisecond)
		if _, err := a.Authenticate(ctx, k.Secret); !errs.Is(err, errs.InvalidCredentials) {
			t.Fatalf("revoked key accepted: %v", err)
		} else if r := refusalOf(err); r == nil || r.Reason != RefusedRevoked || r.ExpiredAt != nil {
			t.Fatalf("revoked key's details %+v, want reason revoked", r)
		}
		first, err := GetKey(ctx, db, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := RevokeKey(ctx, db, k.ID); err != nil {
			t.Fatalf("second revoke: %v", err)
		}
		again, err := GetKey(ctx, db, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !again.RevokedAt.Equal(*first.RevokedAt) || !again.UpdatedAt.Equal(first.UpdatedAt) {
			t.Fatalf("second revoke changed the key: revoked_at %v → %v, updated_at %v → %v",
				first.RevokedAt, again.RevokedAt, first.UpdatedAt, again.UpdatedAt)
		}
	})

	t.Run("expired key is refused", func(t *testing.T) {
		past := time.Now().Add(-time.Minute)
		ek, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "old", Scopes: []Scope{EventsRead}, Mode: apikey.Live, ExpiresAt: &past})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Authenticate(ctx, ek.Secret); !errs.Is(err, errs.InvalidCredentials) {
			t.Fatalf("expired key accepted: %v", err)
		} else if r := refusalOf(err); r == nil || r.Reason != RefusedExpired || r.ExpiredAt == nil || !r.ExpiredAt.Equal(past.Truncate(time.Microsecond)) {
			t.Fatalf("expired key's details %+v, want reason expired at %v", r, past)
		}
	})

	t.Run("a key that expires while cached says so", func(t *testing.T) {
		soon := clock.Add(time.Second)
		ck, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "soon", Scopes: []Scope{EventsRead}, Mode: apikey.Live, ExpiresAt: &soon})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Authenticate(ctx, ck.Secret); err != nil {
			t.Fatalf("before its expiry: %v", err)
		}
		clock = clock.Add(2 * time.Second)
		if _, err := a.Authenticate(ctx, ck.Secret); refusalOf(err) == nil || refusalOf(err).Reason != RefusedExpired {
			t.Fatalf("after its expiry: %v (details %+v), want reason expired", err, refusalOf(err))
		}
	})

	t.Run("scope change applies after the TTL", func(t *testing.T) {
		sk, _ := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "s", Scopes: []Scope{EventsRead}, Mode: apikey.Legacy})
		if _, err := a.Authenticate(ctx, sk.Secret); err != nil {
			t.Fatal(err)
		}
		if err := SetKeyScopes(ctx, db, sk.ID, []Scope{QuotesRead}); err != nil {
			t.Fatal(err)
		}
		if p, err := a.Authenticate(ctx, sk.Secret); err != nil || !p.Scopes.Has(EventsRead) {
			t.Fatalf("within the TTL: p = %+v, err = %v, want the cached scopes", p, err)
		}
		clock = clock.Add(CacheTTL + time.Millisecond)
		p, err := a.Authenticate(ctx, sk.Secret)
		if err != nil || !p.Scopes.Has(QuotesRead) || p.Scopes.Has(EventsRead) || p.Mode != apikey.Legacy {
			t.Fatalf("p = %+v, err = %v", p, err)
		}
	})
}

func TestKeysAreStoredAsHashesOnly(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	org, _ := CreateOrganization(ctx, db, "Hash Co", nil)
	k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "n", Scopes: []Scope{EventsRead}, Mode: apikey.Test})
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Hash   []byte
		Prefix string
	}
	if err := db.NewRaw("SELECT hash, prefix FROM api_keys WHERE id = ?", k.ID).Scan(ctx, &stored.Hash, &stored.Prefix); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte(k.Secret))
	if !bytes.Equal(stored.Hash, want[:]) || stored.Prefix != k.Secret[:12] {
		t.Fatalf("stored %x %q", stored.Hash, stored.Prefix)
	}
	var n int
	if err := db.NewRaw("SELECT count(*) FROM api_keys WHERE position(? in row_to_json(api_keys)::text) > 0", k.Secret).Scan(ctx, &n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("the full key is stored in plain text")
	}
}

func TestCreateKeyValidation(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	org, _ := CreateOrganization(ctx, db, "V", nil)
	tests := []struct {
		name string
		nk   NewKey
	}{
		{"bad mode", NewKey{OrganizationID: org.ID, Name: "x", Scopes: []Scope{EventsRead}, Mode: "prod"}},
		{"no name", NewKey{OrganizationID: org.ID, Name: " ", Scopes: []Scope{EventsRead}, Mode: apikey.Live}},
		{"no scopes", NewKey{OrganizationID: org.ID, Name: "x", Mode: apikey.Live}},
		{"unknown scope", NewKey{OrganizationID: org.ID, Name: "x", Scopes: []Scope{"root"}, Mode: apikey.Live}},
	}
	for _, tt := range tests {
		if _, err := CreateKey(ctx, db, tt.nk); !errs.Is(err, errs.Validation) {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
	if _, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "x", Scopes: []Scope{EventsRead}, Mode: apikey.Live, ExpiresAt: nil}); err != nil {
		t.Fatal(err)
	}
	// A scope named twice is stored once (CheckScopes), by CreateKey and
	// by SetKeyScopes.
	k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "x", Scopes: []Scope{EventsRead, ClientsRead, EventsRead}, Mode: apikey.Live})
	if err != nil || !slices.Equal(k.Scopes, []string{"events:read", "clients:read"}) {
		t.Fatalf("CreateKey with a duplicate scope: %v, %v", k, err)
	}
	if err := SetKeyScopes(ctx, db, k.ID, []Scope{ClientsRead, ClientsRead}); err != nil {
		t.Fatal(err)
	}
	if got, err := GetKey(ctx, db, k.ID); err != nil || !slices.Equal(got.Scopes, []string{"clients:read"}) {
		t.Fatalf("SetKeyScopes with a duplicate scope: %v, %v", got, err)
	}
}

// TestForgedKeyFloodKeepsValidKeysCached sends more forged well-formed keys
// than the unknown-key cache holds: a valid key must stay cached (no query).
func TestForgedKeyFloodKeepsValidKeysCached(t *testing.T) {
	db, qc := openCounted(t)
	ctx := context.Background()
	org, _ := CreateOrganization(ctx, db, "Flooded", nil)
	k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "real", Scopes: []Scope{EventsRead}, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	defer func(v int) { maxUnknownEntries = v }(maxUnknownEntries)
	maxUnknownEntries = 20
	a := NewAuthenticator(db, nil)
	defer a.Close()
	if _, err := a.Authenticate(ctx, k.Secret); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3*maxUnknownEntries; i++ {
		forged, _ := apikey.Generate(apikey.Live) // a valid checksum, no such key
		if _, err := a.Authenticate(ctx, forged); !errs.Is(err, errs.InvalidCredentials) {
			t.Fatalf("forged key: %v", err)
		}
	}
	a.mu.RLock()
	unknown := len(a.unknown)
	a.mu.RUnlock()
	if unknown > maxUnknownEntries {
		t.Fatalf("unknown-key cache grew to %d, bound %d", unknown, maxUnknownEntries)
	}
	before := qc.n.Load()
	if _, err := a.Authenticate(ctx, k.Secret); err != nil {
		t.Fatal(err)
	}
	if qc.n.Load() != before {
		t.Fatal("the flood evicted the valid key from the cache")
	}
}

// refusalOf returns the KeyRefusal details of a 401, nil when it has none.
func refusalOf(err error) *KeyRefusal {
	var e *errs.Error
	if !errors.As(err, &e) {
		return nil
	}
	if r, ok := e.Details.(KeyRefusal); ok {
		return &r
	}
	return nil
}
