package planning_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestAvailabilityNamesOverdueReturns: May 2026 lies before the test's now,
// so checked-out reservations that ended in May are overdue. The answer
// counts them as free (min_available, the guard's rule) and names them in
// overdue; a checked-out one overlapping the window is a hold, and a
// reserved one past its end never left (docs/availability.md, "Overdue
// returns").
func TestAvailabilityNamesOverdueReturns(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Hazer", bookingtest.Stock(5), nil)
	quiet := rows.Equipment("Quiet", bookingtest.Stock(5), nil)
	first := reserve(t, a, eq, book{1, 3, 2, "checked_out"})
	second := reserve(t, a, eq, book{1, 2, 1, "checked_out"})
	reserve(t, a, eq, book{1, 2, 1, ""})
	reserve(t, a, eq, book{2, 9, 1, "checked_out"})
	reserve(t, a, quiet, book{1, 2, 1, "returned"})

	overdue := func(from, to int) (map[string]any, any) {
		t.Helper()
		res := a.Get(availabilityPath(eq, from, to))
		if res.Status != 200 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		o, _ := res.Data()["overdue"].(map[string]any)
		return o, res.Data()["min_available"]
	}
	o, min := overdue(5, 6)
	if min != 4.0 || o["quantity"] != 3.0 || o["count"] != 2.0 ||
		!slices.Equal(o["reservation_ids"].([]any), []any{second, first}) { // the longest overdue first
		t.Errorf("May 5-6: min_available %v, overdue %v", min, o)
	}
	// Days 2-4: the first overlaps (a hold, counted), the second ended on day 2.
	if o, min := overdue(2, 4); min != 2.0 || o["quantity"] != 1.0 || !slices.Equal(o["reservation_ids"].([]any), []any{second}) {
		t.Errorf("May 2-4: min_available %v, overdue %v", min, o)
	}

	q := "&start=" + url.QueryEscape(day(5)) + "&end=" + url.QueryEscape(day(6))
	list := a.Get("/api/v2/availability?equipment_id=" + quiet.String() + "," + eq.String() + q).List()
	if len(list) != 2 || list[0]["overdue"] != nil || list[1]["overdue"].(map[string]any)["quantity"] != 3.0 {
		t.Errorf("batch: %v", list)
	}

	if p := a.Patch(reservationsPath+"/"+first, map[string]any{"reservation_status": "returned"}); p.Status != 200 {
		t.Fatalf("return: %d %s", p.Status, p.Body)
	}
	if o, _ := overdue(5, 6); o["quantity"] != 1.0 || o["count"] != 1.0 {
		t.Errorf("after a return: %v", o)
	}
	// Another organization's overdue gear is none of A's business, and
	// A's is none of its: its own equipment shows nothing overdue.
	b := env.NewOrg("B")
	beq := bookingtest.For(env, b).Equipment("Hazer", bookingtest.Stock(5), nil)
	if res := b.Get(availabilityPath(beq, 5, 6)); res.Status != 200 || res.Data()["overdue"] != nil {
		t.Errorf("B: %d %s", res.Status, res.Body)
	}
}

// TestAvailabilityIsOneSnapshot: the holds and what is overdue are read by
// two statements of one snapshot. A checked-out reservation overlapping the
// window is held; its end moved before the window, committed between the
// two statements, would make it overdue too, and the answer would count
// its unit twice.
func TestAvailabilityIsOneSnapshot(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Hazer", bookingtest.Stock(5), nil)
	out := reserve(t, a, eq, book{2, 6, 1, "checked_out"})

	var armed atomic.Bool
	*env.Svc.DB = *env.Svc.DB.WithQueryHook(pgtest.BeforeQuery(func(ctx context.Context, e *bun.QueryEvent) context.Context {
		// The overdue read's own text: the webhook workers' statements,
		// on the same pool, join LATERAL too.
		if !strings.Contains(e.Query, "array_agg(x.id::text ORDER BY x.end_date, x.id)") || !armed.CompareAndSwap(true, false) {
			return ctx
		}
		if p := a.Patch(reservationsPath+"/"+out, map[string]any{"end_date": day(4)}); p.Status != 200 {
			t.Errorf("moving the end: %d %s", p.Status, p.Body)
		}
		return ctx
	}))
	armed.Store(true)
	res := a.Get(availabilityPath(eq, 5, 7))
	if armed.Load() {
		t.Fatal("the overdue read was not seen: no statement names the overdue reservations")
	}
	if res.Status != 200 || res.Data()["min_available"] != 4.0 || res.Data()["overdue"] != nil {
		t.Fatalf("%d %s: the holds and what is overdue were read in two snapshots", res.Status, res.Body)
	}
	// The next answer sees the move: free by the rule, overdue in fact.
	res = a.Get(availabilityPath(eq, 5, 7))
	if o, _ := res.Data()["overdue"].(map[string]any); res.Data()["min_available"] != 5.0 || o["quantity"] != 1.0 {
		t.Fatalf("after the move: %s", res.Body)
	}
}

// TestOverdueNamesTheFirstMaxNamed: a record's history can hold any number
// of checked-out reservations never returned. The answer counts and sums
// them all but names only the first stock.MaxNamed (100), the longest
// overdue first, by end_date and then id, so its size stays bounded
// whatever the history (docs/availability.md, "Overdue returns").
func TestOverdueNamesTheFirstMaxNamed(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Cable", bookingtest.Stock(5), nil)
	named, quantity := bookingtest.For(env, a).Overdue(eq, stock.MaxNamed+1)

	res := a.Get(availabilityPath(eq, 20, 21))
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	o, _ := res.Data()["overdue"].(map[string]any)
	ids, _ := o["reservation_ids"].([]any)
	if o["count"] != float64(stock.MaxNamed+1) || o["quantity"] != float64(quantity) || len(ids) != stock.MaxNamed {
		t.Fatalf("overdue: count %v, quantity %v, %d named; want %d, %d, %d", o["count"], o["quantity"], len(ids), stock.MaxNamed+1, quantity, stock.MaxNamed)
	}
	if !slices.Equal(ids, named[:stock.MaxNamed]) {
		t.Errorf("named %v,\nwant the %d longest overdue by (end_date, id): %v", ids, stock.MaxNamed, named[:stock.MaxNamed])
	}
}
