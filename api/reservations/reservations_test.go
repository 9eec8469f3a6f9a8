package reservations_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestReservationLifecycle(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Line array", bookingtest.Stock(10), nil)
	ev := rows.Event("Festival")
	truck := rows.Vehicle("Truck 1", "available")

	res := a.Post(base, reserve(eq, 1, 3, "event_id", ev.String(), "vehicle_id", truck.String(), "truck_position", "front left", "notes", "fragile"))
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	d := res.Data()
	id := d["id"].(string)
	for k, v := range map[string]any{"quantity": 1.0, "reservation_status": "reserved", "overbooked": false, "demo": false,
		"truck_position": "front left", "event_id": ev.String(), "vehicle_id": truck.String(), "equipment_id": eq.String(),
		"start_date": "2026-05-01T08:00:00Z", "end_date": "2026-05-03T08:00:00Z", "overbook_reason": nil} {
		if d[k] != v {
			t.Errorf("create %s = %v, want %v", k, d[k], v)
		}
	}
	if _, ok := d["equipment"]; ok {
		t.Errorf("unexpanded equipment present: %v", d)
	}
	if _, ok := res.JSON()["warnings"]; ok {
		t.Errorf("warnings without overbooking: %s", res.Body)
	}

	got := a.Get(base + "/" + id + "?expand=equipment,event,vehicle")
	if got.Status != 200 {
		t.Fatalf("get: %d %s", got.Status, got.Body)
	}
	g := got.Data()
	if e, _ := g["equipment"].(map[string]any); e["name"] != "Line array" || e["weight_lbs"] != 180.5 || e["daily_rate"] != 125.5 {
		t.Errorf("expanded equipment = %v", g["equipment"])
	}
	if e, _ := g["event"].(map[string]any); e["name"] != "Festival" {
		t.Errorf("expanded event = %v", g["event"])
	}
	if v, _ := g["vehicle"].(map[string]any); v["name"] != "Truck 1" || v["status"] != "available" {
		t.Errorf("expanded vehicle = %v", g["vehicle"])
	}

	list := a.Get(base + "?event_id=" + ev.String() + "&expand=vehicle")
	if items := list.List(); list.Status != 200 || len(items) != 1 || items[0]["id"] != id || items[0]["vehicle"] == nil {
		t.Fatalf("list: %d %s", list.Status, list.Body)
	}

	p := a.Patch(base+"/"+id, body("quantity", 3, "truck_position", nil, "reservation_status", "checked_out"))
	if p.Status != 200 || p.Data()["quantity"] != 3.0 || p.Data()["truck_position"] != nil || p.Data()["reservation_status"] != "checked_out" {
		t.Fatalf("patch: %d %s", p.Status, p.Body)
	}
	if p.Data()["updated_at"] == d["updated_at"] {
		t.Errorf("updated_at did not change")
	}
	if g := a.Get(base + "/" + id).Data(); g["quantity"] != 3.0 || g["notes"] != "fragile" {
		t.Errorf("after patch: %v", g)
	}
	// An empty patch changes nothing.
	if e := a.Patch(base+"/"+id, body()); e.Status != 200 || e.Data()["updated_at"] != p.Data()["updated_at"] {
		t.Errorf("empty patch: %d %s", e.Status, e.Body)
	}

	if del := a.Delete(base + "/" + id); del.Status != 204 || len(del.Body) != 0 {
		t.Fatalf("delete: %d %q", del.Status, del.Body)
	}
	want(t, a.Get(base+"/"+id), 404, "not_found")
	want(t, a.Delete(base+"/"+id), 404, "not_found")
}

func TestExpandWithoutRelationIsNull(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Mixer", nil, nil)
	res := a.Post(base, reserve(eq, 1, 2))
	if res.Status != 201 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	g := a.Get(base + "/" + res.Data()["id"].(string) + "?expand=event,vehicle").JSON()["data"].(map[string]any)
	for _, k := range []string{"event", "vehicle"} {
		if v, ok := g[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, ok)
		}
	}
	want(t, a.Get(base+"/"+res.Data()["id"].(string)+"?expand=client"), 422, "validation_error")
	want(t, a.Get(base+"?expand=items"), 422, "validation_error")
}

func TestListFiltersAndPaging(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Par can", nil, nil)
	truck := rows.Vehicle("Truck", "available")
	var events []string
	for i := 0; i < 5; i++ {
		ev := rows.Event("E" + string(rune('a'+i)))
		events = append(events, ev.String())
		kv := []any{"event_id", ev.String()}
		if i%2 == 0 {
			kv = append(kv, "vehicle_id", truck.String())
		}
		if i == 4 {
			kv = append(kv, "reservation_status", "returned")
		}
		if res := a.Post(base, reserve(eq, 1, 2, kv...)); res.Status != 201 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	}
	count := func(q string) int {
		t.Helper()
		res := a.Get(base + q)
		if res.Status != 200 {
			t.Fatalf("%s: %d %s", q, res.Status, res.Body)
		}
		return len(res.List())
	}
	for q, n := range map[string]int{"": 5, "?vehicle_id=" + truck.String(): 3, "?event_id=" + events[1]: 1,
		"?status=returned": 1, "?status=reserved": 4, "?status=cancelled": 0} {
		if got := count(q); got != n {
			t.Errorf("%q: %d items, want %d", q, got, n)
		}
	}
	// A cursor follows the filter's value, not its spelling: one issued
	// for a lower-case vehicle id goes on with the same id in upper case.
	first := a.Get(base + "?limit=1&vehicle_id=" + truck.String())
	cursor, _ := first.JSON()["pagination"].(map[string]any)["next_cursor"].(string)
	if next := a.Get(base + "?limit=1&vehicle_id=" + strings.ToUpper(truck.String()) + "&cursor=" + url.QueryEscape(cursor)); cursor == "" || next.Status != 200 || len(next.List()) != 1 {
		t.Errorf("cursor with the id in upper case: %d %s", next.Status, next.Body)
	}
	seen := map[string]bool{}
	path := base + "?limit=2"
	for pages := 0; ; pages++ {
		res := a.Get(path)
		for _, it := range res.List() {
			if seen[it["id"].(string)] {
				t.Fatalf("%s seen twice", it["id"])
			}
			seen[it["id"].(string)] = true
		}
		pg := res.JSON()["pagination"].(map[string]any)
		if pg["has_more"] != true {
			break
		}
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		path = base + "?limit=2&cursor=" + pg["next_cursor"].(string)
	}
	if len(seen) != 5 {
		t.Errorf("paged %d records, want 5", len(seen))
	}
	for _, q := range []string{"?event_id=nope", "?vehicle_id=123", "?status=lost", "?limit=0", "?limit=101", "?limit=x",
		"?cursor=abc", "?expand=equipment,bogus"} {
		want(t, a.Get(base+q), 422, "validation_error")
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eqID := rows.Equipment("Truss", bookingtest.Stock(5), nil)
	eq := eqID.String()
	inUse := rows.Vehicle("Busy truck", "in_use").String()
	s, e := window(1, 2)
	long := strings.Repeat("x", 100_000)
	tests := []struct {
		name   string
		body   any
		status int
		code   string
		field  string
	}{
		{"not json", `{"equipment_id":`, 400, "malformed_json", ""},
		{"array", `[]`, 422, "validation_error", "body"},
		{"empty", body(), 422, "validation_error", "equipment_id,start_date,end_date"},
		{"bad uuid", body("equipment_id", "abc", "start_date", s, "end_date", e), 422, "validation_error", "equipment_id"},
		{"uuid number", body("equipment_id", 7, "start_date", s, "end_date", e), 422, "validation_error", "equipment_id"},
		{"bad date", body("equipment_id", eq, "start_date", "2026-05-01", "end_date", e), 422, "validation_error", "start_date"},
		{"end before start", body("equipment_id", eq, "start_date", e, "end_date", s), 422, "validation_error", "end_date"},
		{"end equals start", body("equipment_id", eq, "start_date", s, "end_date", s), 422, "validation_error", "end_date"},
		{"quantity zero", body("equipment_id", eq, "start_date", s, "end_date", e, "quantity", 0), 422, "validation_error", "quantity"},
		{"quantity fraction", body("equipment_id", eq, "start_date", s, "end_date", e, "quantity", 1.5), 422, "validation_error", "quantity"},
		{"bad status", body("equipment_id", eq, "start_date", s, "end_date", e, "reservation_status", "lost"), 422, "validation_error", "reservation_status"},
		{"truck position 121", body("equipment_id", eq, "start_date", s, "end_date", e, "truck_position", strings.Repeat("p", 121)), 422, "validation_error", "truck_position"},
		{"100 kB notes", body("equipment_id", eq, "start_date", s, "end_date", e, "notes", long), 422, "validation_error", "notes"},
		{"unknown field", body("equipment_id", eq, "start_date", s, "end_date", e, "colour", "red"), 422, "validation_error", "colour"},
		{"read-only", body("equipment_id", eq, "start_date", s, "end_date", e, "overbooked", true, "demo", true), 422, "validation_error", "overbooked,demo"},
		{"bad ownership", body("equipment_id", eq, "start_date", s, "end_date", e, "overbook_cost_ownership", "me"), 422, "validation_error", "overbook_cost_ownership"},
		{"force not bool", body("equipment_id", eq, "start_date", s, "end_date", e, "force_overbook", "yes"), 422, "validation_error", "force_overbook"},
		{"unknown equipment", body("equipment_id", "3f1c2a9e-0000-4000-8000-000000000000", "start_date", s, "end_date", e), 422, "validation_error", "equipment_id"},
		{"unknown event", body("equipment_id", eq, "start_date", s, "end_date", e, "event_id", "3f1c2a9e-0000-4000-8000-000000000000"), 422, "validation_error", "event_id"},
		{"vehicle in use", body("equipment_id", eq, "start_date", s, "end_date", e, "vehicle_id", inUse), 422, "validation_error", "vehicle_id"},
		{"force without reason", body("equipment_id", eq, "start_date", s, "end_date", e, "force_overbook", true), 422, "overbook_reason_required", ""},
		{"force short reason", body("equipment_id", eq, "start_date", s, "end_date", e, "force_overbook", true, "overbook_reason", " ab "), 422, "overbook_reason_required", ""},
		{"too much stock", body("equipment_id", eq, "start_date", s, "end_date", e, "quantity", 6), 422, "overbook_blocked", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Post(base, tt.body)
			want(t, res, tt.status, tt.code)
			if tt.field != "" && fields(res) != tt.field {
				t.Errorf("fields = %q, want %q", fields(res), tt.field)
			}
			if n := rows.Count("equipment_reservations"); n != 0 {
				t.Fatalf("%d reservations written", n)
			}
		})
	}

	// The same through PATCH, on an existing reservation.
	res := a.Post(base, reserve(eqID, 1, 2))
	if res.Status != 201 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	id := res.Data()["id"].(string)
	before := string(a.Get(base + "/" + id).Body)
	patches := []struct {
		name string
		body any
		code string
	}{
		{"start after stored end", body("start_date", "2026-05-09T00:00:00Z"), "validation_error"},
		{"null start", body("start_date", nil), "validation_error"},
		{"null equipment", body("equipment_id", nil), "validation_error"},
		{"null quantity", body("quantity", nil), "validation_error"},
		{"read-only id beside a bad field", body("id", id, "quantity", 0), "validation_error"},
		{"vehicle in use", body("vehicle_id", inUse), "validation_error"},
		{"force without reason", body("force_overbook", true, "quantity", 2), "overbook_reason_required"},
		{"over stock", body("quantity", 6), "overbook_blocked"},
		{"not json", "{", "malformed_json"},
	}
	for _, tt := range patches {
		t.Run("patch "+tt.name, func(t *testing.T) {
			res := a.Patch(base+"/"+id, tt.body)
			if res.ErrorCode() != tt.code {
				t.Fatalf("want %s, got %d %s", tt.code, res.Status, res.Body)
			}
			if after := string(a.Get(base + "/" + id).Body); before != after {
				t.Fatalf("record changed:\n%s\n%s", before, after)
			}
		})
	}
	want(t, a.Patch(base+"/not-a-uuid", body("quantity", 1)), 404, "not_found")
	want(t, a.Patch(base+"/3f1c2a9e-0000-4000-8000-000000000000", body("quantity", 1)), 404, "not_found")
}

func TestScopes(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrgWithKey("A", apikey.Live, tenancy.EquipmentReservationsRead)
	eq := bookingtest.For(env, a).Equipment("Amp", nil, nil)
	want(t, a.Post(base, reserve(eq, 1, 2)), 403, "insufficient_scope")
	if res := a.Get(base); res.Status != 200 {
		t.Fatalf("read: %d %s", res.Status, res.Body)
	}
	w := env.NewOrgWithKey("W", apikey.Live, tenancy.EquipmentReservationsWrite)
	want(t, w.Get(base), 403, "insufficient_scope")
	want(t, w.Get(base+"/3f1c2a9e-0000-4000-8000-000000000000"), 403, "insufficient_scope")
	want(t, w.Delete(base+"/3f1c2a9e-0000-4000-8000-000000000000"), 404, "not_found")
}

func TestSandboxKeyMarksDemo(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	eq := bookingtest.For(env, a).Equipment("Amp", nil, nil)
	test := *a
	test.Key = env.NewKey(a.ID, apikey.Test, tenancy.AllScopes...)
	res := test.Post(base, reserve(eq, 1, 2))
	if res.Status != 201 || res.Data()["demo"] != true {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
}

// TestAReactivatedBookingChecksItsTruck: a cancelled reservation on a truck
// that has since gone into maintenance cannot be made reserved again with
// that truck (422 on vehicle_id, nothing written): it books the truck
// anew, and only an available truck can be booked. Only a change of
// vehicle_id was checked. A PATCH that leaves the reservation cancelled,
// or one of a live reservation's other fields, is not held up.
func TestAReactivatedBookingChecksItsTruck(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Truss", bookingtest.Stock(5), nil).String()
	truck := rows.Vehicle("Box truck", "available").String()
	s, e := window(1, 2)
	res := a.Post(base, body("equipment_id", eq, "start_date", s, "end_date", e, "vehicle_id", truck, "reservation_status", "cancelled"))
	want(t, res, 201, "")
	id := res.Data()["id"].(string)
	live := a.Post(base, body("equipment_id", eq, "start_date", s, "end_date", e, "vehicle_id", truck))
	want(t, live, 201, "")
	want(t, a.Patch("/api/v2/vehicles/"+truck, body("status", "maintenance")), 200, "")

	res = a.Patch(base+"/"+id, body("reservation_status", "reserved"))
	want(t, res, 422, "validation_error")
	if fields(res) != "vehicle_id" {
		t.Fatalf("refusal names %q, want vehicle_id", fields(res))
	}
	if got := a.Get(base + "/" + id).Data()["reservation_status"]; got != "cancelled" {
		t.Fatalf("reservation_status %v after the refusal, want cancelled", got)
	}
	want(t, a.Patch(base+"/"+id, body("notes", "still cancelled")), 200, "")
	want(t, a.Patch(base+"/"+live.Data()["id"].(string), body("notes", "on the truck")), 200, "")
}
