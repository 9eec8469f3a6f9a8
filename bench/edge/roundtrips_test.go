package edge

import (
	"testing"
	"time"
)

// TestRoundTripBudget checks the Redis round trips per request, exactly, and
// that requests the edge layer answers alone run no SQL: it is the
// correctness side of the benchmarks, and fast.
func TestRoundTripBudget(t *testing.T) {
	f := setup(t)
	limiter := newClient(f.app(stack{limiter: true, limit: 1000, window: time.Minute}))
	keyed := newClient(f.app(stack{idempotency: true}))
	both := newClient(f.app(stack{limiter: true, idempotency: true, limit: 1000, window: time.Minute}))
	limiter.do("GET", "", nil) // the script may need loading once (EVALSHA, then EVAL)
	replayKey := freshKey(0)
	keyed.do("POST", replayKey, body)
	bothReplay := freshKey(1)
	both.do("POST", bothReplay, body)
	// The first keyed write of each middleware starts its background purge
	// of expired keys; let those statements finish before counting.
	for last := int64(-1); last != f.queries.n.Load(); {
		last = f.queries.n.Load()
		time.Sleep(200 * time.Millisecond)
	}

	tests := []struct {
		name   string
		send   func(i int) int
		status int
		trips  int64
		// sql is false when the request must run no statement at all.
		sql bool
	}{
		{"limiter: 1 per request", func(int) int { return limiter.do("GET", "", nil) }, 201, 1, false},
		{"idempotency, no header: 0", func(int) int { return keyed.do("POST", "", body) }, 201, 0, false},
		{"idempotency, GET with a key: 0", func(int) int { return keyed.do("GET", "k", nil) }, 201, 0, false},
		{"idempotency, fresh key: 2", func(i int) int { return keyed.do("POST", freshKey(i), body) }, 201, 2, true},
		{"idempotency, replay: 1", func(int) int { return keyed.do("POST", replayKey, body) }, 201, 1, false},
		{"limiter and idempotency, fresh key: 3", func(i int) int { return both.do("POST", freshKey(i), body) }, 201, 3, true},
		{"limiter and idempotency, replay: 2", func(int) int { return both.do("POST", bothReplay, body) }, 201, 2, false},
	}
	const n = 10
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, queries := f.trips.Load(), f.queries.n.Load()
			for i := 0; i < n; i++ {
				if got := tt.send(i); got != tt.status {
					t.Fatalf("request %d: status %d", i, got)
				}
			}
			if got := f.trips.Load() - before; got != tt.trips*n {
				t.Fatalf("%d round trips for %d requests, want %d each", got, n, tt.trips)
			}
			if q := f.queries.n.Load() - queries; !tt.sql && q != 0 {
				t.Fatalf("%d SQL statements for requests the edge layer answers alone", q)
			}
		})
	}
}
