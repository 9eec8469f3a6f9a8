package picklists_test

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
)

// touchListQuery is the statement that moves a pick list's updated_at after
// an item write (touchList), the item creation's last statement.
var touchListQuery = regexp.MustCompile(`^UPDATE "?pick_lists"? `)

// createItemHook pauses the first touchList statement after it is armed
// until release is closed, and counts the deadlocks (40P01) of every
// statement.
type createItemHook struct {
	armed     atomic.Bool
	paused    chan struct{}
	release   chan struct{}
	deadlocks atomic.Int32
}

func (h *createItemHook) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if touchListQuery.MatchString(e.Query) && h.armed.CompareAndSwap(true, false) {
		close(h.paused)
		<-h.release
	}
	return ctx
}

func (h *createItemHook) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	var pg *pgconn.PgError
	if errors.As(e.Err, &pg) && pg.Code == pgerrcode.DeadlockDetected {
		h.deadlocks.Add(1)
	}
}

// TestCreatingAnItemUnderOneBeingDeletedDoesNotDeadlock: every item write
// locks the pick list before the item, creations too. A creation of C under
// X inserted C (its foreign keys share-locking X) and only then wanted the
// list, to move its updated_at; a deletion of X in between locked the list
// and then wanted X. PostgreSQL aborted one of them: with Idempotency-Keys
// (the write runs in the middleware's transaction, so it is not run again)
// the client got 503, without them the write ran again after
// deadlock_timeout. The hook pauses the creation just before it moves the
// list's updated_at, the deletion is sent and waits for a lock, and the
// creation then goes on: now the deletion waits for the list, which the
// creation locked first, instead of for X.
func TestCreatingAnItemUnderOneBeingDeletedDoesNotDeadlock(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	hook := &createItemHook{}
	// The service's handlers hold env.Svc.DB itself: the hooked copy
	// replaces it in place so that they run the hook.
	*env.Svc.DB = *env.Svc.DB.WithQueryHook(hook)

	for _, keyed := range []bool{true, false} {
		name := "with Idempotency-Keys"
		if !keyed {
			name = "without Idempotency-Keys"
		}
		t.Run(name, func(t *testing.T) {
			key := func() []string {
				if keyed {
					return []string{"Idempotency-Key", uuid.NewString()}
				}
				return nil
			}
			pl := ok(t, a.Post(lists, body("name", "Racks")), 201)["id"].(string)
			x := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "rack")), 201)["id"].(string)

			hook.paused, hook.release = make(chan struct{}), make(chan struct{})
			var once sync.Once
			release := func() { once.Do(func() { close(hook.release) }) }
			defer release() // never leave a request paused
			hook.deadlocks.Store(0)
			hook.armed.Store(true)
			defer hook.armed.Store(false)

			created, deleted := make(chan *apitest.Response, 1), make(chan *apitest.Response, 1)
			createHeaders := key()
			go func() {
				created <- a.Do(http.MethodPost, items, body("pick_list_id", pl, "custom_description", "amp", "parent_item_id", x), createHeaders...)
			}()
			select {
			case <-hook.paused:
			case r := <-created:
				t.Fatalf("the creation ended (%d %s) without moving its list's updated_at", r.Status, r.Body)
			case <-time.After(time.Minute):
				t.Fatal("the creation did not reach its UPDATE of pick_lists in a minute")
			}
			deleteHeaders := key()
			go func() {
				deleted <- a.Do(http.MethodDelete, items+"/"+x, nil, deleteHeaders...)
			}()
			waitForLockWaiters(t, env, 1) // the deletion waits for the list (or, before the fix, for X)
			release()

			c, d := <-created, <-deleted
			if n := hook.deadlocks.Load(); n != 0 {
				t.Errorf("%d statements failed with a deadlock (40P01)", n)
			}
			if c.Status != 201 || d.Status != 204 {
				t.Fatalf("create %d %s, delete %d %s; want 201 and 204", c.Status, c.Body, d.Status, d.Body)
			}
			// The creation committed first: the deletion cleared the new
			// item's parent.
			child := c.Data()["id"].(string)
			var parent *string
			if err := env.Svc.DB.NewRaw("SELECT parent_item_id FROM pick_list_items WHERE organization_id = ? AND id = ?", a.ID, child).
				Scan(context.Background(), &parent); err != nil {
				t.Fatal(err)
			}
			if parent != nil {
				t.Fatalf("the created item names the deleted parent %s", *parent)
			}
		})
	}
}
