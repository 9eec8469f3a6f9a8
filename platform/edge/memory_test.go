package edge

import (
	"context"
	"fmt"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestMemorySlidingWindowWithFakeClock(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := newMemory(clock.now)
	const window = 10 * time.Second
	t0 := clock.t
	steps := []struct {
		at        time.Duration // since t0
		allowed   bool
		remaining int
		reset     time.Duration // since t0
	}{
		{0, true, 2, 10 * time.Second},
		{4 * time.Second, true, 1, 10 * time.Second},
		{6 * time.Second, true, 0, 10 * time.Second},
		{9 * time.Second, false, 0, 10 * time.Second},
		{10 * time.Second, true, 0, 14 * time.Second}, // t0's slot frees exactly at t0+window
		{13 * time.Second, false, 0, 14 * time.Second},
		{14 * time.Second, true, 0, 16 * time.Second},
		{30 * time.Second, true, 2, 40 * time.Second}, // window empty again
	}
	for _, st := range steps {
		clock.t = t0.Add(st.at)
		d, _ := m.Admit(context.Background(), "k", 3, window)
		if d.Allowed != st.allowed || d.Remaining != st.remaining || !d.Reset.Equal(t0.Add(st.reset)) {
			t.Fatalf("at +%v: %+v; want allowed=%v remaining=%d reset=+%v", st.at, d, st.allowed, st.remaining, st.reset)
		}
		if !d.Allowed && d.RetryAfter != st.reset-st.at {
			t.Fatalf("at +%v: RetryAfter %v, want %v", st.at, d.RetryAfter, st.reset-st.at)
		}
	}
}

func TestMemoryIsBounded(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		fill func(m *Memory, clock *fakeClock)
		// after is applied once filling is done; then one more operation runs.
		after       time.Duration
		maxBuckets  int
		maxValues   int
		description string
	}{
		{
			name: "idle buckets and expired values are dropped by the periodic sweep",
			fill: func(m *Memory, _ *fakeClock) {
				for i := 0; i < 500; i++ {
					_, _ = m.Admit(ctx, fmt.Sprint("org-", i), 10, time.Second)
					_ = m.Set(ctx, fmt.Sprint("v-", i), []byte("x"), time.Second)
				}
			},
			after:      SweepEvery,
			maxBuckets: 1, maxValues: 0,
		},
		{
			name: "a flood of short-lived values triggers a sweep by size",
			fill: func(m *Memory, clock *fakeClock) {
				for i := 0; i < 20*minSweepAt; i++ {
					_ = m.Set(ctx, fmt.Sprint("v-", i), []byte("x"), time.Millisecond)
					clock.advance(time.Millisecond)
				}
			},
			maxBuckets: 1, maxValues: minSweepAt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			m := newMemory(clock.now)
			tt.fill(m, clock)
			clock.advance(tt.after)
			_, _ = m.Admit(ctx, "trigger", 10, time.Second)
			if b, v := m.Len(); b > tt.maxBuckets || v > tt.maxValues {
				t.Fatalf("after the sweep: %d buckets, %d values; want at most %d and %d", b, v, tt.maxBuckets, tt.maxValues)
			}
		})
	}
}

func TestMemoryBucketHoldsAtMostAboutTwiceTheLimit(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := newMemory(clock.now)
	const limit = 100
	for i := 0; i < 100_000; i++ {
		_, _ = m.Admit(context.Background(), "k", limit, time.Second)
		clock.advance(5 * time.Millisecond)
	}
	b := m.buckets["k"]
	if len(b.hits) > limit || cap(b.hits) > 2*limit+8 {
		t.Fatalf("bucket len %d cap %d, want len <= %d and cap about 2x", len(b.hits), cap(b.hits), limit)
	}
}
