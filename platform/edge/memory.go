package edge

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// Memory is the in-process Store for a single instance. Its memory is
// bounded: a rate-limit bucket holds at most limit timestamps and is dropped
// once its newest entry leaves the window, and values expire lazily on access
// and in sweeps that run at least every SweepEvery and whenever the number of
// stored values doubles since the last sweep.
type Memory struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets map[string]*bucket
	values  map[string]memValue
	// nextSweep is when the next periodic sweep is due; sweepAt the number of
	// entries that triggers one early.
	nextSweep time.Time
	sweepAt   int
}

// SweepEvery is the longest time between two sweeps of expired entries.
const SweepEvery = time.Minute

// minSweepAt is the entry count below which size never triggers a sweep.
const minSweepAt = 1024

type bucket struct {
	hits   []time.Time // admitted request times, oldest first
	window time.Duration
}

type memValue struct {
	v       []byte
	expires time.Time
}

// NewMemory returns an empty in-process store.
func NewMemory() *Memory { return newMemory(time.Now) }

func newMemory(now func() time.Time) *Memory {
	return &Memory{now: now, buckets: map[string]*bucket{}, values: map[string]memValue{},
		nextSweep: now().Add(SweepEvery), sweepAt: minSweepAt}
}

// lock takes the mutex and runs a sweep when one is due; it returns the time
// of the operation.
func (m *Memory) lock() time.Time {
	m.mu.Lock()
	now := m.now()
	if !now.Before(m.nextSweep) || len(m.values)+len(m.buckets) >= m.sweepAt {
		m.sweep(now)
	}
	return now
}

// sweep drops expired values and buckets with no request left in their window.
func (m *Memory) sweep(now time.Time) {
	for k, v := range m.values {
		if !now.Before(v.expires) {
			delete(m.values, k)
		}
	}
	for k, b := range m.buckets {
		if len(b.hits) == 0 || !now.Before(b.hits[len(b.hits)-1].Add(b.window)) {
			delete(m.buckets, k)
		}
	}
	m.nextSweep = now.Add(SweepEvery)
	m.sweepAt = max(minSweepAt, 2*(len(m.values)+len(m.buckets)))
}

// Len returns the number of rate-limit buckets and values held (for tests
// and metrics).
func (m *Memory) Len() (buckets, values int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.buckets), len(m.values)
}

// Admit implements Store.
func (m *Memory) Admit(_ context.Context, key string, limit int, window time.Duration) (Decision, error) {
	now := m.lock()
	defer m.mu.Unlock()
	b := m.buckets[key]
	if b == nil {
		b = &bucket{}
	}
	b.window = window
	cut := 0
	for cut < len(b.hits) && !b.hits[cut].After(now.Add(-window)) {
		cut++
	}
	// Dropping from the front and appending at the back: append reallocates
	// once the view reaches its capacity, so a bucket holds at most about
	// twice limit timestamps.
	b.hits = b.hits[cut:]
	d := Decision{Limit: limit}
	if len(b.hits) < limit {
		b.hits = append(b.hits, now)
		d.Allowed = true
	}
	d.Remaining = max(0, limit-len(b.hits))
	d.Reset = now
	if len(b.hits) > 0 {
		// The next slot frees when the count falls below the limit (a
		// lowered limit may leave more entries than it allows).
		d.Reset = b.hits[min(len(b.hits)-1, max(0, len(b.hits)-limit))].Add(window)
	}
	if !d.Allowed {
		d.RetryAfter = d.Reset.Sub(now)
	}
	if len(b.hits) == 0 {
		delete(m.buckets, key)
	} else {
		m.buckets[key] = b
	}
	return d, nil
}

func (m *Memory) live(key string, now time.Time) (memValue, bool) {
	v, ok := m.values[key]
	if ok && !now.Before(v.expires) {
		delete(m.values, key)
		return memValue{}, false
	}
	return v, ok
}

// Claim implements Store.
func (m *Memory) Claim(_ context.Context, key string, value []byte, ttl time.Duration) ([]byte, bool, error) {
	now := m.lock()
	defer m.mu.Unlock()
	if v, ok := m.live(key, now); ok {
		return append([]byte(nil), v.v...), false, nil
	}
	m.values[key] = memValue{v: append([]byte(nil), value...), expires: now.Add(ttl)}
	return nil, true, nil
}

// SetNX implements Store.
func (m *Memory) SetNX(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	now := m.lock()
	defer m.mu.Unlock()
	if _, ok := m.live(key, now); ok {
		return false, nil
	}
	m.values[key] = memValue{v: append([]byte(nil), value...), expires: now.Add(ttl)}
	return true, nil
}

// Set implements Store.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	now := m.lock()
	defer m.mu.Unlock()
	m.values[key] = memValue{v: append([]byte(nil), value...), expires: now.Add(ttl)}
	return nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	now := m.lock()
	defer m.mu.Unlock()
	v, ok := m.live(key, now)
	if !ok {
		return nil, false, nil
	}
	return append([]byte(nil), v.v...), true, nil
}

// Delete implements Store.
func (m *Memory) Delete(_ context.Context, key string) error {
	m.lock()
	defer m.mu.Unlock()
	delete(m.values, key)
	return nil
}

// DeleteIf implements Store.
func (m *Memory) DeleteIf(_ context.Context, key string, value []byte) error {
	now := m.lock()
	defer m.mu.Unlock()
	if v, ok := m.live(key, now); ok && bytes.Equal(v.v, value) {
		delete(m.values, key)
	}
	return nil
}

// Ping implements Store.
func (m *Memory) Ping(context.Context) error { return nil }

// Close implements Store.
func (m *Memory) Close() error { return nil }
