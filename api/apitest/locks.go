package apitest

import (
	"context"
	"testing"
	"time"
)

// HoldRowLock takes the row lock of query (a SELECT … FOR SHARE of one row,
// which names its tables and marks itself as the test's own statement) in a
// transaction of its own and keeps it until release commits it, or the test
// ends and it is rolled back. Register the cleanup that waits for requests
// blocked on the lock before calling it: cleanups run last-registered first,
// so the lock is then released before they are waited for.
func HoldRowLock(t *testing.T, e *Env, query string, args ...any) (release func()) {
	t.Helper()
	ctx := context.Background()
	holder, err := e.Svc.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		_ = holder.Close()
		t.Fatal(err)
	}
	// The connection closes only after its transaction ends: closing it
	// first would wait for the transaction forever.
	t.Cleanup(func() { _ = tx.Rollback(); _ = holder.Close() })
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// WaitBlocked returns once n backends of e's database (every instance's
// pool) are waiting on a lock. It fails when one of answers arrives first:
// the test holds a row lock the requests must wait for, so an answer means
// a request did not wait for it (what names the lock in the message).
func WaitBlocked[A any](t *testing.T, e *Env, n int, answers <-chan A, what string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	seen := 0
	for {
		select {
		case a := <-answers:
			t.Fatalf("a request answered (%+v) while %s was locked by another transaction, "+
				"after %d of %d requests were seen waiting: the write does not lock it", a, what, seen, n)
		case <-deadline:
			t.Fatalf("only %d of %d requests were seen waiting on the lock of %s", seen, n, what)
		case <-tick.C:
			if err := e.Svc.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(context.Background(), &seen); err != nil {
				t.Fatal(err)
			}
			if seen >= n {
				return
			}
		}
	}
}
