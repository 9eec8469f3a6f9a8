package planning_test

import (
	"bytes"
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// truck inserts an available vehicle with a payload limit and interior.
func truck(rows *bookingtest.Rows, name string, payload, l, w, h any) uuid.UUID {
	return rows.Insert("vehicles", map[string]any{"name": name, "status": "available", "max_payload_lbs": payload,
		"interior_length_inches": l, "interior_width_inches": w, "interior_height_inches": h})
}

// item inserts equipment with a weight and case dimensions (nil: unknown).
func item(rows *bookingtest.Rows, name string, lbs, l, w, h any) uuid.UUID {
	return rows.Insert("equipment", map[string]any{"name": name, "weight_lbs": lbs,
		"case_length_in": l, "case_width_in": w, "case_height_in": h})
}

func onTruck(t *testing.T, o *apitest.Org, eq, v uuid.UUID, from, to, qty int, kv ...any) *apitest.Response {
	t.Helper()
	body := map[string]any{"equipment_id": eq.String(), "vehicle_id": v.String(), "start_date": day(from), "end_date": day(to), "quantity": qty}
	for i := 0; i+1 < len(kv); i += 2 {
		body[kv[i].(string)] = kv[i+1]
	}
	r := o.Post(reservationsPath, body)
	if r.Status != 201 {
		t.Fatalf("assign: %d %s", r.Status, r.Body)
	}
	return r
}

func loadPath(v uuid.UUID, from, to int) string {
	return "/api/v2/vehicles/" + v.String() + "/load?start=" + url.QueryEscape(day(from)) + "&end=" + url.QueryEscape(day(to))
}

// TestLoadTotals: a truck with lines of known, unknown and partly known
// figures; only lines that hold stock and overlap the window count.
func TestLoadTotals(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	v := truck(rows, "Box truck", 1000, 100, 50, 40) // 200,000 cu in
	amp := item(rows, "Amp rack", 120.5, 24, 22, 14) // 7,392 cu in
	deck := item(rows, "Stage deck", 90, nil, nil, nil)
	cable := item(rows, "Cable", nil, 20, 20, 12) // 4,800 cu in
	odd := item(rows, "Odd case", nil, 30, nil, 10)
	ev := rows.Event("Show")

	onTruck(t, a, amp, v, 1, 4, 3, "event_id", ev.String())
	onTruck(t, a, deck, v, 2, 3, 2)
	onTruck(t, a, cable, v, 3, 6, 5)
	onTruck(t, a, odd, v, 1, 2, 1)
	onTruck(t, a, amp, v, 4, 6, 9)                                    // touches the window's end: out
	onTruck(t, a, deck, v, 1, 4, 7, "reservation_status", "returned") // holds nothing: out

	r := a.Get(loadPath(v, 1, 4) + "&expand=equipment")
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	d := r.Data()
	want := map[string]any{
		"vehicle_id": v.String(), "window_start": day(1), "window_end": day(4), "event_id": nil,
		"payload_lbs": 3*120.5 + 2*90.0, "max_payload_lbs": 1000.0,
		"cargo_volume_cuin": 3*7392.0 + 5*4800.0, "interior_volume_cuin": 200000.0,
		"over_payload": false, "over_volume": false, "unknown_weight_count": 2.0, "unknown_volume_count": 2.0,
	}
	for k, w := range want {
		if d[k] != w {
			t.Errorf("%s = %v, want %v", k, d[k], w)
		}
	}
	rs := d["reservations"].([]any)
	if len(rs) != 4 {
		t.Fatalf("%d reservations, want 4: %s", len(rs), r.Body)
	}
	if e, _ := rs[0].(map[string]any)["equipment"].(map[string]any); e == nil || e["weight_lbs"] != 120.5 {
		t.Errorf("expand=equipment did not inline the equipment: %v", rs[0])
	}

	// By event: the event's window (May 1–4, bookingtest.Event), the same answer.
	byEvent := a.Get("/api/v2/vehicles/" + v.String() + "/load?event_id=" + ev.String()).Data()
	if byEvent["event_id"] != ev.String() || byEvent["payload_lbs"] != d["payload_lbs"] || byEvent["window_end"] != day(4) {
		t.Errorf("by event: %v", byEvent)
	}

	// Unknown limits never report over, however heavy the load.
	open := truck(rows, "Flatbed", nil, nil, 50, 40)
	onTruck(t, a, amp, open, 1, 2, 1000)
	o := a.Get(loadPath(open, 1, 2)).Data()
	if o["over_payload"] != false || o["over_volume"] != false || o["max_payload_lbs"] != nil || o["interior_volume_cuin"] != nil {
		t.Errorf("unknown limits: %v", o)
	}

	// The largest interior, (2^31 - 1)^3 cu in, is past int64: it is sent
	// with all its digits, and a 1 cu in load is not over it.
	largest := truck(rows, "Largest", nil, 2147483647, 2147483647, 2147483647)
	onTruck(t, a, item(rows, "Die", nil, 1, 1, 1), largest, 1, 2, 1)
	l := a.Get(loadPath(largest, 1, 2))
	if !bytes.Contains(l.Body, []byte(`"interior_volume_cuin":9903520300447984150353281023,`)) || l.Data()["over_volume"] != false {
		t.Errorf("largest interior: %d %s", l.Status, l.Body)
	}

	// A cargo of exactly 10^27 cu in fills a 10^9 in cube, not over it: the
	// sum is exact, not 1.0000000000000002e+27 in float64.
	huge := truck(rows, "Huge", nil, 1000000000, 1000000000, 1000000000)
	onTruck(t, a, item(rows, "Huge case", nil, 1e9, 1e9, 1e9), huge, 1, 2, 1)
	h := a.Get(loadPath(huge, 1, 2))
	if !bytes.Contains(h.Body, []byte(`"cargo_volume_cuin":1e+27,`)) || !bytes.Contains(h.Body, []byte(`"interior_volume_cuin":1000000000000000000000000000,`)) ||
		h.Data()["over_volume"] != false {
		t.Errorf("10^27 cu in: %d %s", h.Status, h.Body)
	}
}

// TestLoadWarnings: a reservation write that assigns a vehicle succeeds and
// carries over_payload / over_volume exactly when the vehicle is then over
// that limit during the reservation's window; exactly at the limit it is not.
func TestLoadWarnings(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	v := truck(rows, "Van", 1000, 10, 10, 100)    // 10,000 cu in
	crate := item(rows, "Crate", 100, 10, 10, 10) // 100 lbs, 1,000 cu in
	feather := item(rows, "Feather", 0.1, 10, 10, 5)
	other := truck(rows, "Other van", 1000, 10, 10, 100)

	codes := func(r *apitest.Response) []string {
		var out []string
		ws, _ := r.JSON()["warnings"].([]any)
		for _, w := range ws {
			out = append(out, w.(map[string]any)["code"].(string))
		}
		return out
	}
	expect := func(what string, r *apitest.Response, want ...string) {
		t.Helper()
		if got := codes(r); len(got) != len(want) || (len(want) > 0 && !crudtest.Same(got, want)) {
			t.Errorf("%s: warnings %v, want %v: %s", what, got, want, r.Body)
		}
	}

	first := onTruck(t, a, crate, v, 1, 5, 6) // 600 lbs, 6,000 cu in
	expect("600 of 1000 lbs", first)
	id := first.Data()["id"].(string)
	second := onTruck(t, a, crate, v, 3, 8, 4) // 1000 lbs, 10,000 cu in: exactly full
	expect("exactly at both limits", second)

	// 0.1 lb × 3 is 0.30000000000000004 in binary floating point: the sums
	// are rounded, so this is over by 0.3 lb, never by noise alone.
	r := onTruck(t, a, feather, v, 4, 5, 3)
	expect("0.3 lb and 1,500 cu in over", r, "over_payload", "over_volume")
	ws := r.JSON()["warnings"].([]any)
	d := ws[0].(map[string]any)["details"].(map[string]any)
	if d["payload_lbs"] != 1000.3 || d["max_payload_lbs"] != 1000.0 || d["vehicle_id"] != v.String() || d["window_start"] != day(4) {
		t.Errorf("over_payload details %v", d)
	}
	if r.Data()["id"] == nil {
		t.Fatal("the write did not succeed")
	}
	feather1 := r.Data()["id"].(string)

	// Moving the feathers off the truck's busy days clears it; a patch that
	// changes nothing on the truck never warns, even while it is over.
	expect("moved to a quiet day", a.Patch(reservationsPath+"/"+feather1, map[string]any{"start_date": day(8), "end_date": day(9)}))
	expect("moved back", a.Patch(reservationsPath+"/"+feather1, map[string]any{"start_date": day(4), "end_date": day(5)}), "over_payload", "over_volume")
	expect("notes only", a.Patch(reservationsPath+"/"+id, map[string]any{"notes": "strap down"}))
	// Cancelling holds nothing: no warning, and the truck is back at its limits.
	expect("cancel", a.Patch(reservationsPath+"/"+feather1, map[string]any{"reservation_status": "cancelled"}))
	if l := a.Get(loadPath(v, 4, 5)).Data(); l["payload_lbs"] != 1000.0 || l["over_payload"] != false {
		t.Errorf("after cancel: %v", l)
	}
	// Growing the first reservation by one crate crosses both limits on days 3–5.
	expect("quantity 6 → 7", a.Patch(reservationsPath+"/"+id, map[string]any{"quantity": 7}), "over_payload", "over_volume")
	// Moving it to the other van assigns it there, where it fits.
	expect("to the other van", a.Patch(reservationsPath+"/"+id, map[string]any{"vehicle_id": other.String()}))
	// Without a vehicle nothing is checked.
	if r := a.Post(reservationsPath, map[string]any{"equipment_id": crate.String(), "start_date": day(1), "end_date": day(9), "quantity": 500}); r.Status != 201 || len(codes(r)) != 0 {
		t.Errorf("no vehicle: %d %s", r.Status, r.Body)
	}
}

func TestLoadRejects(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	rows := bookingtest.For(env, a)
	v := truck(rows, "Truck", 1000, 10, 10, 10)
	theirs := bookingtest.For(env, b).Vehicle("Their truck", "available")
	theirEvent := bookingtest.For(env, b).Event("Their show")
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	tour := rows.Insert("events", map[string]any{"name": "World tour", "venue": "Everywhere",
		"start_date": start, "end_date": start.AddDate(1, 1, 0)})
	gig := rows.Event("Gig")
	path := "/api/v2/vehicles/" + v.String() + "/load"
	ok := "?start=" + url.QueryEscape(day(1)) + "&end=" + url.QueryEscape(day(2))
	bad := func(name, p, field string) crudtest.Case {
		return crudtest.Case{Name: name, Method: "GET", Path: p, Status: 422, Code: "validation_error", Field: field}
	}
	crudtest.Rejects(t, env, a, "equipment_reservations", []crudtest.Case{
		bad("no window", path, "start"),
		bad("only end", path+"?end="+day(2), "start"),
		bad("inverted", path+"?start="+day(3)+"&end="+day(2), "end"),
		bad("inverted within a microsecond", path+"?start=2026-05-01T08:00:00.0000009Z&end=2026-05-01T08:00:00.0000001Z", "end"),
		bad("start in 1899", path+"?start=1899-12-31T23:59:59Z&end="+day(2), "start"),
		bad("end in year 0", path+"?start="+day(1)+"&end=0000-01-01T00:00:00Z", "end"),
		bad("event and window", path+ok+"&event_id="+uuid.NewString(), "event_id"),
		bad("event and an empty window", path+"?start=&end=&event_id="+gig.String(), "event_id"),
		bad("event not a uuid", path+"?event_id=x", "event_id"),
		bad("unknown event", path+"?event_id="+uuid.NewString(), "event_id"),
		bad("another organization's event", path+"?event_id="+theirEvent.String(), "event_id"),
		bad("event longer than 366 days", path+"?event_id="+tour.String(), "event_id"),
		bad("unknown expand", path+ok+"&expand=category", "expand"),
		{Name: "unknown vehicle", Method: "GET", Path: "/api/v2/vehicles/" + uuid.NewString() + "/load" + ok, Status: 404, Code: "not_found"},
		{Name: "another organization's vehicle", Method: "GET", Path: "/api/v2/vehicles/" + theirs.String() + "/load" + ok, Status: 404, Code: "not_found"},
	})
}

// TestLoadWithoutWindowNamesEventID: a load asked with no window at all
// says that event_id is the other way to give one.
func TestLoadWithoutWindowNamesEventID(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	v := truck(bookingtest.For(env, a), "Truck", 1000, 10, 10, 10)
	r := a.Get("/api/v2/vehicles/" + v.String() + "/load")
	if r.Status != 422 || r.FieldIssue("start") != "give start and end, or event_id" || r.FieldIssue("end") != r.FieldIssue("start") {
		t.Errorf("no window: %d %s, want 422 naming event_id as the alternative", r.Status, r.Body)
	}
}

// TestLoadByEventNeedsEventRead: the answer to ?event_id= carries the
// event's dates (window_start, window_end), so a key that reads
// reservations but no events is refused it, as it is ?expand=event; the
// same key may still ask with start and end.
func TestLoadByEventNeedsEventRead(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	v := truck(rows, "Truck", 1000, 10, 10, 10)
	ev := rows.Event("Show")
	planner := a.WithKey(apikey.Live, tenancy.EquipmentReservationsRead)
	path := "/api/v2/vehicles/" + v.String() + "/load"
	if r := planner.Get(path + "?event_id=" + ev.String()); r.Status != 403 || r.ErrorCode() != "insufficient_scope" {
		t.Errorf("event_id without events:read: %d %s", r.Status, r.Body)
	}
	if r := planner.Get(path + "?event_id=" + uuid.NewString()); r.Status != 403 {
		t.Errorf("unknown event_id without events:read: %d %s, want 403 before the lookup", r.Status, r.Body)
	}
	if r := planner.Get(loadPath(v, 1, 2)); r.Status != 200 {
		t.Errorf("start and end: %d %s", r.Status, r.Body)
	}
	for _, s := range []tenancy.Scope{tenancy.EventsRead, tenancy.JobsRead} {
		k := a.WithKey(apikey.Live, tenancy.EquipmentReservationsRead, s)
		if r := k.Get(path + "?event_id=" + ev.String()); r.Status != 200 || r.Data()["window_start"] != day(1) {
			t.Errorf("event_id with %s: %d %s", s, r.Status, r.Body)
		}
	}
}

// TestLoadWarningBesideOverbooked: in warn mode a write that overbooks and
// overloads its truck carries both warnings, the stock guard's first.
func TestLoadWarningBesideOverbooked(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	mode := tenancy.StockGuardWarn
	if _, err := tenancy.UpdateOrganization(context.Background(), env.Svc.DB, a.ID, tenancy.OrganizationUpdate{StockGuardMode: &mode}); err != nil {
		t.Fatal(err)
	}
	rows := bookingtest.For(env, a)
	v := truck(rows, "Van", 150, nil, nil, nil)
	eq := rows.Insert("equipment", map[string]any{"name": "Sub", "stock_quantity": 1, "weight_lbs": 100})
	r := onTruck(t, a, eq, v, 1, 2, 2)
	ws, _ := r.JSON()["warnings"].([]any)
	if len(ws) != 2 || ws[0].(map[string]any)["code"] != "overbooked" || ws[1].(map[string]any)["code"] != "over_payload" {
		t.Errorf("warnings: %s", r.Body)
	}
}

// TestLoadWarningDetailsAreTheLoad: a write's over_payload details are the
// truck's load over the write's window, figure for figure, when the truck
// carries several reservations of one equipment, some with unknown
// figures: the write reads them from the database as steps summed by
// instant and figures (never reading the reservations), and each
// reservation of an equipment without a figure still counts once among the
// unknown. The peaks agree too: 1,023.5 lb on day 3, where the Σ is 1,234.
func TestLoadWarningDetailsAreTheLoad(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	v := truck(rows, "Box truck", 1000, 100, 50, 40)
	amp := item(rows, "Amp rack", 120.5, 24, 22, 14)
	deck := item(rows, "Stage deck", 90, nil, nil, nil)
	cable := item(rows, "Cable", nil, 20, 20, 12)
	bare := item(rows, "Bare", nil, nil, nil, nil)
	for _, b := range []struct {
		eq               uuid.UUID
		from, to, amount int
	}{{amp, 1, 4, 2}, {amp, 2, 3, 1}, {deck, 1, 2, 1}, {deck, 3, 4, 2}, {cable, 1, 4, 3}, {cable, 2, 4, 1}, {bare, 1, 4, 1}, {bare, 2, 3, 4}} {
		onTruck(t, a, b.eq, v, b.from, b.to, b.amount)
	}
	r := onTruck(t, a, amp, v, 1, 4, 5) // 8 amp racks: 964 + 270 lbs
	ws, _ := r.JSON()["warnings"].([]any)
	if len(ws) == 0 {
		t.Fatalf("no warning: %s", r.Body)
	}
	got := ws[0].(map[string]any)["details"].(map[string]any)
	load := a.Get(loadPath(v, 1, 4)).Data()
	for _, k := range []string{"payload_lbs", "peak_payload_lbs", "max_payload_lbs", "cargo_volume_cuin", "peak_cargo_volume_cuin", "interior_volume_cuin",
		"over_payload", "over_volume", "unknown_weight_count", "unknown_volume_count", "window_start", "window_end", "vehicle_id"} {
		if got[k] != load[k] {
			t.Errorf("%s: the warning says %v, the load %v", k, got[k], load[k])
		}
	}
	if got["unknown_weight_count"] != 4.0 || got["unknown_volume_count"] != 4.0 || got["payload_lbs"] != 8*120.5+3*90.0 || got["peak_payload_lbs"] != 7*120.5+2*90.0 {
		t.Errorf("details %v: want 4 reservations of unknown weight and 4 of unknown volume, %v lbs", got, 8*120.5+3*90.0)
	}
}
