package edgetest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/middleware/idempotency"
)

// TestCrashBeforeCommit kills a real `eventapi serve` process with SIGKILL
// in the middle of a keyed write: its transaction has inserted the key's
// row and waits for a lock the test holds on the clients table. While it
// waits, a retry through a second process is 409
// idempotency_key_in_use: the attempt still runs. Once the process is
// dead and PostgreSQL has rolled its transaction back, the next retry
// executes at once, while the dead attempt's in-progress marker is still
// in the edge store, rather than meeting 409 until the marker expires
// (docs/edge.md, "Crash-safe design"). One client exists at the end.
func TestCrashBeforeCommit(t *testing.T) {
	rig := newCrashRig(t)
	const idemKey = "crash-before-commit"
	name := "Crash Test Dummies before the commit"
	body := `{"name":"` + name + `"}`
	storeKey := idempotency.StoreKey(rig.org, idemKey)

	victim := serve(t, rig.direct)
	survivor := serve(t, rig.direct)

	lock, err := rig.db.BeginTx(rig.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Rollback() }()
	if _, err := lock.ExecContext(rig.ctx, "LOCK TABLE clients IN SHARE MODE"); err != nil {
		t.Fatal(err)
	}
	answered := rig.post(victim.URL, body, idemKey)
	pid := waitForLockWaiter(t, rig, answered)

	busy := viaHTTP(t, rig.client, survivor.URL, "POST", "/api/v2/clients", rig.key, body, keyHeader, idemKey)
	if busy.Status != http.StatusConflict || busy.Code() != "idempotency_key_in_use" {
		t.Fatalf("retry while the attempt runs: %d %s, want 409 idempotency_key_in_use", busy.Status, busy.Body)
	}

	victim.Kill()
	if a := <-answered; !strings.HasPrefix(a, "no answer") {
		t.Fatalf("the killed process answered %s", a)
	}
	// The dead process's backend finishes its statement once the lock is
	// gone, finds its client gone and rolls the transaction back.
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	waitForBackendGone(t, rig, pid)
	if rec, ok, err := rig.store.Get(rig.ctx, storeKey); err != nil || !ok || !bytes.Contains(rec, []byte(`"s":"running"`)) {
		t.Fatalf("edge record after the kill: %s (present %v, %v); want the dead attempt's marker", rec, ok, err)
	}

	rig.retryMakesOne(t, survivor.URL, name, body, idemKey, false)
}

// waitForLockWaiter returns the pid of the backend that waits for a lock
// in the rig's database: the victim's keyed write. It fails the test if
// the request ends first.
func waitForLockWaiter(t *testing.T, rig *crashRig, answered <-chan string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var pids []int
		if err := rig.db.NewRaw(`SELECT pid FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).
			Scan(rig.ctx, &pids); err != nil {
			t.Fatal(err)
		}
		if len(pids) == 1 {
			return pids[0]
		}
		select {
		case a := <-answered:
			t.Fatalf("the keyed write ended (%s) before it waited for the lock", a)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no backend waits for the clients lock after a minute (%v)", pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitForBackendGone returns once the backend pid has left
// pg_stat_activity: its transaction has ended.
func waitForBackendGone(t *testing.T, rig *crashRig, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		if err := rig.db.NewRaw("SELECT count(*) FROM pg_stat_activity WHERE pid = ?", pid).Scan(rig.ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead process's backend %d is still there after a minute", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
