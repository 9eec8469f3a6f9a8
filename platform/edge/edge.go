// Package edge holds the state the stateless API pods share at the edge: the
// sliding-window rate-limit counters and the idempotency records. Store has a
// Redis implementation (many instances) and an in-process one (a single
// instance, used when EVENTAPI_REDIS_URL is unset); both pass one contract
// suite (contract_test.go).
package edge

import (
	"context"
	"errors"
	"time"
)

// ErrUnavailable wraps failures to reach the backing store.
var ErrUnavailable = errors.New("edge store unavailable")

// Decision is the outcome of one Admit call.
type Decision struct {
	Allowed bool
	Limit   int
	// Remaining is how many more requests the window admits now.
	Remaining int
	// Reset is when the oldest counted request leaves the window (a slot
	// frees up); the current time when the window is empty.
	Reset time.Time
	// RetryAfter is how long a rejected caller should wait (0 when allowed).
	RetryAfter time.Duration
}

// Store is the shared edge state.
type Store interface {
	// Admit counts one request against key if fewer than limit requests were
	// admitted in the last window, atomically: an exact sliding window.
	// A rejected request is not counted.
	Admit(ctx context.Context, key string, limit int, window time.Duration) (Decision, error)
	// Claim stores value under key for ttl if key is absent and reports
	// claimed; if key is present it returns the stored value unchanged. It is
	// one atomic step (one round trip on Redis).
	Claim(ctx context.Context, key string, value []byte, ttl time.Duration) (existing []byte, claimed bool, err error)
	// SetNX stores value under key for ttl if key is absent; it reports whether it stored.
	SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// Set stores value under key for ttl, replacing any value.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns the value under key; ok is false when absent.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Delete removes key.
	Delete(ctx context.Context, key string) error
	// DeleteIf removes key only while it holds value, atomically (an
	// in-progress marker is released by its owner only, never after it
	// expired and another request claimed the key).
	DeleteIf(ctx context.Context, key string, value []byte) error
	// Ping checks the store answers.
	Ping(ctx context.Context) error
	// Close releases resources.
	Close() error
}
