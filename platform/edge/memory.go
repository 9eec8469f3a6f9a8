package edge

import (
	"bytes"
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// Memory is the in-process Store for a single instance. Its memory is
// bounded: a rate-limit bucket holds at most limit timestamps and is dropped
// once its newest entry leaves the window; values expire lazily on access
// and in sweeps that run at least every SweepEvery and whenever the number
// of stored values doubles since the last sweep; and the values held never
// take more than MemoryMaxBytes (valueSize). When a value would not fit,
// the values written by Set (completed Idempotency-Key records) are evicted,
// oldest first. Values written by Claim or SetNX (in-progress markers) are
// never evicted: that would let a second request claim the key and execute
// while the first still runs. A Claim or SetNX they leave no room for is
// refused with ErrUnavailable (docs/edge.md, "The in-process store").
type Memory struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets map[string]*bucket
	values  map[string]memValue
	// done lists the keys of the values written by Set, oldest first: the
	// eviction order.
	done *list.List
	// held is the size of every value held, claims the part of it taken by
	// values written by Claim and SetNX; maxBytes bounds held.
	held, claims, maxBytes int64
	// nextSweep is when the next periodic sweep is due; sweepAt the number of
	// entries that triggers one early.
	nextSweep time.Time
	sweepAt   int
}

// SweepEvery is the longest time between two sweeps of expired entries.
const SweepEvery = time.Minute

// minSweepAt is the entry count below which size never triggers a sweep.
const minSweepAt = 1024

// MemoryMaxBytes bounds the values a Memory holds, as counted by valueSize.
// A completed Idempotency-Key record is about 2 KiB, so it keeps the
// records of some 30,000 keyed writes. An evicted one costs its next retry a
// few database statements, never a second execution: PostgreSQL holds every
// completed keyed write, and a claim that finds no record meets the
// completed row and replays it (docs/edge.md, "Idempotency-Key" and "The in-process store").
const MemoryMaxBytes = 64 << 20

// valueOverhead estimates what holding one value costs besides its key and
// bytes: its map entry, slice header, expiry and place in the eviction list.
const valueOverhead = 128

type bucket struct {
	hits   []time.Time // admitted request times, oldest first
	window time.Duration
}

type memValue struct {
	v       []byte
	expires time.Time
	// done is the value's element in Memory.done; nil for a claim (Claim,
	// SetNX), which is never evicted.
	done *list.Element
}

// valueSize is what a value counts against MemoryMaxBytes.
func valueSize(key string, v []byte) int64 { return int64(len(key)+len(v)) + valueOverhead }

// NewMemory returns an empty in-process store.
func NewMemory() *Memory { return newMemory(time.Now) }

func newMemory(now func() time.Time) *Memory {
	return &Memory{now: now, buckets: map[string]*bucket{}, values: map[string]memValue{}, done: list.New(),
		maxBytes: MemoryMaxBytes, nextSweep: now().Add(SweepEvery), sweepAt: minSweepAt}
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
			m.remove(k)
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
		m.remove(key)
		return memValue{}, false
	}
	return v, ok
}

// put stores a copy of value under key, replacing any value, and counts it;
// a done value joins the eviction order as its newest.
func (m *Memory) put(key string, value []byte, expires time.Time, done bool) {
	m.remove(key)
	v := memValue{v: append([]byte(nil), value...), expires: expires}
	size := valueSize(key, v.v)
	m.held += size
	if done {
		v.done = m.done.PushBack(key)
	} else {
		m.claims += size
	}
	m.values[key] = v
}

// remove drops the value under key, if any, and its count.
func (m *Memory) remove(key string) {
	v, ok := m.values[key]
	if !ok {
		return
	}
	size := valueSize(key, v.v)
	m.held -= size
	if v.done != nil {
		m.done.Remove(v.done)
	} else {
		m.claims -= size
	}
	delete(m.values, key)
}

// evict drops the oldest done values until need more bytes fit under
// maxBytes, or none is left; claims are never evicted.
func (m *Memory) evict(need int64) {
	for m.held+need > m.maxBytes && m.done.Len() > 0 {
		m.remove(m.done.Front().Value.(string))
	}
}

// claim stores a claim's value unless the claims held leave it no room,
// evicting done values as needed; it reports ErrUnavailable otherwise, as
// the Redis store does when Redis refuses a write, so the keyed request is
// refused (503), never executed unguarded.
func (m *Memory) claim(key string, value []byte, expires time.Time) error {
	size := valueSize(key, value)
	if m.claims+size > m.maxBytes {
		return fmt.Errorf("%w: the in-process store is full of in-progress claims (%d bytes held, at most %d)",
			ErrUnavailable, m.claims, m.maxBytes)
	}
	m.evict(size)
	m.put(key, value, expires, false)
	return nil
}

// Claim implements Store. The value stored is a claim: never evicted.
func (m *Memory) Claim(_ context.Context, key string, value []byte, ttl time.Duration) ([]byte, bool, error) {
	now := m.lock()
	defer m.mu.Unlock()
	if v, ok := m.live(key, now); ok {
		return append([]byte(nil), v.v...), false, nil
	}
	if err := m.claim(key, value, now.Add(ttl)); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// SetNX implements Store. The value stored is a claim: never evicted.
func (m *Memory) SetNX(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	now := m.lock()
	defer m.mu.Unlock()
	if _, ok := m.live(key, now); ok {
		return false, nil
	}
	if err := m.claim(key, value, now.Add(ttl)); err != nil {
		return false, err
	}
	return true, nil
}

// Set implements Store. The value stored is done (a completed record): it
// is evicted, oldest first, when values need its room, itself last, so it
// is not kept at all when the claims held leave no room for it; a replaced
// claim is released either way.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	now := m.lock()
	defer m.mu.Unlock()
	m.put(key, value, now.Add(ttl), true)
	m.evict(0)
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
	m.remove(key)
	return nil
}

// DeleteIf implements Store.
func (m *Memory) DeleteIf(_ context.Context, key string, value []byte) error {
	now := m.lock()
	defer m.mu.Unlock()
	if v, ok := m.live(key, now); ok && bytes.Equal(v.v, value) {
		m.remove(key)
	}
	return nil
}

// Ping implements Store.
func (m *Memory) Ping(context.Context) error { return nil }

// Close implements Store.
func (m *Memory) Close() error { return nil }
