package events_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestExpandReservations: GET /events/{id} and /jobs/{id} with
// expand=equipment_reservations inline every reservation of the event (any
// status, creation order) and none of another event or organization;
// equipment and vehicle then inline those records.
func TestExpandReservations(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	rows := bookingtest.For(env, a)
	ev, other := rows.Event("Gala"), rows.Event("Other")
	eq, eq2 := rows.Equipment("Console", nil, nil), rows.Equipment("Amp", nil, nil)
	truck := rows.Vehicle("Truck", "available")
	reserve := func(body map[string]any) string {
		t.Helper()
		body["start_date"], body["end_date"] = "2026-05-01T08:00:00Z", "2026-05-03T08:00:00Z"
		r := a.Post("/api/v2/equipment_reservations", body)
		if r.Status != 201 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		return r.Data()["id"].(string)
	}
	want := []string{
		reserve(map[string]any{"equipment_id": eq.String(), "event_id": ev.String(), "vehicle_id": truck.String()}),
		reserve(map[string]any{"equipment_id": eq2.String(), "event_id": ev.String(), "reservation_status": "cancelled"}),
	}
	reserve(map[string]any{"equipment_id": eq.String(), "event_id": other.String()})

	for _, p := range []string{"/api/v2/events/", "/api/v2/jobs/"} {
		r := a.Get(p + ev.String() + "?expand=equipment_reservations,equipment,vehicle")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", p, r.Status, r.Body)
		}
		rs, _ := r.Data()["equipment_reservations"].([]any)
		var got []string
		for _, x := range rs {
			got = append(got, x.(map[string]any)["id"].(string))
		}
		if !crudtest.Same(got, want) {
			t.Errorf("%s: reservations %v, want %v", p, got, want)
			continue
		}
		first := rs[0].(map[string]any)
		if e, _ := first["equipment"].(map[string]any); e == nil || e["id"] != eq.String() {
			t.Errorf("%s: equipment not inlined: %v", p, first)
		}
		if v, _ := first["vehicle"].(map[string]any); v == nil || v["id"] != truck.String() {
			t.Errorf("%s: vehicle not inlined: %v", p, first)
		}
	}
	plain := a.Get("/api/v2/events/" + ev.String()).Data()
	if _, ok := plain["equipment_reservations"]; ok {
		t.Error("reservations inlined without expand")
	}
	bare := a.Get("/api/v2/events/" + ev.String() + "?expand=equipment_reservations").Data()
	if rs := bare["equipment_reservations"].([]any); len(rs) != 2 || rs[0].(map[string]any)["equipment"] != nil {
		t.Errorf("without equipment the reservations carry only ids: %v", rs)
	}
	if r := b.Get("/api/v2/events/" + ev.String() + "?expand=equipment_reservations"); r.Status != 404 {
		t.Errorf("B: %d", r.Status)
	}
	empty := bookingtest.For(env, b).Event("B's event")
	if rs := b.Get("/api/v2/events/" + empty.String() + "?expand=equipment_reservations").Data()["equipment_reservations"]; rs == nil || len(rs.([]any)) != 0 {
		t.Errorf("event without reservations: %v, want []", rs)
	}
}
