package tenancy

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestSandboxRouting: a test key of an organization with a sandbox acts on
// the sandbox; every key acts in a sandbox (Sandbox, demo writes) when it
// is a test key or its organization is a sandbox (InSandbox), and on its
// own organization otherwise.
func TestSandboxRouting(t *testing.T) {
	db, _ := openCounted(t)
	ctx := context.Background()
	parent, _ := CreateOrganization(ctx, db, "Parent", nil)
	lonely, _ := CreateOrganization(ctx, db, "No sandbox", nil)
	sandbox, err := CreateOrganization(ctx, db, "Parent sandbox", &parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateOrganization(ctx, db, "second sandbox", &parent.ID); !errs.Is(err, errs.DuplicateRecord) {
		t.Fatalf("second sandbox: %v", err)
	}
	if _, err := CreateOrganization(ctx, db, "nested", &sandbox.ID); !errs.Is(err, errs.Validation) {
		t.Fatalf("nested sandbox: %v", err)
	}
	key := func(org *Organization, mode apikey.Mode) string {
		k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "k", Scopes: []Scope{EventsRead}, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		return k.Secret
	}
	a := NewAuthenticator(db, nil)
	defer a.Close()
	tests := []struct {
		name    string
		raw     string
		org     *Organization
		sandbox bool
	}{
		{"parent live key stays in parent", key(parent, apikey.Live), parent, false},
		{"parent legacy key stays in parent", key(parent, apikey.Legacy), parent, false},
		{"parent test key goes to sandbox", key(parent, apikey.Test), sandbox, true},
		{"test key without sandbox stays, marked demo", key(lonely, apikey.Test), lonely, true},
		{"sandbox live key acts in its sandbox, marked demo", key(sandbox, apikey.Live), sandbox, true},
		{"sandbox legacy key acts in its sandbox, marked demo", key(sandbox, apikey.Legacy), sandbox, true},
		{"sandbox test key acts in its sandbox", key(sandbox, apikey.Test), sandbox, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := a.Authenticate(ctx, tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if p.OrganizationID != tt.org.ID || p.Sandbox != tt.sandbox || p.Tenant().Demo != tt.sandbox {
				t.Fatalf("p = %+v, want org %s sandbox %v", p, tt.org.ID, tt.sandbox)
			}
		})
	}
	if got, err := SandboxOrganization(ctx, db, parent.ID); err != nil || got.ID != sandbox.ID {
		t.Fatalf("SandboxOrganization = %v, %v", got, err)
	}
}

// usedKey is a new key of a new organization, authenticated once by a's
// fresh Authenticator (p), on a database whose queries qc counts.
type usedKey struct {
	db *bun.DB
	qc *queryCounter
	k  *CreatedKey
	a  *Authenticator
	p  *Principal
}

func newUsedKey(t *testing.T) usedKey {
	t.Helper()
	db, qc := openCounted(t)
	ctx := context.Background()
	org, _ := CreateOrganization(ctx, db, "U", nil)
	k, _ := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "k", Scopes: []Scope{EventsRead}, Mode: apikey.Live})
	a := NewAuthenticator(db, nil)
	p, err := a.Authenticate(ctx, k.Secret)
	if err != nil {
		t.Fatal(err)
	}
	return usedKey{db, qc, k, a, p}
}

func TestLastUsedIsWrittenOffThePathAtMostOncePerMinute(t *testing.T) {
	u := newUsedKey(t)
	db, qc, k, a, p := u.db, u.qc, u.k, u.a, u.p
	ctx := context.Background()
	a.Used(p)
	before := qc.n.Load()
	for i := 0; i < 50; i++ {
		p, err := a.Authenticate(ctx, k.Secret)
		if err != nil {
			t.Fatal(err)
		}
		a.Used(p)
	}
	if qc.n.Load() != before {
		t.Fatal("authentication wrote last_used_at on the request path")
	}
	a.usage.mu.Lock()
	pending := len(a.usage.pending)
	a.usage.mu.Unlock()
	if pending != 1 {
		t.Fatalf("pending = %d, want 1 (one write per key per minute)", pending)
	}
	a.Close() // flushes
	got, err := GetKey(ctx, db, k.ID)
	if err != nil || got.LastUsedAt == nil {
		t.Fatalf("last_used_at not written: %+v %v", got, err)
	}
}

// TestLastUsedIsTheRequestsTime: the value written is the time of the key's
// most recent request before the write, not the time of the write (up to
// flushEvery later, and after a revocation made meanwhile).
func TestLastUsedIsTheRequestsTime(t *testing.T) {
	u := newUsedKey(t)
	db, k, a, p := u.db, u.k, u.a, u.p
	ctx := context.Background()
	first := time.Date(2026, 11, 29, 10, 0, 0, 123456000, time.UTC)
	latest := first.Add(20 * time.Second)
	for _, at := range []time.Time{first, latest, first.Add(10 * time.Second)} {
		a.now = func() time.Time { return at }
		a.Used(p)
	}
	a.Close() // flushes
	got, err := GetKey(ctx, db, k.ID)
	if err != nil || got.LastUsedAt == nil || !got.LastUsedAt.Equal(latest) {
		t.Fatalf("last_used_at %v (%v), want the latest request's time %v", got.LastUsedAt, err, latest)
	}
}

// TestLastUsedCatchesUp: a request within the interval of its key's last
// write is held, not dropped, and written once the interval has passed, so
// last_used_at ends at the key's most recent successful request. It was
// dropped, and a key whose traffic stopped a few seconds after a write
// showed that write's time, up to two minutes early, for good. (A short
// interval, so the catch-up comes within the test.)
func TestLastUsedCatchesUp(t *testing.T) {
	u := newUsedKey(t)
	ctx := context.Background()
	rec := newUsageRecorderEvery(u.db, nil, 300*time.Millisecond, 20*time.Millisecond)
	defer rec.close()
	stored := func() time.Time {
		k, err := GetKey(ctx, u.db, u.k.ID)
		if err != nil || k.LastUsedAt == nil {
			return time.Time{}
		}
		return *k.LastUsedAt
	}
	waitStored := func(want time.Time) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !stored().Equal(want); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("last_used_at %v, want %v", stored(), want)
			}
		}
	}
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	rec.touch(u.k.ID, t0)
	waitStored(t0)
	rec.touch(u.k.ID, t0.Add(5*time.Second))
	rec.touch(u.k.ID, t0.Add(6*time.Second))
	waitStored(t0.Add(6 * time.Second))
}
