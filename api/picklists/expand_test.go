package picklists_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/storage"
)

// TestManifestSeesAnItemAddedBetweenItsReads: a pick list's items and their
// equipment are read side by side (docs/architecture.md, "Expansions"). An
// item committed after the equipment was read but before the items were
// still comes with its equipment and category: the read by id that covers
// the gap is really taken. The hook holds the items' statement until the
// categories' statement starts (so the equipment has been read), then
// commits the item.
func TestManifestSeesAnItemAddedBetweenItsReads(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	cat := rows.Category("Rigging", "#123456")
	pl := ok(t, a.Post(lists, body("name", "Gap")), 201)["id"].(string)
	first := rows.Equipment("Truss", nil, &cat).String()
	ok(t, a.Post(items, body("pick_list_id", pl, "equipment_id", first)), 201)
	late := rows.Equipment("Motor", nil, &cat).String()

	categoriesRead := make(chan struct{})
	var closeOnce sync.Once
	var armed atomic.Bool
	storage.AddStatementHook(env.Svc.DB, func(ctx context.Context, q string) {
		switch {
		case strings.Contains(q, `FROM "equipment_categories"`):
			closeOnce.Do(func() { close(categoriesRead) })
		case strings.Contains(q, `FROM "pick_list_items" AS "pli"`) && armed.CompareAndSwap(true, false):
			select {
			case <-categoriesRead:
			case <-time.After(10 * time.Second):
				t.Error("the equipment was not read before the items: not side by side")
				return
			}
			if _, err := env.Svc.DB.ExecContext(ctx, `INSERT INTO pick_list_items (organization_id, pick_list_id, equipment_id)
				VALUES (?, ?, ?)`, a.ID, pl, late); err != nil {
				t.Error(err)
			}
		}
	})
	armed.Store(true)
	got := itemsOf(ok(t, a.Get(lists+"/"+pl+"?expand=equipment,category"), 200))
	if len(got) != 2 {
		t.Fatalf("%d items, want the 2 committed before the items were read", len(got))
	}
	for _, it := range got {
		eq, _ := it["equipment"].(map[string]any)
		c, _ := eq["category"].(map[string]any)
		if eq["id"] != it["equipment_id"] || c["id"] != cat.String() {
			t.Errorf("item %v: equipment %v", it["equipment_id"], it["equipment"])
		}
	}
}
