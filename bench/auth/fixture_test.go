package auth

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestMain runs the package and drops its database; the shared pool is
// closed first so the drop does not wait on it.
func TestMain(m *testing.M) { pgtest.Main(closing{m}) }

type closing struct{ m *testing.M }

func (c closing) Run() int {
	code := c.m.Run()
	if shared != nil {
		_ = shared.db.Close()
	}
	return code
}

// fixture is one migrated database, shared by every test and benchmark of
// the package (a benchmark function runs several times while b.N grows, so
// it must not create a database per call).
type fixture struct {
	db      *bun.DB
	queries *QueryCounter
	org     uuid.UUID
	// known is a live key stored in the database; unknown is well formed
	// (its checksum is right) but stored nowhere.
	known, unknown string
}

var (
	sharedOnce sync.Once
	shared     *fixture
)

func setup(tb testing.TB) *fixture {
	tb.Helper()
	sharedOnce.Do(func() {
		ctx := context.Background()
		db, err := database.Open(ctx, pgtest.NewDatabase(tb), database.Options{MaxOpenConns: 10})
		if err != nil {
			tb.Fatalf("open database: %v", err)
		}
		f := &fixture{queries: &QueryCounter{}}
		db = db.WithQueryHook(f.queries)
		f.db = db
		org, err := tenancy.CreateOrganization(ctx, db, "bench auth", nil)
		if err != nil {
			tb.Fatalf("create organization: %v", err)
		}
		f.org = org.ID
		f.known, _ = newKey(tb, f)
		if f.unknown, err = apikey.Generate(apikey.Live); err != nil {
			tb.Fatal(err)
		}
		shared = f
	})
	if shared == nil {
		tb.Fatal("fixture setup failed earlier in this run")
	}
	return shared
}

// newKey stores a live key with every scope and returns its secret and id.
func newKey(tb testing.TB, f *fixture) (string, uuid.UUID) {
	tb.Helper()
	k, err := tenancy.CreateKey(context.Background(), f.db, tenancy.NewKey{
		OrganizationID: f.org, Name: "bench key", Scopes: tenancy.AllScopes, Mode: apikey.Live})
	if err != nil {
		tb.Fatalf("create key: %v", err)
	}
	return k.Secret, k.ID
}

// newAuthenticator returns an Authenticator on the fixture, closed (its
// last_used_at writer flushed and stopped) when tb ends.
func newAuthenticator(tb testing.TB, f *fixture) *tenancy.Authenticator {
	a := tenancy.NewAuthenticator(f.db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	tb.Cleanup(a.Close)
	return a
}

// newUncachedAuthenticator is newAuthenticator with no cache (CacheTTL 0):
// every call looks the key up.
func newUncachedAuthenticator(tb testing.TB, f *fixture) *tenancy.Authenticator {
	a := tenancy.NewAuthenticatorWith(f.db, slog.New(slog.NewTextHandler(io.Discard, nil)),
		tenancy.AuthenticatorConfig{CacheTTL: 0})
	tb.Cleanup(a.Close)
	return a
}

// malformedKeys are refused by form alone. The bad checksum case is the
// costliest: the whole key is scanned and its CRC32 computed.
func malformedKeys(known string) []struct{ name, key string } {
	flipped := []byte(known)
	last := len(flipped) - 1
	if flipped[last] == 'A' {
		flipped[last] = 'B'
	} else {
		flipped[last] = 'A'
	}
	legacy := make([]byte, 64)
	for i := range legacy {
		legacy[i] = 'z'
	}
	return []struct{ name, key string }{
		{"empty", ""},
		{"wrong_prefix", "xyz_live_" + known[len("svc_live_"):]},
		{"too_short", known[:20]},
		{"bad_checksum", string(flipped)},
		{"legacy_not_hex", "sk_live_" + string(legacy)},
	}
}

func isInvalidCredentials(err error) bool { return errs.Is(err, errs.InvalidCredentials) }
