package apitest

import (
	"context"
	"testing"
	"time"
)

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
