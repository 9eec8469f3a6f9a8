package equipment_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestLoweringStockWarnsAboutShortReservations: a PATCH that sets
// stock_quantity below what reservations from now on hold is written and
// answers the stock_below_reserved warning naming them by the stock
// guard's rule; past, cancelled and another organization's reservations
// never count (docs/availability.md, "Lowering stock").
func TestLoweringStockWarnsAboutShortReservations(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	day := func(n int) string {
		return time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, n).Format(time.RFC3339)
	}
	item := a.Post(path, `{"name": "K2", "stock_quantity": 10}`).Data()["id"].(string)
	event := a.Post("/api/v2/events", fmt.Sprintf(`{"name": "Gala", "venue": "Hall", "start_date": %q, "end_date": %q}`, day(1), day(3))).Data()["id"].(string)
	reserve := func(o *apitest.Org, equipment string, from, to, qty int, extra string) string {
		t.Helper()
		r := o.Post("/api/v2/equipment_reservations", fmt.Sprintf(
			`{"equipment_id": %q, "start_date": %q, "end_date": %q, "quantity": %d%s}`, equipment, day(from), day(to), qty, extra))
		if r.Status != 201 {
			t.Fatalf("reservation: %d %s", r.Status, r.Body)
		}
		return r.Data()["id"].(string)
	}
	reserve(a, item, -5, -2, 9, "")                                            // over before now: never counts
	first := reserve(a, item, 1, 3, 3, fmt.Sprintf(`, "event_id": %q`, event)) // overlaps second: 5
	second := reserve(a, item, 2, 4, 2, "")
	reserve(a, item, 6, 8, 4, "") // alone: 4
	cancelled := reserve(a, item, 1, 8, 1, "")
	if r := a.Patch("/api/v2/equipment_reservations/"+cancelled, `{"reservation_status": "cancelled"}`); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	bItem := b.Post(path, `{"name": "K2", "stock_quantity": 50}`).Data()["id"].(string)
	reserve(b, bItem, 1, 8, 40, "")

	r := a.Patch(path+"/"+item, `{"stock_quantity": 4, "demo": true}`)
	if r.Status != 200 || r.Data()["stock_quantity"] != 4.0 {
		t.Fatalf("PATCH stock 4: %d %s", r.Status, r.Body)
	}
	warnings, _ := r.JSON()["warnings"].([]any)
	if len(warnings) != 2 {
		t.Fatalf("warnings = %s, want stock_below_reserved then ignored_fields", r.Body)
	}
	w := warnings[0].(map[string]any)
	d, _ := w["details"].(map[string]any)
	if w["code"] != "stock_below_reserved" || d["stock_quantity"] != 4.0 || d["reserved"] != 5.0 || d["deficit"] != 1.0 {
		t.Fatalf("warning = %v", w)
	}
	if got := idsOf(d["conflicting_reservation_ids"]); !slices.Equal(got, []string{first, second}) {
		t.Errorf("conflicting_reservation_ids = %v, want %v", got, []string{first, second})
	}
	if got := idsOf(d["conflicting_event_ids"]); !slices.Equal(got, []string{event}) {
		t.Errorf("conflicting_event_ids = %v, want [%s]", got, event)
	}
	if d["window_start"] != day(1) || d["window_end"] != day(4) {
		t.Errorf("window %v – %v, want %s – %s", d["window_start"], d["window_end"], day(1), day(4))
	}
	if got := a.Get(path + "/" + item).Data()["stock_quantity"]; got != 4.0 {
		t.Errorf("stored stock = %v, want 4: the write stands", got)
	}

	for _, body := range []string{`{"stock_quantity": 5}`, `{"name": "K2 flown"}`, `{"stock_quantity": null}`} {
		if r := a.Patch(path+"/"+item, body); r.Status != 200 || r.JSON()["warnings"] != nil {
			t.Errorf("PATCH %s: %d %s, want 200 without warnings", body, r.Status, r.Body)
		}
	}
	if r := a.Patch(path+"/"+item, `{"stock_quantity": 0}`); len(idsOf(detailsOf(r)["conflicting_reservation_ids"])) != 3 {
		t.Errorf("PATCH stock 0: %s, want the three reservations from now on", r.Body)
	}
	// The warning names reservations: a key that cannot read them writes
	// the stock and is told nothing about them.
	equipmentOnly := a.WithKey(apikey.Live, tenancy.EquipmentRead, tenancy.EquipmentWrite)
	if r := equipmentOnly.Patch(path+"/"+item, `{"stock_quantity": 1}`); r.Status != 200 || r.JSON()["warnings"] != nil {
		t.Errorf("PATCH stock 1 without equipment_reservations:read: %d %s, want 200 without warnings", r.Status, r.Body)
	}
}

func detailsOf(r *apitest.Response) map[string]any {
	warnings, _ := r.JSON()["warnings"].([]any)
	if len(warnings) == 0 {
		return nil
	}
	d, _ := warnings[0].(map[string]any)["details"].(map[string]any)
	return d
}

func idsOf(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		out = append(out, s.(string))
	}
	return out
}

// TestASameStockPatchWaitsForTheGuard: a PATCH that sets the stock the
// equipment already has changes no row, so its update locks nothing; its
// stock_below_reserved check still waits for the equipment's lock, which a
// reservation being admitted holds, and then counts that reservation. It
// read the reservations at once and left out the one being admitted.
func TestASameStockPatchWaitsForTheGuard(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	ctx := context.Background()
	item := a.Post(path, `{"name": "Truss", "stock_quantity": 2}`).Data()["id"].(string)
	start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)

	// The guard of a forced overbook, held open: the equipment's row is
	// locked and a reservation of 3 units is written, not yet committed.
	tx, err := env.Svc.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.NewRaw("SELECT 1 FROM equipment WHERE organization_id = ? AND id = ? FOR NO KEY UPDATE", a.ID, item).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.NewRaw(`INSERT INTO equipment_reservations (organization_id, equipment_id, start_date, end_date, quantity)
		VALUES (?, ?, ?, ?, 3)`, a.ID, item, start, start.AddDate(0, 0, 2)).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	done := make(chan *apitest.Response, 1)
	go func() { done <- a.Patch(path+"/"+item, `{"stock_quantity": 2}`) }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		select {
		case r := <-done:
			t.Fatalf("the PATCH answered %d %s while the guard held the equipment's lock", r.Status, r.Body)
		default:
		}
		var waiting int
		if err := env.Svc.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(ctx, &waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the PATCH never waited for the equipment's lock")
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	warnings, _ := r.JSON()["warnings"].([]any)
	if r.Status != 200 || len(warnings) != 1 {
		t.Fatalf("PATCH after the guard committed: %d %s, want 200 with the stock_below_reserved warning", r.Status, r.Body)
	}
	if d := warnings[0].(map[string]any)["details"].(map[string]any); d["reserved"] != 3.0 {
		t.Fatalf("warning details %v, want the 3 units just admitted", d)
	}
}
