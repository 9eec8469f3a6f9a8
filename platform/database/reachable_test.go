package database

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/errs"
)

// TestUntilReachable: a start is retried while the database is unreachable,
// with a doubling wait and one warning per failure, and ends at once on
// success, on any other failure, or when the process is told to stop.
func TestUntilReachable(t *testing.T) {
	down := &errs.Error{Code: errs.ServiceUnavailable, Message: "database unavailable"}
	pending := errors.New("1 migration is pending: run eventapi migrate up")
	for _, tc := range []struct {
		name    string
		results []error // of the calls in turn; the last one repeats
		stopped bool    // the context ends before the first retry
		calls   int
		want    error
		waits   []string // retry_in of the warnings logged
	}{
		{"up at once", []error{nil}, false, 1, nil, nil},
		{"down, then up", []error{down, down, down, down, nil}, false, 5, nil, []string{"1ms", "2ms", "4ms", "4ms"}},
		{"a schema to migrate", []error{pending}, false, 1, pending, nil},
		{"down, then a schema to migrate", []error{down, pending}, false, 2, pending, []string{"1ms"}},
		{"down until stopped", []error{down}, true, 1, down, []string{"1ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.stopped {
				cancel()
			}
			var out bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&out, nil))
			calls := 0
			err := untilReachableEvery(ctx, log, "eventapi", time.Millisecond, 4*time.Millisecond, func() error {
				calls++
				return tc.results[min(calls, len(tc.results))-1]
			})
			if calls != tc.calls || !errors.Is(err, tc.want) {
				t.Fatalf("%d calls, %v; want %d, %v", calls, err, tc.calls, tc.want)
			}
			var waits []string
			for dec := json.NewDecoder(&out); dec.More(); {
				var line struct {
					Level, Msg, Error string
					RetryIn           string `json:"retry_in"`
				}
				if err := dec.Decode(&line); err != nil {
					t.Fatal(err)
				}
				if line.Level != "WARN" || line.Msg != "eventapi starting: the database is unreachable; retrying" || line.Error != down.Error() {
					t.Errorf("logged %+v", line)
				}
				waits = append(waits, line.RetryIn)
			}
			if !slices.Equal(waits, tc.waits) {
				t.Errorf("retry_in logged %v, want %v", waits, tc.waits)
			}
		})
	}
}

// TestUntilReachableClassifies: which of Open's real failures are waited
// out. Any failure to connect is (PostgreSQL reports an unknown database,
// like a refused login, while connecting); a URL that does not parse is
// not.
func TestUntilReachableClassifies(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	server := os.Getenv("EVENTAPI_TEST_DATABASE_URL") // as pgtest, which imports this package
	if server == "" {
		server = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	unknown, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	unknown.Path = "/eventapi_test_no_such_database"
	type row struct {
		name, url string
		retried   bool
		says      string // in the error that ended the wait
	}
	rows := []row{
		{"nothing listening", "postgres://postgres@" + closed + "/eventapi?sslmode=disable", true, ""},
		{"a database the server does not have", unknown.String(), true, ""},
		{"a URL that does not parse", "postgres://postgres@127.0.0.1:notaport/eventapi", false, ""},
	}
	// Behind PgBouncer (make test's second pass): connecting to it as to
	// PostgreSQL sends statement_timeout, which it refuses; the wait ends
	// at once with the setting to change, instead of retrying forever as
	// "unreachable".
	if pooler := os.Getenv("EVENTAPI_TEST_POOLER_URL"); pooler != "" {
		u, err := url.Parse(pooler)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/postgres"
		rows = append(rows, row{"a transaction pooler opened as PostgreSQL", u.String(), false, "EVENTAPI_DATABASE_POOLER=transaction"})
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			var first error
			err := untilReachableEvery(context.Background(), slog.New(slog.DiscardHandler), "eventapi", time.Millisecond, time.Millisecond, func() error {
				if calls++; calls > 1 {
					return nil
				}
				db, err := Open(context.Background(), tc.url, Options{MaxOpenConns: 1})
				if err == nil {
					db.Close()
					t.Fatal("Open succeeded")
				}
				first = err
				return err
			})
			if retried := calls == 2 && err == nil; retried != tc.retried {
				t.Fatalf("retried %v after %v (%d calls, %v), want %v", retried, first, calls, err, tc.retried)
			}
			if tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)) {
				t.Fatalf("the wait ended with %v, want an error saying %q", err, tc.says)
			}
			// Open's own error says it, for the commands that do not wait
			// (migrate, the CLI)
			if tc.says != "" && !strings.Contains(first.Error(), tc.says) {
				t.Fatalf("Open failed with %v, want an error saying %q", first, tc.says)
			}
		})
	}
}
