package idempotency

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// takeoverApp is a testApp whose POST /api/v2/clients inserts a client
// named by the body and counts its runs; beforeTx, when set, is
// Config.BeforeTx.
type takeoverApp struct {
	app   *fiber.App
	db    *bun.DB
	org   uuid.UUID
	store edge.Store
	runs  atomic.Int32
	// failNext makes the handler's next run answer 503.
	failNext atomic.Bool
}

func newTakeoverApp(t *testing.T, beforeTx func(c *fiber.Ctx) Wait) *takeoverApp {
	t.Helper()
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Taken over", nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &takeoverApp{db: db, org: org.ID, store: edge.NewMemory()}
	env := &rest.Env{DB: db}
	a.app = testApp(t, org.ID, Config{Store: a.store, DB: db, BeforeTx: beforeTx}, func(app *fiber.App) {
		app.Post("/api/v2/clients", func(c *fiber.Ctx) error {
			a.runs.Add(1)
			if a.failNext.CompareAndSwap(true, false) {
				return &errs.Error{Code: errs.ServiceUnavailable, Message: "failing on purpose", RetryAfter: 1}
			}
			if _, err := env.Conn(c.UserContext()).NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, ?)",
				org.ID, string(c.Body())).Exec(c.UserContext()); err != nil {
				return database.Error(err)
			}
			return c.Status(201).SendString(`{"data":{"name":"made"}}`)
		})
	})
	return a
}

// leaveMarker puts an earlier attempt's in-progress marker for key and
// body into the edge store, as a process that claimed the key leaves it.
func (a *takeoverApp) leaveMarker(t *testing.T, key, body string) []byte {
	t.Helper()
	marker := record{State: stateRunning, Fingerprint: Fingerprint("POST", "/api/v2/clients", []byte(body)),
		Owner: "earlier-attempt"}.encode()
	if _, claimed, err := a.store.Claim(context.Background(), StoreKey(a.org, key), marker, DefaultLockTTL); err != nil || !claimed {
		t.Fatalf("leaving the marker: claimed %v, %v", claimed, err)
	}
	return marker
}

func (a *takeoverApp) clients(t *testing.T, name string) int {
	t.Helper()
	var n int
	err := a.db.NewSelect().TableExpr("clients").ColumnExpr("count(*)").Where("organization_id = ? AND name = ?", a.org, name).Scan(context.Background(), &n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestADeadAttemptsKeyIsTakenOver: a retry that meets an earlier
// attempt's in-progress marker and no committed row executes at once when
// no transaction holds the key's row (the attempt died before its COMMIT,
// and PostgreSQL rolled it back), instead of answering 409
// idempotency_key_in_use until the marker's TTL (docs/edge.md,
// "Crash-safe design").
func TestADeadAttemptsKeyIsTakenOver(t *testing.T) {
	a := newTakeoverApp(t, nil)
	body := "dead owner"
	a.leaveMarker(t, "k-dead", body)
	first := send(t, a.app, "POST", "/api/v2/clients", "k-dead", body)
	if first.status != 201 || first.header.Get(HeaderReplayed) != "" {
		t.Fatalf("retry after a dead attempt: %d %s (replayed %q), want 201 executed", first.status, first.body, first.header.Get(HeaderReplayed))
	}
	again := send(t, a.app, "POST", "/api/v2/clients", "k-dead", body)
	if again.status != 201 || again.header.Get(HeaderReplayed) != "true" {
		t.Fatalf("the next retry: %d %s, want the replay", again.status, again.body)
	}
	if n := a.clients(t, body); n != 1 || a.runs.Load() != 1 {
		t.Fatalf("%d clients, %d runs; want 1 and 1", n, a.runs.Load())
	}
	// Another body under the key is still the other request.
	if other := send(t, a.app, "POST", "/api/v2/clients", "k-dead", "other"); other.status != 409 ||
		!strings.Contains(other.body, "idempotency_key_mismatch") {
		t.Fatalf("another body: %d %s, want 409 idempotency_key_mismatch", other.status, other.body)
	}
}

// TestARunningAttemptKeepsItsKey: while the earlier attempt's transaction
// holds the key's row, a retry is 409 idempotency_key_in_use, runs
// nothing and leaves that attempt's marker; once the transaction rolls
// back (the attempt died), the next retry executes.
func TestARunningAttemptKeepsItsKey(t *testing.T) {
	ctx := context.Background()
	var slots atomic.Int32
	a := newTakeoverApp(t, func(*fiber.Ctx) Wait {
		return func() (func(), error) { slots.Add(1); return func() {}, nil }
	})
	body := "live owner"
	marker := a.leaveMarker(t, "k-live", body)
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.NewRaw("INSERT INTO idempotency_keys (organization_id, key, fingerprint) VALUES (?, ?, ?)",
		a.org, "k-live", Fingerprint("POST", "/api/v2/clients", []byte(body))).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	busy := send(t, a.app, "POST", "/api/v2/clients", "k-live", body)
	if busy.status != 409 || !strings.Contains(busy.body, "idempotency_key_in_use") || busy.header.Get("Retry-After") != "1" {
		t.Fatalf("retry while the attempt runs: %d %s, want 409 idempotency_key_in_use", busy.status, busy.body)
	}
	if a.runs.Load() != 0 || slots.Load() != 0 {
		t.Fatalf("the retry ran its handler %d times and took %d write slots while the earlier attempt held the key; want neither",
			a.runs.Load(), slots.Load())
	}
	if kept, ok, err := a.store.Get(ctx, StoreKey(a.org, "k-live")); err != nil || !ok || string(kept) != string(marker) {
		t.Fatalf("the earlier attempt's marker after the 409: %q (present %v, %v), want it kept", kept, ok, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	after := send(t, a.app, "POST", "/api/v2/clients", "k-live", body)
	if after.status != 201 || a.clients(t, body) != 1 {
		t.Fatalf("retry after the attempt rolled back: %d %s, %d clients; want 201 and 1", after.status, after.body, a.clients(t, body))
	}
}

// TestASlowAttemptReplaysItsTakeover: an attempt still alive but not yet
// at its INSERT (here held before its transaction, as a write waits for
// its bulkhead slot) is taken over by its retry; when it goes on, it
// meets the retry's committed row and replays that answer: the write runs
// once.
func TestASlowAttemptReplaysItsTakeover(t *testing.T) {
	held, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	a := newTakeoverApp(t, func(*fiber.Ctx) Wait {
		if calls.Add(1) != 1 {
			return nil
		}
		return func() (func(), error) {
			close(held)
			<-release
			return func() {}, nil
		}
	})
	body := "slow owner"
	slow := make(chan answer, 1)
	go func() { slow <- send(t, a.app, "POST", "/api/v2/clients", "k-slow", body) }()
	<-held
	retry := send(t, a.app, "POST", "/api/v2/clients", "k-slow", body)
	close(release)
	first := <-slow
	if retry.status != 201 || retry.header.Get(HeaderReplayed) != "" {
		t.Fatalf("the retry: %d %s, want 201 executed", retry.status, retry.body)
	}
	if first.status != 201 || first.header.Get(HeaderReplayed) != "true" || first.body != retry.body {
		t.Fatalf("the slow attempt: %d %s (replayed %q), want the retry's answer replayed", first.status, first.body, first.header.Get(HeaderReplayed))
	}
	if n := a.clients(t, body); n != 1 || a.runs.Load() != 1 {
		t.Fatalf("%d clients, %d runs; want 1 and 1", n, a.runs.Load())
	}
}

// TestATakeoverThatFailsKeepsTheMarker: a retry that took a key over and
// then failed (a 5xx) leaves the earlier attempt's marker where it was,
// since that attempt may still be alive, short of its INSERT; the next
// retry takes the key over again and executes.
func TestATakeoverThatFailsKeepsTheMarker(t *testing.T) {
	ctx := context.Background()
	a := newTakeoverApp(t, nil)
	body := "failing takeover"
	marker := a.leaveMarker(t, "k-fail", body)
	a.failNext.Store(true)
	if failed := send(t, a.app, "POST", "/api/v2/clients", "k-fail", body); failed.status != 503 {
		t.Fatalf("the failing takeover: %d %s, want its 503", failed.status, failed.body)
	}
	if kept, ok, err := a.store.Get(ctx, StoreKey(a.org, "k-fail")); err != nil || !ok || string(kept) != string(marker) {
		t.Fatalf("the earlier attempt's marker after the failed takeover: %q (present %v, %v), want it kept", kept, ok, err)
	}
	if again := send(t, a.app, "POST", "/api/v2/clients", "k-fail", body); again.status != 201 || a.clients(t, body) != 1 {
		t.Fatalf("the next retry: %d %s, %d clients; want 201 and 1", again.status, again.body, a.clients(t, body))
	}
}

// TestTwoTakeoversDoNotWaitForEachOther (found by a review): two retries
// of a key whose earlier attempt holds no row both pass idempotency.OwnerRunning's
// probe while they wait for their write slots. The one that opens second
// does not wait, holding its slot and a pool connection, for the whole
// run of the first: its INSERT is bounded too (OpenWithin), and it gets
// 409 idempotency_key_in_use; the first then executes, once. The bound
// below is a hang detector: the second, unbounded, waited as long as the
// first's handler is held, which is until the test ends.
func TestTwoTakeoversDoNotWaitForEachOther(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Two takeovers", nil)
	if err != nil {
		t.Fatal(err)
	}
	store := edge.NewMemory()
	env := &rest.Env{DB: db}
	// BeforeTx: each takeover waits here (as for a write slot) until both
	// have passed the probe.
	var arrived sync.WaitGroup
	arrived.Add(2)
	beforeTx := func(*fiber.Ctx) Wait {
		return func() (func(), error) { arrived.Done(); arrived.Wait(); return func() {}, nil }
	}
	hold := make(chan struct{})
	var runs atomic.Int32
	app := testApp(t, org.ID, Config{Store: store, DB: db, BeforeTx: beforeTx}, func(app *fiber.App) {
		app.Post("/api/v2/clients", func(c *fiber.Ctx) error {
			runs.Add(1)
			<-hold // a slow handler: the first takeover holds the key's row
			if _, err := env.Conn(c.UserContext()).NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, ?)",
				org.ID, string(c.Body())).Exec(c.UserContext()); err != nil {
				return database.Error(err)
			}
			return c.Status(201).SendString(`{"data":{"name":"made"}}`)
		})
	})
	body := "pair"
	marker := record{State: stateRunning, Fingerprint: Fingerprint("POST", "/api/v2/clients", []byte(body)), Owner: "dead"}.encode()
	if _, ok, err := store.Claim(ctx, StoreKey(org.ID, "k-pair"), marker, DefaultLockTTL); err != nil || !ok {
		t.Fatal(ok, err)
	}
	answers := make(chan answer, 2)
	for range 2 {
		go func() { answers <- send(t, app, "POST", "/api/v2/clients", "k-pair", body) }()
	}
	released := false
	defer func() {
		if !released {
			close(hold)
		}
	}()
	select {
	case a := <-answers:
		if a.status != 409 {
			t.Fatalf("the second takeover: %d %s, want 409 idempotency_key_in_use", a.status, a.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("after 30 s neither takeover has answered (handler runs %d): the second waits for the first's row "+
			"with its slot and a connection", runs.Load())
	}
	close(hold)
	released = true
	if first := <-answers; first.status != 201 || runs.Load() != 1 {
		t.Fatalf("the first takeover: %d %s after %d runs, want 201 and one run", first.status, first.body, runs.Load())
	}
}
