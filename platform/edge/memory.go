package edge

import (
	"context"
	"sync"
	"time"
)

// Memory is the in-process Store for a single instance.
type Memory struct {
	mu      sync.Mutex
	now     func() time.Time
	windows map[string][]time.Time
	values  map[string]memValue
}

type memValue struct {
	v       []byte
	expires time.Time
}

// NewMemory returns an empty in-process store.
func NewMemory() *Memory {
	return &Memory{now: time.Now, windows: map[string][]time.Time{}, values: map[string]memValue{}}
}

// Admit implements Store.
func (m *Memory) Admit(_ context.Context, key string, limit int, window time.Duration) (Decision, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	hits := m.windows[key]
	cut := 0
	for cut < len(hits) && !hits[cut].After(now.Add(-window)) {
		cut++
	}
	hits = hits[cut:]
	d := Decision{Limit: limit}
	if len(hits) < limit {
		hits = append(hits, now)
		d.Allowed = true
	}
	d.Remaining = limit - len(hits)
	if len(hits) > 0 {
		d.Reset = hits[0].Add(window)
	} else {
		d.Reset = now
	}
	if !d.Allowed {
		d.RetryAfter = d.Reset.Sub(now)
	}
	if len(hits) == 0 {
		delete(m.windows, key)
	} else {
		m.windows[key] = hits
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

// SetNX implements Store.
func (m *Memory) SetNX(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if _, ok := m.live(key, now); ok {
		return false, nil
	}
	m.values[key] = memValue{v: append([]byte(nil), value...), expires: now.Add(ttl)}
	return true, nil
}

// Set implements Store.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.values[key] = memValue{v: append([]byte(nil), value...), expires: m.now().Add(ttl)}
	return nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.live(key, m.now())
	if !ok {
		return nil, false, nil
	}
	return append([]byte(nil), v.v...), true, nil
}

// Delete implements Store.
func (m *Memory) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.values, key)
	return nil
}

// Ping implements Store.
func (m *Memory) Ping(context.Context) error { return nil }

// Close implements Store.
func (m *Memory) Close() error { return nil }
