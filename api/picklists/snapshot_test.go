package picklists_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/storage"
)

// TestDetailReadsItemsAfterTheList: a pick list's detail reads the list
// before its items, so the items are never older than the updated_at an item
// write moves (docs/decisions.md, "Later additions"). Read at once on two
// connections, an item write committed between the two snapshots would show
// the new updated_at with the old item, and a client polling on updated_at
// would keep the old item for good. The hook records which statement of each
// read starts first; every expansion that reads items is tried several
// times, since two reads at once would race.
func TestDetailReadsItemsAfterTheList(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	ev := rows.Event("Gala").String()
	pl := ok(t, a.Post(lists, body("name", "Order", "event_id", ev)), 201)["id"].(string)
	ok(t, a.Post(items, body("pick_list_id", pl, "equipment_id", rows.Equipment("Truss", nil, nil).String())), 201)

	var mu sync.Mutex
	var order []string
	var armed atomic.Bool
	storage.AddStatementHook(env.Svc.DB, func(_ context.Context, q string) {
		if !armed.Load() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(q, `FROM "pick_list_items"`) && !strings.Contains(q, `FROM "equipment"`):
			order = append(order, "items")
		case strings.Contains(q, `FROM "pick_lists"`):
			order = append(order, "list")
		}
	})
	for _, expand := range []string{"items", "items,event", "equipment", "equipment,category,event"} {
		for range 5 {
			mu.Lock()
			order = nil
			mu.Unlock()
			armed.Store(true)
			ok(t, a.Get(lists+"/"+pl+"?expand="+expand), 200)
			armed.Store(false)
			mu.Lock()
			got := strings.Join(order, ",")
			mu.Unlock()
			if got != "list,items" {
				t.Fatalf("expand=%s read %q, want the list, then the items", expand, got)
			}
		}
	}
}
