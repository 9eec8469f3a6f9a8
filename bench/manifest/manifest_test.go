package manifest

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/bench/catalogue"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// items is the manifest's size, as catbench's -manifest-items.
const items = 1000

type fixture struct {
	db   *bun.DB
	org  tenancy.OrganizationID
	list uuid.UUID
}

func setup(tb testing.TB) fixture {
	tb.Helper()
	ctx := context.Background()
	db := pgtest.Open(tb)
	o, err := tenancy.CreateOrganization(ctx, db, "manifest bench", nil)
	if err != nil {
		tb.Fatal(err)
	}
	list, err := catalogue.SeedManifest(ctx, db, o.ID, items)
	if err != nil {
		tb.Fatal(err)
	}
	return fixture{db: db, org: tenancy.OrganizationID{UUID: o.ID}, list: list}
}

// ways load the manifest's items and their equipment with categories.
var ways = []struct {
	name string
	load func(context.Context, fixture) (int, error)
}{
	{"storage.In", func(ctx context.Context, f fixture) (int, error) {
		lists := []picklists.PickList{{ID: f.list}}
		err := picklists.Expand(ctx, f.db, f.org, lists, picklists.Expansion{Items: true, Equipment: true, Category: true})
		if err != nil {
			return 0, err
		}
		return len(*lists[0].Items), nil
	}},
	{"bun", func(ctx context.Context, f fixture) (int, error) {
		var its []picklists.Item
		err := f.db.NewSelect().Model(&its).Where("?TableAlias.organization_id = ?", f.org).
			Where("?TableAlias.pick_list_id = ?", f.list).OrderExpr("?TableAlias.created_at ASC, ?TableAlias.id ASC").Scan(ctx)
		if err != nil {
			return 0, err
		}
		ids := related.IDs(its, func(it *picklists.Item) *uuid.UUID { return it.EquipmentID })
		var eq []related.Equipment
		if err := f.db.NewSelect().Model(&eq).Where("?TableAlias.organization_id = ?", f.org).
			Where("?TableAlias.id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
			return 0, err
		}
		var cats []related.Category
		err = f.db.NewSelect().Model(&cats).Where("?TableAlias.organization_id = ?", f.org).
			Where("?TableAlias.id IN (?)", bun.List(related.IDs(eq, func(e *related.Equipment) *uuid.UUID { return e.CategoryID }))).
			Scan(ctx)
		return len(its), err
	}},
}

// BenchmarkLoad: ns/op and the process's CPU per manifest (cpu-µs/op) of
// each way, over the same rows (bun's way skips only the grouping of the
// items into their list and the inlining of the relations).
func BenchmarkLoad(b *testing.B) {
	f := setup(b)
	ctx := context.Background()
	for _, w := range ways {
		b.Run(w.name, func(b *testing.B) {
			start := processCPU(b)
			for b.Loop() {
				if n, err := w.load(ctx, f); err != nil || n != items {
					b.Fatalf("%d items, %v", n, err)
				}
			}
			b.ReportMetric(float64((processCPU(b)-start).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// TestWaysAgree: both ways load every item (a benchmark of a broken way
// would measure nothing).
func TestWaysAgree(t *testing.T) {
	f := setup(t)
	for _, w := range ways {
		if n, err := w.load(context.Background(), f); err != nil || n != items {
			t.Errorf("%s: %d items, %v", w.name, n, err)
		}
	}
}

func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
