package main

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/errs"
)

// TestUntilReachable: serve's start is retried while the database is
// unreachable, and ends at once on success, on any other failure, or when
// the process is told to stop.
func TestUntilReachable(t *testing.T) {
	down := &errs.Error{Code: errs.ServiceUnavailable, Message: "database unavailable"}
	pending := errors.New("1 migration is pending: run eventapi migrate up")
	for _, tc := range []struct {
		name    string
		results []error // of the calls in turn; the last one repeats
		stopped bool    // the context ends before the first retry
		calls   int
		want    error
	}{
		{"up at once", []error{nil}, false, 1, nil},
		{"down, then up", []error{down, down, nil}, false, 3, nil},
		{"a schema to migrate", []error{pending}, false, 1, pending},
		{"down, then a schema to migrate", []error{down, pending}, false, 2, pending},
		{"down until stopped", []error{down}, true, 1, down},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.stopped {
				cancel()
			}
			calls := 0
			err := untilReachableEvery(ctx, slog.New(slog.DiscardHandler), time.Millisecond, 4*time.Millisecond, func() error {
				calls++
				return tc.results[min(calls, len(tc.results))-1]
			})
			if calls != tc.calls || !errors.Is(err, tc.want) {
				t.Fatalf("%d calls, %v; want %d, %v", calls, err, tc.calls, tc.want)
			}
		})
	}
}
