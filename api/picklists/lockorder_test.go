package picklists_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
)

// waitForLockWaiters returns once n statements of the test's database wait
// for a lock.
func waitForLockWaiters(t *testing.T, env *apitest.Env, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		var waiting int
		if err := env.Svc.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(context.Background(), &waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d statements wait for a lock after a minute, want %d", waiting, n)
		}
		time.Sleep(wait)
	}
}

// TestMovingAnItemUnderOneBeingDeletedDoesNotDeadlock: every item write
// locks the pick list before the item. A re-parenting of C under X that
// locked C and then the list, beside a deletion of X that locked X and then
// wanted the list, deadlocked: PostgreSQL aborted one of them, and with an
// Idempotency-Key (the write runs in the middleware's transaction, so it
// is not run again) the client got 503. The test holds the list so that
// both writes queue for it, the interleaving that deadlocked, and sends
// both with Idempotency-Keys.
func TestMovingAnItemUnderOneBeingDeletedDoesNotDeadlock(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	pl := ok(t, a.Post(lists, body("name", "Racks")), 201)["id"].(string)
	x := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "rack")), 201)["id"].(string)
	c := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "amp")), 201)["id"].(string)

	ctx := context.Background()
	hold, err := env.Svc.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback() }()
	if _, err := hold.ExecContext(ctx, "SELECT 1 FROM pick_lists WHERE organization_id = ? AND id = ? FOR NO KEY UPDATE", a.ID, pl); err != nil {
		t.Fatal(err)
	}
	moved, deleted := make(chan *apitest.Response, 1), make(chan *apitest.Response, 1)
	go func() {
		moved <- a.Do(http.MethodPatch, items+"/"+c, body("parent_item_id", x), "Idempotency-Key", uuid.NewString())
	}()
	waitForLockWaiters(t, env, 1)
	go func() {
		deleted <- a.Do(http.MethodDelete, items+"/"+x, nil, "Idempotency-Key", uuid.NewString())
	}()
	waitForLockWaiters(t, env, 2)
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	m, d := <-moved, <-deleted
	if m.Status != 200 || d.Status != 204 {
		t.Fatalf("move %d %s, delete %d %s; want 200 and 204", m.Status, m.Body, d.Status, d.Body)
	}
	var parent *string
	if err := env.Svc.DB.NewRaw("SELECT parent_item_id FROM pick_list_items WHERE organization_id = ? AND id = ?", a.ID, c).
		Scan(ctx, &parent); err != nil {
		t.Fatal(err)
	}
	if parent != nil {
		t.Fatalf("the moved item names the deleted parent %s", *parent)
	}
}
