package requestlog

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestTransient: a flush is tried again after failures that pass (a timed
// out attempt, a connection lost, a server shutting down or short of
// resources), never after one its records would meet again.
func TestTransient(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"attempt timed out", fmt.Errorf("request log: copy timed out: %w", context.DeadlineExceeded), true},
		{"connection lost", &pgconn.PgError{Code: "08006"}, true},
		{"server shutting down", &pgconn.PgError{Code: "57P01"}, true},
		{"statement cancelled", &pgconn.PgError{Code: "57014"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"no partition for the row", &pgconn.PgError{Code: "23514"}, false},
		{"a value the column refuses", &pgconn.PgError{Code: "22P02"}, false},
		{"anything else", errors.New("boom"), false},
	} {
		if got := transient(c.err); got != c.want {
			t.Errorf("%s: transient = %v, want %v", c.name, got, c.want)
		}
	}
}
