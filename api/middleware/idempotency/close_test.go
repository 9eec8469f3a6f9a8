package idempotency

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
)

// stalledPurge holds the purge's statement until its context ends, and
// records that the statement has returned.
type stalledPurge struct {
	started chan struct{}
	once    sync.Once
	ended   atomic.Bool
}

func (h *stalledPurge) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if strings.Contains(e.Query, "DELETE FROM idempotency_keys") {
		h.once.Do(func() { close(h.started) })
		<-ctx.Done()
	}
	return ctx
}

func (h *stalledPurge) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.Contains(e.Query, "DELETE FROM idempotency_keys") {
		h.ended.Store(true)
	}
}

func testSealer(t *testing.T) *seal.Sealer {
	t.Helper()
	sealer, err := seal.New([]byte(strings.Repeat("k", seal.KeySize)))
	if err != nil {
		t.Fatal(err)
	}
	return sealer
}

// waitClosed waits for done, which closes when Close returned, and fails
// the test after a minute.
func waitClosed(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("Close did not return: %s", what)
	}
}

// TestCloseWaitsForAPurgeInFlight: Close cancels the background purge and
// returns only once it has ended, so it never runs against a closed pool;
// a purge cut short so is not logged as a failure.
func TestCloseWaitsForAPurgeInFlight(t *testing.T) {
	hook := &stalledPurge{started: make(chan struct{})}
	var logged strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), nil))
	m := NewMiddleware(Config{Store: edge.NewMemory(), DB: pgtest.Open(t).WithQueryHook(hook), Log: log, Sealer: testSealer(t)})
	m.maybePurge()
	select {
	case <-hook.started:
	case <-time.After(time.Minute):
		t.Fatal("the purge did not start")
	}
	closed := make(chan struct{})
	go func() { m.Close(); close(closed) }()
	waitClosed(t, closed, "the purge in flight was not cancelled")
	if !hook.ended.Load() {
		t.Fatal("Close returned while the purge was still running")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(logged.String(), "purge") {
		t.Fatalf("a purge cut short by Close was logged: %s", logged.String())
	}
}

// writerFunc is an io.Writer made of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestCloseEndsTheOrphansLoop: the orphans' releaser, waiting for its next
// pass while Redis does not answer, ends when the middleware closes, and
// nothing starts it again after.
func TestCloseEndsTheOrphansLoop(t *testing.T) {
	store := &failingDelete{Store: edge.NewMemory()}
	store.broken.Store(true)
	m := NewMiddleware(Config{Store: store, Sealer: testSealer(t)})
	m.orphans.every = time.Hour
	m.orphans.add("k", []byte("m"))
	m.orphans.mu.Lock()
	running := m.orphans.running
	m.orphans.mu.Unlock()
	if !running {
		t.Fatal("the releaser did not start")
	}
	closed := make(chan struct{})
	go func() { m.Close(); close(closed) }()
	waitClosed(t, closed, "the orphans' loop did not end")

	m.orphans.add("k2", []byte("m"))
	m.maybePurge()
	if m.background.start(func(context.Context) {}) {
		t.Fatal("a goroutine started after Close")
	}
}
