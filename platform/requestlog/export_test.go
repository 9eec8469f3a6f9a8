package requestlog

import (
	"context"

	"github.com/uptrace/bun"
)

// Partitions lists request_log_segments' partitions by name (for the tests
// of package requestlog_test).
var Partitions = partitions

// partitions returns the names of request_log_segments' partitions, those
// whose detach is pending included.
func partitions(ctx context.Context, db bun.IDB) (map[string]bool, error) {
	all, err := tables(ctx, db)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(all))
	for n, st := range all {
		if st == attached || st == detachPending {
			out[n] = true
		}
	}
	return out, nil
}

// Stopping reports whether Close has been called on w.
func Stopping(w *Writer) bool { return w.closed.Load() }
