package picklists

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/errs"
)

// TestGetExpandedIsGetThenExpand: GetExpanded, which reads the items beside
// the pick list on a pool, returns what Get and then Expand return, for
// every expansion, on the pool and in a transaction; a pick list of another
// organization, or of none, is not found, as by Get.
func TestGetExpandedIsGetThenExpand(t *testing.T) {
	f := storagetest.NewFixture(t)
	ctx := context.Background()
	start := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	event := f.Insert(t, "events", f.A, map[string]any{"name": "Gig", "venue": "Hall", "start_date": start, "end_date": start.Add(time.Hour)})
	cat := f.Insert(t, "equipment_categories", f.A, map[string]any{"name": "Audio", "color": "#112233"})
	speaker := f.Insert(t, "equipment", f.A, map[string]any{"name": "Speaker", "category_id": cat, "daily_rate": "12.50"})
	cable := f.Insert(t, "equipment", f.A, map[string]any{"name": "Cable"})
	list := f.Insert(t, "pick_lists", f.A, map[string]any{"name": "Main", "event_id": event})
	empty := f.Insert(t, "pick_lists", f.A, map[string]any{"name": "Empty"})
	for _, cols := range []map[string]any{
		{"equipment_id": speaker, "quantity": 2},
		{"equipment_id": cable, "notes": "spare"},
		{"custom_description": "crew food"},
	} {
		cols["pick_list_id"] = list
		f.Insert(t, "pick_list_items", f.A, cols)
	}
	theirs := f.Insert(t, "pick_lists", f.B, map[string]any{"name": "Theirs"})

	var xs []Expansion
	for _, ev := range []bool{false, true} {
		xs = append(xs, Expansion{Event: ev}, Expansion{Event: ev, Items: true},
			Expansion{Event: ev, Items: true, Equipment: true}, Expansion{Event: ev, Items: true, Equipment: true, Category: true})
	}
	check := func(t *testing.T, db bun.IDB) {
		for _, x := range xs {
			for _, id := range []uuid.UUID{list, empty} {
				pl, err := Get(ctx, db, f.A, id)
				if err != nil {
					t.Fatal(err)
				}
				want := []PickList{*pl}
				if err := Expand(ctx, db, f.A, want, x); err != nil {
					t.Fatal(err)
				}
				got, err := GetExpanded(ctx, db, f.A, id, x)
				if err != nil {
					t.Fatal(err)
				}
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(&want[0])
				if !reflect.DeepEqual(got, &want[0]) || string(g) != string(w) {
					t.Errorf("%+v of %v:\n got  %s\n want %s", x, id, g, w)
				}
			}
			for _, id := range []uuid.UUID{theirs, uuid.New()} {
				_, want := Get(ctx, db, f.A, id)
				got, err := GetExpanded(ctx, db, f.A, id, x)
				var e *errs.Error
				if got != nil || !errors.As(err, &e) || e.Code != errs.NotFound || err.Error() != want.Error() {
					t.Errorf("%+v of %v: %v, %v; Get: %v", x, id, got, err, want)
				}
			}
		}
	}
	t.Run("pool", func(t *testing.T) { check(t, f.DB) })
	t.Run("transaction", func(t *testing.T) {
		tx, err := f.DB.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		check(t, tx)
	})
}
