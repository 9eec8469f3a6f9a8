package idempotency

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// TestOrphansReleaseTheirOwnMarkers: a pass releases each failed claim's
// marker, the key's only while it holds that marker (a later request's
// claim of the key stays), and stops once every marker was released twice.
func TestOrphansReleaseTheirOwnMarkers(t *testing.T) {
	ctx := context.Background()
	store := edge.NewMemory()
	o := &orphans{store: store, ttl: time.Minute, every: time.Hour, log: func(context.Context, error) {}}
	// The stalled claims ran after all: two keys hold failed claims'
	// markers; a third key was claimed afresh by a later request.
	for _, k := range []string{"a", "b"} {
		if _, ok, err := store.Claim(ctx, k, []byte("failed-"+k), time.Minute); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	if _, ok, err := store.Claim(ctx, "c", []byte("live"), time.Minute); err != nil || !ok {
		t.Fatal(ok, err)
	}
	o.pending = map[string]*orphan{}
	for _, k := range []string{"a", "b", "c"} {
		o.pending[k+"\x00failed-"+k] = &orphan{name: k, marker: []byte("failed-" + k), until: time.Now().Add(time.Minute)}
	}
	o.running = true
	if !o.pass(ctx) {
		t.Fatal("stopped after one pass: each marker is released twice")
	}
	for _, c := range []struct {
		key  string
		held bool
	}{{"a", false}, {"b", false}, {"c", true}} {
		v, _, _ := store.Claim(ctx, c.key, []byte("probe"), time.Minute)
		if (v != nil) != c.held {
			t.Errorf("key %s holds %q, want held %v", c.key, v, c.held)
		}
	}
	if o.pass(ctx) {
		t.Fatal("still running after the second answered attempt")
	}
}

// failingDelete fails DeleteIf while broken, as a Redis that stopped
// answering does.
type failingDelete struct {
	edge.Store
	broken atomic.Bool
}

func (s *failingDelete) DeleteIf(ctx context.Context, k string, v []byte) error {
	if s.broken.Load() {
		return edge.ErrUnavailable
	}
	return s.Store.DeleteIf(ctx, k, v)
}

// TestAFailedReleaseIsRetried: a request that executed nothing releases its
// marker on the way out; when that delete fails, the orphans' releaser
// takes the marker back once the store answers, instead of leaving the
// key's retries at 409 until the marker expires.
func TestAFailedReleaseIsRetried(t *testing.T) {
	ctx := context.Background()
	store := &failingDelete{Store: edge.NewMemory()}
	m := &Middleware{Config: Config{Store: store, LockTTL: time.Minute}, upkeep: telemetry.NewOutageLog(slog.New(slog.DiscardHandler), "test", time.Minute)}
	m.orphans = &orphans{store: store, ttl: time.Minute, every: time.Hour, log: func(context.Context, error) {}, running: true}
	if _, ok, err := store.Claim(ctx, "k", []byte("mine"), time.Minute); err != nil || !ok {
		t.Fatal(ok, err)
	}
	store.broken.Store(true)
	m.release(ctx, "k", []byte("mine"))
	store.broken.Store(false)
	if !m.orphans.pass(ctx) {
		t.Fatal("nothing pending after a failed release")
	}
	if v, _, _ := store.Claim(ctx, "k", []byte("retry"), time.Minute); v != nil {
		t.Fatalf("the key still holds %q", v)
	}
}

func TestLockTTLFor(t *testing.T) {
	tests := []struct {
		requestTimeout, want time.Duration
	}{
		{0, DefaultLockTTL},                // unbounded: no TTL would do
		{20 * time.Second, DefaultLockTTL}, // the default request timeout
		{DefaultLockTTL - lockMargin, DefaultLockTTL},
		{25 * time.Second, 35 * time.Second},
		{2 * time.Minute, 2*time.Minute + lockMargin},
	}
	for _, tt := range tests {
		if got := LockTTLFor(tt.requestTimeout); got != tt.want {
			t.Errorf("LockTTLFor(%s) = %s, want %s", tt.requestTimeout, got, tt.want)
		}
	}
}

// TestOrphansOutwaitAStall: while Redis does not answer, a stalled claim
// may still run and its marker live a TTL from then, so a marker whose TTL
// passed during the stall is still released once Redis answers; a pass
// stops at its first unanswered attempt.
func TestOrphansOutwaitAStall(t *testing.T) {
	ctx := context.Background()
	store := &failingDelete{Store: edge.NewMemory()}
	var tries atomic.Int64
	o := &orphans{store: store, ttl: time.Minute, every: time.Hour, running: true,
		log: func(context.Context, error) { tries.Add(1) }}
	now := time.Now()
	o.pending = map[string]*orphan{}
	for _, k := range []string{"a", "b", "c"} {
		// Claimed a TTL ago, in the stall's first second.
		o.pending[k+"\x00m"] = &orphan{name: k, marker: []byte("m"), until: now.Add(time.Second), giveUp: now.Add(time.Hour)}
	}
	store.broken.Store(true)
	if !o.pass(ctx) {
		t.Fatal("the markers were dropped while Redis did not answer")
	}
	if n := tries.Load(); n != 1 {
		t.Fatalf("%d attempts in a pass Redis did not answer, want 1", n)
	}
	for k, p := range o.pending {
		if !p.until.After(now.Add(o.ttl - time.Second)) {
			t.Fatalf("%s: expiry %s not moved a TTL on", k, p.until)
		}
	}
	store.broken.Store(false)
	// The stall ends and the stalled claims run.
	for _, k := range []string{"a", "b", "c"} {
		if _, ok, err := store.Claim(ctx, k, []byte("m"), time.Minute); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	o.pass(ctx)
	for _, k := range []string{"a", "b", "c"} {
		if v, _, _ := store.Claim(ctx, k, []byte("probe"), time.Minute); v != nil {
			t.Errorf("key %s still holds %q after the stall", k, v)
		}
	}
}

// TestReleasesAreNotCountedAsRefusals: the line about refused keyed writes
// counts refusals only (what eventapi_idempotency_unavailable_total
// counts). A marker the orphans' releaser cannot release refuses nothing:
// it is logged on a line of its own. It was counted with the refusals, so
// one refused write under a Redis outage showed as ten a second for up to
// ten minutes, while the releaser retried.
func TestReleasesAreNotCountedAsRefusals(t *testing.T) {
	var logged strings.Builder
	store := &failingDelete{Store: edge.NewMemory()}
	store.broken.Store(true)
	sealer, err := seal.New([]byte(strings.Repeat("k", seal.KeySize)))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMiddleware(Config{Store: store, Log: slog.New(slog.NewJSONHandler(&logged, nil)), Sealer: sealer})
	defer m.Close()
	m.orphans.pending = map[string]*orphan{"k\x00m": {name: "k", marker: []byte("m"), until: time.Now().Add(time.Minute), giveUp: time.Now().Add(time.Hour)}}
	m.orphans.running = true
	if !m.orphans.pass(context.Background()) {
		t.Fatal("the releaser stopped while its marker was not released")
	}
	if strings.Contains(logged.String(), "refusing keyed writes") || !strings.Contains(logged.String(), "markers not released") {
		t.Fatalf("a failed release logged %q; want the upkeep line, not the refusals'", logged.String())
	}
}
