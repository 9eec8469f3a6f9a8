package auth

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/tenancy"
)

// These tests are the correctness side of the benchmarks. They are quick
// (the revocation one waits at most tenancy.CacheTTL) and run in make test.

func TestMalformedKeysRunNoQuery(t *testing.T) {
	f := setup(t)
	a := newAuthenticator(t, f)
	for _, k := range malformedKeys(f.known) {
		t.Run(k.name, func(t *testing.T) {
			before := f.queries.Total()
			_, err := a.Authenticate(context.Background(), k.key)
			if !isInvalidCredentials(err) {
				t.Fatalf("got %v, want invalid_credentials", err)
			}
			if n := f.queries.Total() - before; n != 0 {
				t.Fatalf("a malformed key ran %d queries, want 0", n)
			}
		})
	}
}

// cacheRefreshBound is how many lookups a cached key may cause over elapsed:
// one per started tenancy.CacheTTL period after the priming lookup. On a fast
// run it is 0; a stalled machine only allows the refreshes the TTL permits.
func cacheRefreshBound(elapsed time.Duration) int64 {
	return int64(elapsed / tenancy.CacheTTL)
}

func TestCachedKeyRunsNoQuery(t *testing.T) {
	for _, c := range []struct {
		name string
		key  func(*fixture) string
		ok   bool
	}{
		{"known", func(f *fixture) string { return f.known }, true},
		{"unknown_negative_cache", func(f *fixture) string { return f.unknown }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := setup(t)
			a := newAuthenticator(t, f)
			ctx := context.Background()
			before := f.queries.Selects()
			if _, err := a.Authenticate(ctx, c.key(f)); (err == nil) != c.ok {
				t.Fatalf("first call: %v", err)
			}
			if n := f.queries.Selects() - before; n != 1 {
				t.Fatalf("first call ran %d lookups, want 1", n)
			}
			start, primed := time.Now(), f.queries.Selects()
			for range 1000 {
				if _, err := a.Authenticate(ctx, c.key(f)); (err == nil) != c.ok {
					t.Fatalf("cached call: %v", err)
				}
			}
			elapsed := time.Since(start)
			if n, bound := f.queries.Selects()-primed, cacheRefreshBound(elapsed); n > bound {
				t.Fatalf("1000 cached calls in %v ran %d lookups, want at most %d", elapsed, n, bound)
			}
		})
	}
}

// TestRevokedKeyRefusedWithinTTL revokes a cached key and polls it: it may
// still be accepted from the cache, but never by a call that starts later
// than tenancy.CacheTTL after the revocation began. It logs when the first
// refusal came.
func TestRevokedKeyRefusedWithinTTL(t *testing.T) {
	f := setup(t)
	a := newAuthenticator(t, f)
	ctx := context.Background()
	key, id := newKey(t, f)
	mustAuth(t, a, key)
	revoked := time.Now()
	if err := tenancy.RevokeKey(ctx, f.db, id); err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for {
		call := time.Now()
		_, err := a.Authenticate(ctx, key)
		if err != nil {
			if !isInvalidCredentials(err) {
				t.Fatalf("got %v, want invalid_credentials", err)
			}
			t.Logf("refused %v after the revocation began (cache TTL %v; %d calls accepted from the cache before)",
				call.Sub(revoked).Round(time.Millisecond), tenancy.CacheTTL, accepted)
			break
		}
		if late := call.Sub(revoked); late > tenancy.CacheTTL {
			t.Fatalf("revoked key accepted by a call %v after the revocation (TTL %v)", late, tenancy.CacheTTL)
		}
		accepted++
		time.Sleep(5 * time.Millisecond)
	}
	for range 3 {
		if _, err := a.Authenticate(ctx, key); !isInvalidCredentials(err) {
			t.Fatalf("revoked key accepted again: %v", err)
		}
	}
}

// TestUncachedRefusesRevokedKeyAtOnce: with no cache (the miss benchmarks'
// authenticator) the very next call after a revocation looks the key up and
// is refused.
func TestUncachedRefusesRevokedKeyAtOnce(t *testing.T) {
	f := setup(t)
	a := newUncachedAuthenticator(t, f)
	ctx := context.Background()
	key, id := newKey(t, f)
	mustAuth(t, a, key)
	if err := tenancy.RevokeKey(ctx, f.db, id); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate(ctx, key); !isInvalidCredentials(err) {
		t.Fatalf("after the revocation: got %v, want invalid_credentials", err)
	}
}

// TestUncachedPicksUpScopeChange: with no cache a narrowed key holds only its
// new scopes on the next call.
func TestUncachedPicksUpScopeChange(t *testing.T) {
	f := setup(t)
	a := newUncachedAuthenticator(t, f)
	ctx := context.Background()
	key, id := newKey(t, f)
	mustAuth(t, a, key)
	if err := tenancy.SetKeyScopes(ctx, f.db, id, []tenancy.Scope{tenancy.ClientsRead}); err != nil {
		t.Fatal(err)
	}
	p, err := a.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	want := tenancy.NewScopeSet(tenancy.ClientsRead)
	if p.Scopes != want {
		t.Fatalf("scopes after the change: got %v, want %v", p.Scopes, want)
	}
}

// TestUncachedLooksUpEveryCall is what the miss benchmarks rely on: every
// call, known key or unknown, runs one lookup.
func TestUncachedLooksUpEveryCall(t *testing.T) {
	f := setup(t)
	a := newUncachedAuthenticator(t, f)
	ctx := context.Background()
	for _, key := range []string{f.known, f.unknown} {
		before := f.queries.Selects()
		for range 10 {
			_, _ = a.Authenticate(ctx, key)
		}
		if n := f.queries.Selects() - before; n != 10 {
			t.Fatalf("10 uncached calls ran %d lookups, want 10", n)
		}
	}
}
