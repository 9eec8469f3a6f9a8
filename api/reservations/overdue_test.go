package reservations_test

import (
	"slices"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/api/storage/stock"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// overdueWarning returns the details of the overdue_returns warning of res,
// nil when it has none.
func overdueWarning(t *testing.T, res *apitest.Response) map[string]any {
	t.Helper()
	ws, _ := res.JSON()["warnings"].([]any)
	for _, w := range ws {
		if m := w.(map[string]any); m["code"] == "overdue_returns" {
			return m["details"].(map[string]any)
		}
	}
	return nil
}

// TestOverdueReturnsWarn: May 2026 lies before the test's now, so a
// checked-out reservation of May 1–3 is overdue (docs/availability.md,
// "Overdue returns"). Stock 4: it holds 3 units that have not come back.
// A later booking fits by the guard's rule (4 free) and is written; it
// warns when it fits only if those units return first.
func TestOverdueReturnsWarn(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Moving head", bookingtest.Stock(4), nil)
	out := a.Post(base, reserve(eq, 1, 3, "quantity", 3, "reservation_status", "checked_out"))
	want(t, out, 201, "")
	outID := out.Data()["id"].(string)
	if d := overdueWarning(t, out); d != nil {
		t.Fatalf("the overdue reservation warned of itself: %v", d)
	}
	// A reservation past its end that never left the warehouse is not out.
	want(t, a.Post(base, reserve(eq, 1, 2, "quantity", 1)), 201, "")

	// 1 fits even without the 3: no warning.
	small := a.Post(base, reserve(eq, 5, 6, "quantity", 1))
	want(t, small, 201, "")
	if d := overdueWarning(t, small); d != nil {
		t.Errorf("1 of 4, 3 overdue: warned %v", d)
	}
	// 2 more: 3 free by the rule, 0 if the 3 stay out.
	res := a.Post(base, reserve(eq, 5, 6, "quantity", 2))
	want(t, res, 201, "")
	d := overdueWarning(t, res)
	if d == nil {
		t.Fatalf("no overdue_returns: %s", res.Body)
	}
	if d["requested"] != 2.0 || d["available"] != 3.0 || d["overdue_quantity"] != 3.0 || d["deficit"] != 2.0 ||
		d["count"] != 1.0 || !slices.Equal(d["reservation_ids"].([]any), []any{outID}) ||
		d["window_start"] != "2026-05-05T08:00:00Z" {
		t.Errorf("details = %v", d)
	}
	if res.Data()["overbooked"] != false {
		t.Errorf("a booking that fits is not overbooked: %v", res.Data())
	}
	id := res.Data()["id"].(string)

	// A booking that overlaps the overdue one has its units counted by the
	// guard already (3 held, 1 free): they are not counted twice.
	if res := a.Post(base, reserve(eq, 2, 4, "quantity", 1)); res.Status != 201 || overdueWarning(t, res) != nil {
		t.Errorf("overlapping booking: %d %s", res.Status, res.Body)
	}
	// A PATCH that changes no claim runs no guard; one that grows does.
	if p := a.Patch(base+"/"+id, body("notes", "truck 2")); p.Status != 200 || overdueWarning(t, p) != nil {
		t.Errorf("notes only: %d %s", p.Status, p.Body)
	}
	if p := a.Patch(base+"/"+id, body("end_date", "2026-05-07T08:00:00Z")); overdueWarning(t, p) == nil {
		t.Errorf("a longer window still counts on the overdue units: %d %s", p.Status, p.Body)
	}

	// A key that may not read reservations gets the write without it.
	writer := a.WithKey(apikey.Live, tenancy.EquipmentReservationsWrite)
	if res := writer.Post(base, reserve(eq, 8, 9, "quantity", 2)); res.Status != 201 || overdueWarning(t, res) != nil {
		t.Errorf("write-only key: %d %s", res.Status, res.Body)
	}
	// Once returned, the units are back.
	want(t, a.Patch(base+"/"+outID, body("reservation_status", "returned")), 200, "")
	if res := a.Post(base, reserve(eq, 10, 11, "quantity", 4)); res.Status != 201 || overdueWarning(t, res) != nil {
		t.Errorf("after the return: %d %s", res.Status, res.Body)
	}
}

// TestOverdueReturnsFollowTheGuardMode: warn mode warns as block mode does;
// off mode looks at no stock, so it says nothing of overdue units either.
func TestOverdueReturnsFollowTheGuardMode(t *testing.T) {
	env := newEnv(t)
	for _, tt := range []struct {
		mode tenancy.StockGuardMode
		warn bool
	}{
		{tenancy.StockGuardBlock, true},
		{tenancy.StockGuardWarn, true},
		{tenancy.StockGuardOff, false},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			o := orgWithMode(t, env, "Org "+string(tt.mode), tt.mode)
			rows := bookingtest.For(env, o)
			eq := rows.Equipment("Console", bookingtest.Stock(2), nil)
			want(t, o.Post(base, reserve(eq, 1, 2, "quantity", 2, "reservation_status", "checked_out")), 201, "")
			res := o.Post(base, reserve(eq, 3, 4, "quantity", 1))
			want(t, res, 201, "")
			if got := overdueWarning(t, res) != nil; got != tt.warn {
				t.Errorf("warned %v, want %v: %s", got, tt.warn, res.Body)
			}
		})
	}
}

// TestOverdueReturnsEdges: a checked-out reservation still within its
// dates is not overdue, however soon it ends before a booking; a
// reservation moved to a later window does not warn of itself; and a
// booking lacks no more than it asks for, however many units the records
// say are out.
func TestOverdueReturnsEdges(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	at := func(d time.Duration) string { return time.Now().UTC().Add(d).Truncate(time.Hour).Format(time.RFC3339) }

	current := rows.Equipment("Projector", bookingtest.Stock(4), nil)
	want(t, a.Post(base, body("equipment_id", current.String(), "start_date", at(-24*time.Hour), "end_date", at(25*time.Hour),
		"quantity", 3, "reservation_status", "checked_out")), 201, "")
	res := a.Post(base, body("equipment_id", current.String(), "start_date", at(49*time.Hour), "end_date", at(73*time.Hour), "quantity", 2))
	if res.Status != 201 || overdueWarning(t, res) != nil {
		t.Errorf("out until tomorrow is not overdue: %d %s", res.Status, res.Body)
	}

	moved := rows.Equipment("Truss", bookingtest.Stock(4), nil)
	out := a.Post(base, reserve(moved, 1, 3, "quantity", 3, "reservation_status", "checked_out")).Data()["id"].(string)
	// Booked again for later (back to reserved, so the write can warn):
	// its own stored row, checked out and ended, is not counted.
	if p := a.Patch(base+"/"+out, body("start_date", "2026-05-20T08:00:00Z", "end_date", "2026-05-21T08:00:00Z",
		"reservation_status", "reserved")); p.Status != 200 || overdueWarning(t, p) != nil {
		t.Errorf("a reservation moved later warned of itself: %d %s", p.Status, p.Body)
	}

	owned := rows.Equipment("Console", bookingtest.Stock(4), nil)
	want(t, a.Post(base, reserve(owned, 1, 2, "quantity", 4, "reservation_status", "checked_out")), 201, "")
	want(t, a.Post(base, reserve(owned, 2, 3, "quantity", 4, "reservation_status", "checked_out")), 201, "")
	res = a.Post(base, reserve(owned, 5, 6, "quantity", 1))
	d := overdueWarning(t, res)
	if d == nil || d["overdue_quantity"] != 8.0 || d["available"] != 4.0 || d["deficit"] != 1.0 || d["count"] != 2.0 {
		t.Errorf("eight overdue of four owned: %d %s", res.Status, res.Body)
	}
}

// TestACheckoutDoesNotWarnOfOverdueUnits: a write that records a checkout
// says the gear has left, so the units the records say are still out were
// there for it; a later booking still counts those records.
func TestACheckoutDoesNotWarnOfOverdueUnits(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Console", bookingtest.Stock(4), nil)
	want(t, a.Post(base, reserve(eq, 1, 2, "quantity", 4, "reservation_status", "checked_out")), 201, "")
	if res := a.Post(base, reserve(eq, 5, 6, "quantity", 4, "reservation_status", "checked_out")); res.Status != 201 || overdueWarning(t, res) != nil {
		t.Errorf("a checkout of all 4: %d %s", res.Status, res.Body)
	}
	if res := a.Post(base, reserve(eq, 10, 11, "quantity", 1)); overdueWarning(t, res) == nil {
		t.Errorf("a later booking: %d %s", res.Status, res.Body)
	}
}

// TestReplayScopeOfABookingFollowsTheGuard: a booking that holds stock
// records the read scope its overdue_returns warning needs for a replay
// of its answer, under a guard that looks; in off mode no such warning can
// come, so a key that may only write reservations gets the replay
// (docs/decisions.md, "Idempotency-Key").
func TestReplayScopeOfABookingFollowsTheGuard(t *testing.T) {
	env := newEnv(t)
	for _, tt := range []struct {
		mode   tenancy.StockGuardMode
		status int
	}{{tenancy.StockGuardBlock, 403}, {tenancy.StockGuardWarn, 403}, {tenancy.StockGuardOff, 201}} {
		t.Run(string(tt.mode), func(t *testing.T) {
			o := orgWithMode(t, env, "Org "+string(tt.mode), tt.mode)
			eq := bookingtest.For(env, o).Equipment("Console", bookingtest.Stock(4), nil)
			b := reserve(eq, 1, 2)
			want(t, o.Do("POST", base, b, "Idempotency-Key", "booked"), 201, "")
			writer := o.WithKey(apikey.Live, tenancy.EquipmentReservationsWrite)
			res := writer.Do("POST", base, b, "Idempotency-Key", "booked")
			if res.Status != tt.status || (tt.status == 201) != (res.Header.Get(idempotency.HeaderReplayed) == "true") {
				t.Errorf("replay to a write-only key: %d %s (replayed %q)", res.Status, res.Body, res.Header.Get(idempotency.HeaderReplayed))
			}
		})
	}
}

// TestOverdueReturnsNamesTheFirstMaxNamed: the warning counts and sums
// every overdue reservation of the record but names only the first
// stock.MaxNamed (100), the longest overdue first, by end_date and then id,
// so a history of checked-out reservations never returned cannot make a
// write's answer grow without bound (docs/availability.md, "Overdue
// returns").
func TestOverdueReturnsNamesTheFirstMaxNamed(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Cable", bookingtest.Stock(5), nil)
	n := stock.MaxNamed + 1
	all, quantity := bookingtest.For(env, a).Overdue(eq, n)
	named := all[:stock.MaxNamed]

	res := a.Post(base, reserve(eq, 20, 21, "quantity", 1))
	want(t, res, 201, "")
	d := overdueWarning(t, res)
	if d == nil {
		t.Fatalf("no overdue_returns: %s", res.Body)
	}
	ids, _ := d["reservation_ids"].([]any)
	if d["count"] != float64(n) || d["overdue_quantity"] != float64(quantity) || len(ids) != stock.MaxNamed {
		t.Fatalf("count %v, overdue_quantity %v, %d named; want %d, %d, %d", d["count"], d["overdue_quantity"], len(ids), n, quantity, stock.MaxNamed)
	}
	if !slices.Equal(ids, named) {
		t.Errorf("named %v,\nwant the %d longest overdue by (end_date, id): %v", ids, stock.MaxNamed, named)
	}
}
