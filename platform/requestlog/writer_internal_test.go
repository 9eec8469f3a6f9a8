package requestlog

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// chunks returns n chunks of one record each, of capacity chunkSize.
func chunks(n int) [][]Record {
	out := make([][]Record, n)
	for i := range out {
		out[i] = append(make([]Record, 0, chunkSize), Record{Method: "GET"})
	}
	return out
}

func TestKeepChunks(t *testing.T) {
	for _, tt := range []struct {
		name       string
		last, used int
		want       int
	}{
		{"a first quiet flush keeps one", 0, 0, 1},
		{"the steady state keeps what it used", 3, 3, 3},
		{"a busier flush keeps more", 1, 4, 4},
		{"a lull keeps half of what was kept", 4, 1, 2},
		{"quiet flushes come down to one", 3, 0, 1},
		{"never more than maxFreeChunks", 0, maxFreeChunks + 4, maxFreeChunks},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := keepChunks(tt.last, tt.used); got != tt.want {
				t.Fatalf("keepChunks(%d, %d) = %d, want %d", tt.last, tt.used, got, tt.want)
			}
		})
	}
	// A busy period's chunks go back within a few quiet flushes, and a
	// steady rate with lulls between busy flushes keeps what they use.
	keep, flushes := keepChunks(0, maxFreeChunks), 0
	for ; keep > 1 && flushes < 20; flushes++ {
		keep = keepChunks(keep, 0)
	}
	if flushes > 3 {
		t.Errorf("%d quiet flushes to give back a busy period's chunks", flushes)
	}
	for range 5 {
		if keep = keepChunks(keepChunks(keep, maxFreeChunks), 1); keep < maxFreeChunks/2 {
			t.Fatalf("a lull after a busy flush keeps %d chunks", keep)
		}
	}
}

func TestRecycle(t *testing.T) {
	for _, tt := range []struct {
		name             string
		free, used, keep int
		want             int
	}{
		{"nothing to keep", 0, 0, 1, 0},
		{"emptied chunks fill the free list up to keep", 0, 3, 2, 2},
		{"free chunks beyond keep are dropped", 4, 0, 1, 1},
		{"a free list at keep takes none", 2, 2, 2, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			free := chunks(tt.free)
			for i := range free {
				clear(free[i])
				free[i] = free[i][:0]
			}
			got := recycle(free, chunks(tt.used), tt.keep)
			if len(got) != tt.want {
				t.Fatalf("kept %d chunks, want %d", len(got), tt.want)
			}
			for _, c := range got {
				if len(c) != 0 || cap(c) != chunkSize {
					t.Fatalf("a kept chunk has len %d cap %d, want 0 and %d", len(c), cap(c), chunkSize)
				}
				if c[:1][0].Method != "" {
					t.Fatal("a kept chunk still holds a record: its strings stay live")
				}
			}
		})
	}
}

func TestCopyBufferTrim(t *testing.T) {
	const busy = keptCopyBytes * 8
	// flush encodes n bytes of n/100 records into b, as copyChunks does,
	// then trims it as drain does.
	flush := func(b *copyBuffer, n int) {
		b.b = append(b.b[:0], make([]byte, n)...)
		b.order = append(b.order[:0], make([]*Record, n/100)...)
		b.trim()
	}
	var b copyBuffer
	flush(&b, busy)
	space := cap(b.b)
	// Small flushes between busy ones keep the space.
	for range 3 {
		flush(&b, busy/20)
		flush(&b, busy)
		if cap(b.b) != space {
			t.Fatalf("a busy writer's buffer was given back (cap %d, was %d)", cap(b.b), space)
		}
	}
	// Quiet flushes give it back within a few flushes, and keep it given back.
	quiet := 0
	for ; b.b != nil && quiet < 20; quiet++ {
		flush(&b, busy/100)
	}
	if b.b != nil && cap(b.b) > keptCopyBytes {
		t.Fatalf("after %d quiet flushes the buffer still holds %d bytes", quiet, cap(b.b))
	}
	if quiet < 2 || quiet > 5 {
		t.Errorf("the buffer was given back after %d quiet flushes, want a few", quiet)
	}
	for range 10 {
		flush(&b, 0)
		if cap(b.b) > keptCopyBytes || cap(b.order) > keptCopyBytes/8 {
			t.Fatalf("an idle writer holds %d bytes and %d order slots", cap(b.b), cap(b.order))
		}
	}
}

func TestSchedule(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		writeTimeout, backoff time.Duration
		want                  time.Duration
	}{
		{"the defaults: 50 s of attempts, 15 s of waits", DefaultWriteTimeout, 0, 65 * time.Second},
		{"short attempts and waits", 200 * time.Millisecond, 100 * time.Millisecond, 2500 * time.Millisecond},
		{"waits only", 0, time.Second, 15 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &Writer{cfg: WriterConfig{WriteTimeout: tt.writeTimeout, RetryBackoff: tt.backoff}}
			if got := w.schedule(); got != tt.want {
				t.Fatalf("schedule() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCloseBefore(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		calls []time.Duration // each call's bound, after at
		want  time.Duration
	}{
		{"one call sets its bound", []time.Duration{time.Minute}, time.Minute},
		{"a later, earlier bound lowers it", []time.Duration{time.Minute, 5 * time.Second}, 5 * time.Second},
		{"a later, later bound leaves it", []time.Duration{5 * time.Second, time.Minute}, 5 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &Writer{}
			for _, d := range tt.calls {
				w.closeBefore(at.Add(d))
			}
			if got := w.closeBy.Load(); got == nil || !got.Equal(at.Add(tt.want)) {
				t.Fatalf("closeBy = %v, want %v", got, at.Add(tt.want))
			}
		})
	}
}

// watched is a context without a deadline that never ends, and counts the
// functions registered to run when it ends that are still registered.
type watched struct {
	context.Context
	done chan struct{} // never closed
	live atomic.Int64
}

func (c *watched) Done() <-chan struct{} { return c.done }

func (c *watched) AfterFunc(func()) (stop func() bool) {
	c.live.Add(1)
	var once sync.Once
	return func() bool {
		stopped := false
		once.Do(func() { c.live.Add(-1); stopped = true })
		return stopped
	}
}

// TestCloseLeavesNothingOnItsContext: a Close whose context never ends
// (none of a deadline either) stops watching it when it returns. A
// context.AfterFunc left registered on it kept the writer, and its pool,
// reachable for as long as the context lived.
func TestCloseLeavesNothingOnItsContext(t *testing.T) {
	ctx := &watched{Context: context.Background(), done: make(chan struct{})}
	w := NewWriter(WriterConfig{Interval: time.Hour})
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := ctx.live.Load(); n != 0 {
		t.Fatalf("%d functions still registered on Close's context after it returned", n)
	}
}

// TestALaterCloseOfAStoppedWriterReturnsNil: once the writer has stopped,
// a later Close returns nil at once, whatever its context: even one that
// has already ended (the two were picked at random).
func TestALaterCloseOfAStoppedWriterReturnsNil(t *testing.T) {
	w := NewWriter(WriterConfig{Interval: time.Hour})
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 100 {
		if err := w.Close(ended); err != nil {
			t.Fatalf("Close #%d of a stopped writer: %v", i+2, err)
		}
	}
}
