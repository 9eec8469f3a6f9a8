package tenancy

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// holdLookup holds the first key lookup, before its query is sent or after
// it returned, until release is closed; entered is closed when it is held.
// It stands for a slow database or a starved process, which cannot be had
// for real on demand.
type holdLookup struct {
	after            bool
	once             *sync.Once
	entered, release chan struct{}
}

func newHoldLookup(after bool) holdLookup {
	return holdLookup{after: after, once: new(sync.Once), entered: make(chan struct{}), release: make(chan struct{})}
}

func (h holdLookup) hold(e *bun.QueryEvent) {
	if strings.Contains(e.Query, "FROM auth_epoch x") {
		h.once.Do(func() {
			close(h.entered)
			<-h.release
		})
	}
}

func (h holdLookup) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if !h.after {
		h.hold(e)
	}
	return ctx
}

func (h holdLookup) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if h.after {
		h.hold(e)
	}
}

// heldKey makes a key of a new organization and an Authenticator over a
// database whose first key lookup hold holds.
func heldKey(t *testing.T, hold holdLookup) (*bun.DB, *Authenticator, *CreatedKey) {
	t.Helper()
	ctx := context.Background()
	db := pgtest.Open(t).WithQueryHook(hold)
	org, err := CreateOrganization(ctx, db, "Held AV", nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := CreateKey(ctx, db, NewKey{OrganizationID: org.ID, Name: "k", Scopes: []Scope{EventsRead}, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuthenticator(db, nil)
	t.Cleanup(a.Close)
	announceJoins(a)
	return db, a, k
}

// joining tells when a caller has joined the lookup in flight: its context
// is marked, and the authenticator's joined hook, which share calls once
// DoChan counts the caller among the lookup's waiters, closes joined for
// it. Other callers (the first, holding the lookup) are not marked.
type joining struct {
	once   sync.Once
	joined chan struct{}
}

type joiningKey struct{}

// newJoining returns the marked context of the caller to watch.
func newJoining(ctx context.Context) (context.Context, *joining) {
	j := &joining{joined: make(chan struct{})}
	return context.WithValue(ctx, joiningKey{}, j), j
}

// announceJoins sets a's hook to close the joined channel of a marked
// caller; set before any caller runs.
func announceJoins(a *Authenticator) {
	a.joined = func(ctx context.Context) {
		if w, ok := ctx.Value(joiningKey{}).(*joining); ok {
			w.once.Do(func() { close(w.joined) })
		}
	}
}

// await waits until the caller of j joined the lookup in flight, or fails
// the test after a deadline (the caller never came to wait for it).
func (j *joining) await(t *testing.T) {
	t.Helper()
	select {
	case <-j.joined:
	case <-time.After(10 * time.Second):
		t.Fatal("the second caller did not join the lookup in flight")
	}
}

// TestASlowSharedLookupIsNotTakenPastTheTTL: a caller that arrives more
// than the TTL after a lookup in flight was sent, and after the key was
// revoked, does not take that lookup's answer (its snapshot predates the
// revocation): it looks the key up again and is refused. Sharing it let a
// revoked key in past the TTL's bound.
func TestASlowSharedLookupIsNotTakenPastTheTTL(t *testing.T) {
	ctx := context.Background()
	hold := newHoldLookup(true)
	db, a, k := heldKey(t, hold)
	var mu sync.Mutex
	clock := time.Now()
	a.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }

	first := make(chan error, 1)
	go func() { _, err := a.Authenticate(ctx, k.Secret); first <- err }()
	<-hold.entered // the lookup read the key, still live
	if err := RevokeKey(ctx, db, k.ID); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	clock = clock.Add(CacheTTL + time.Millisecond)
	mu.Unlock()
	second := make(chan error, 1)
	joinCtx, join := newJoining(ctx)
	go func() { _, err := a.Authenticate(joinCtx, k.Secret); second <- err }()
	join.await(t)
	close(hold.release)
	if err := <-first; err != nil {
		t.Fatalf("the first caller: %v, want the key as its lookup read it", err)
	}
	if err := <-second; !errs.Is(err, errs.InvalidCredentials) {
		t.Fatalf("the caller that came a TTL after the lookup was sent, after the revocation: %v, want invalid_credentials", err)
	}
}

// TestOneCallersCancellationFailsNoOther: a lookup shared by two callers
// runs on its own context, so the first caller's cancellation ends its
// own wait only; the second gets the key. It ran on the first caller's
// context, and both got 503.
func TestOneCallersCancellationFailsNoOther(t *testing.T) {
	ctx := context.Background()
	hold := newHoldLookup(false)
	_, a, k := heldKey(t, hold)

	cctx, cancel := context.WithCancel(ctx)
	first := make(chan error, 1)
	go func() { _, err := a.Authenticate(cctx, k.Secret); first <- err }()
	<-hold.entered
	second := make(chan error, 1)
	joinCtx, join := newJoining(ctx)
	go func() { _, err := a.Authenticate(joinCtx, k.Secret); second <- err }()
	join.await(t)
	cancel()
	close(hold.release)
	<-first // cancelled: its outcome is not what this test is about
	if err := <-second; err != nil {
		t.Fatalf("the caller that was not cancelled: %v, want the key", err)
	}
}
