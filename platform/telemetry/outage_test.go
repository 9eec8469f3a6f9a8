package telemetry

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"
)

// lines is a slog handler that hands each record's failures count to a
// channel.
type lines chan int64

func (l lines) Enabled(context.Context, slog.Level) bool { return true }
func (l lines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l lines) WithGroup(string) slog.Handler            { return l }
func (l lines) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "failures" {
			l <- a.Value.Int64()
		}
		return true
	})
	return nil
}

// next waits for the next line; a line that never comes fails the test
// after a bound far above the interval (no time is asserted).
func (l lines) next(t *testing.T, what string) int64 {
	t.Helper()
	select {
	case n := <-l:
		return n
	case <-time.After(30 * time.Second):
		t.Fatalf("no line came for %s", what)
		return 0
	}
}

// TestOutageLogWritesTheTail: the failures an interval held back are
// written when it ends, without another failure to trigger it, so an
// outage's count is never written with a later outage's.
func TestOutageLogWritesTheTail(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outages []int // failures of each outage, one after the other
	}{
		{"one failure", []int{1}},
		{"a burst, then one", []int{30, 1}},
		{"three bursts", []int{5, 12, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := make(lines, 100)
			o := NewOutageLog(slog.New(l), "store unavailable", 50*time.Millisecond)
			for i, n := range tc.outages {
				for range n {
					o.Record(context.Background(), errors.New("dial tcp: connection refused"))
				}
				// Every failure of this outage is written, in one line or
				// more, before the next outage begins.
				var written int64
				for written < int64(n) {
					written += l.next(t, "the outage's failures")
				}
				if written != int64(n) {
					t.Fatalf("outage %d: lines counted %d failures, it had %d", i, written, n)
				}
			}
			select {
			case n := <-l:
				t.Fatalf("a line of %d failures after the last outage was written", n)
			case <-time.After(200 * time.Millisecond): // four intervals: a stray timer would have written
			}
		})
	}
}

// TestOutageLogFlush: a stop writes what the interval held back, and
// FlushOutageLogs reaches every log of the process.
func TestOutageLogFlush(t *testing.T) {
	l := make(lines, 10)
	o := NewOutageLog(slog.New(l), "store unavailable", time.Hour)
	for range 3 {
		o.Record(context.Background(), errors.New("refused"))
	}
	if n := l.next(t, "the first failure"); n != 1 {
		t.Fatalf("first line: %d failures, want 1", n)
	}
	FlushOutageLogs(context.Background())
	if n := l.next(t, "the flush"); n != 2 {
		t.Fatalf("flushed line: %d failures, want the 2 held back", n)
	}
	FlushOutageLogs(context.Background())
	select {
	case n := <-l:
		t.Fatalf("a second flush wrote %d failures again", n)
	default:
	}
}
