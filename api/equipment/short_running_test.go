package equipment_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestLoweringStockCountsEndedHoldsAgainstRunningOnes: a reservation
// running now is short when its units plus those of every hold overlapping
// it exceed the new stock, including a reservation that already ended but
// still holds stock (status reserved): the guard counts it, so the warning
// does too. Only the running reservation is named; the ended one is
// history (docs/availability.md, "Lowering stock").
func TestLoweringStockCountsEndedHoldsAgainstRunningOnes(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	today := time.Now().UTC().Truncate(24 * time.Hour)
	day := func(n int) string { return today.AddDate(0, 0, n).Format(time.RFC3339) }
	item := a.Post(path, `{"name": "Fresnel", "stock_quantity": 2}`).Data()["id"].(string)
	reserve := func(from, to int) string {
		t.Helper()
		r := a.Post("/api/v2/equipment_reservations", fmt.Sprintf(
			`{"equipment_id": %q, "start_date": %q, "end_date": %q, "quantity": 1}`, item, day(from), day(to)))
		if r.Status != 201 || r.Data()["reservation_status"] != "reserved" {
			t.Fatalf("reservation: %d %s", r.Status, r.Body)
		}
		return r.Data()["id"].(string)
	}
	running := reserve(-2, 2) // runs now
	reserve(-2, -1)           // ended yesterday, still reserved: overlaps running

	r := a.Patch(path+"/"+item, `{"stock_quantity": 1}`)
	if r.Status != 200 || r.Data()["stock_quantity"] != 1.0 {
		t.Fatalf("PATCH stock 1: %d %s", r.Status, r.Body)
	}
	warnings, _ := r.JSON()["warnings"].([]any)
	if len(warnings) != 1 {
		t.Fatalf("warnings = %s, want the stock_below_reserved warning", r.Body)
	}
	w := warnings[0].(map[string]any)
	d, _ := w["details"].(map[string]any)
	if w["code"] != "stock_below_reserved" || d["stock_quantity"] != 1.0 || d["reserved"] != 2.0 || d["deficit"] != 1.0 {
		t.Fatalf("warning = %v, want stock 1, reserved 2, deficit 1", w)
	}
	if got := idsOf(d["conflicting_reservation_ids"]); !slices.Equal(got, []string{running}) {
		t.Errorf("conflicting_reservation_ids = %v, want only the running %s", got, running)
	}
	if got := idsOf(d["conflicting_event_ids"]); len(got) != 0 {
		t.Errorf("conflicting_event_ids = %v, want none", got)
	}
	if d["window_start"] != day(-2) || d["window_end"] != day(2) {
		t.Errorf("window %v – %v, want %s – %s", d["window_start"], d["window_end"], day(-2), day(2))
	}

	// What the warning says is what availability and the guard say.
	avail := a.Get(fmt.Sprintf("%s/%s/availability?start=%s&end=%s", path, item, url.QueryEscape(day(-2)), url.QueryEscape(day(2))))
	if avail.Status != 200 || avail.Data()["min_available"] != -1.0 {
		t.Errorf("availability over the running reservation: %d %s, want min_available -1", avail.Status, avail.Body)
	}
	later := today.AddDate(0, 0, 2).Add(time.Hour).Format(time.RFC3339)
	if ext := a.Patch("/api/v2/equipment_reservations/"+running, fmt.Sprintf(`{"end_date": %q}`, later)); ext.Status != 422 || ext.ErrorCode() != "overbook_blocked" {
		t.Errorf("extending the running reservation: %d %s, want 422 overbook_blocked", ext.Status, ext.Body)
	}

	// At stock 2 both fit: no warning.
	if r := a.Patch(path+"/"+item, `{"stock_quantity": 2}`); r.Status != 200 || r.JSON()["warnings"] != nil {
		t.Errorf("PATCH stock 2: %d %s, want 200 without warnings", r.Status, r.Body)
	}
}
