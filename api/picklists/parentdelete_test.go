package picklists_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestParentDeletedWhileAChildIsWritten: deleting an item clears its
// children's parent in an update of their own that moves their updated_at
// (docs/decisions.md, "Change feed"). A child written to name the parent
// while the delete runs, after it cleared the children it saw, must not be
// left to the foreign key's ON DELETE SET NULL, which keeps updated_at: the
// delete locks the parent first, so such a write waits for it and then
// fails. The hook commits the child's write just before the delete's
// DELETE statement, or sees it wait for the parent's lock.
func TestParentDeletedWhileAChildIsWritten(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	pl := ok(t, a.Post(lists, body("name", "Racks")), 201)["id"].(string)
	parent := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "rack")), 201)["id"].(string)
	child := ok(t, a.Post(items, body("pick_list_id", pl, "custom_description", "amp")), 201)["id"].(string)

	type write struct {
		at  time.Time
		err error
	}
	written := make(chan write, 1)
	var armed atomic.Bool
	hold := func(ctx context.Context, q string) {
		if !strings.HasPrefix(q, "DELETE") || !strings.Contains(q, "pick_list_items") || !armed.CompareAndSwap(true, false) {
			return
		}
		go func() {
			var w write
			w.err = env.Svc.DB.NewRaw(`UPDATE pick_list_items SET parent_item_id = ?, updated_at = clock_timestamp()
				WHERE organization_id = ? AND id = ? RETURNING updated_at`, parent, a.ID, child).Scan(context.Background(), &w.at)
			written <- w
		}()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case w := <-written:
				written <- w // committed before the DELETE: read again below
				return
			case <-tick.C:
				var waiting int
				if err := env.Svc.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity
					WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(ctx, &waiting); err != nil {
					t.Error(err)
					return
				}
				if waiting > 0 {
					return // the child's write waits for the parent's lock
				}
			}
		}
	}
	// The service's handlers hold env.Svc.DB itself: the hooked copy
	// replaces it in place so that they run the hook.
	*env.Svc.DB = *env.Svc.DB.WithQueryHook(pgtest.BeforeQuery(func(ctx context.Context, e *bun.QueryEvent) context.Context {
		hold(ctx, e.Query)
		return ctx
	}))
	armed.Store(true)
	if r := a.Delete(items + "/" + parent); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	var w write
	select {
	case w = <-written:
	case <-time.After(time.Minute):
		t.Fatal("the child's write was never sent: the delete's DELETE statement was not seen")
	}
	var stored struct {
		Parent    *string   `bun:"parent_item_id"`
		UpdatedAt time.Time `bun:"updated_at"`
	}
	if err := env.Svc.DB.NewRaw(`SELECT parent_item_id, updated_at FROM pick_list_items
		WHERE organization_id = ? AND id = ?`, a.ID, child).
		Scan(context.Background(), &stored); err != nil {
		t.Fatal(err)
	}
	if stored.Parent != nil {
		t.Fatalf("the child still names the deleted parent %s", *stored.Parent)
	}
	if w.err == nil && !stored.UpdatedAt.After(w.at) {
		t.Errorf("the child's parent was cleared after its write at %s, but updated_at stayed %s: the foreign key cleared it, not an update of its own",
			w.at, stored.UpdatedAt)
	}
}
