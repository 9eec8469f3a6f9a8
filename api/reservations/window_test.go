package reservations_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestReservationDateWindow: GET /equipment_reservations with start and end
// lists the reservations of every status whose dates overlap the window,
// with the other filters, and never another organization's. The window's
// parsing and bounds are those of GET /events (api/events, window_test.go).
func TestReservationDateWindow(t *testing.T) {
	env := newEnv(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Line array", bookingtest.Stock(100), nil)
	truck := rows.Vehicle("Truck 1", "available")
	other := rows.Vehicle("Truck 2", "available")
	id := func(body map[string]any) string {
		res := a.Post(base, body)
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		return res.Data()["id"].(string)
	}
	before := id(reserve(eq, 1, 5, "vehicle_id", truck.String()))               // ends where the window starts
	first := id(reserve(eq, 4, 6, "vehicle_id", truck.String()))                // overlaps its start
	returned := id(reserve(eq, 6, 7, "reservation_status", "returned"))         // inside, a status holding nothing
	onOther := id(reserve(eq, 8, 9, "vehicle_id", other.String()))              // inside, another truck
	after := id(reserve(eq, 12, 14, "vehicle_id", truck.String()))              // starts where it ends
	span := id(reserve(eq, 2, 20, "vehicle_id", truck.String(), "quantity", 2)) // spans it
	foreignEq := bookingtest.For(env, b).Equipment("Foreign", bookingtest.Stock(5), nil)
	if res := b.Post(base, reserve(foreignEq, 1, 30)); res.Status != 201 {
		t.Fatalf("B's reservation: %d %s", res.Status, res.Body)
	}

	week := "start=2026-05-05T08:00:00Z&end=2026-05-12T08:00:00Z"
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"the window", week, []string{first, returned, onOther, span}},
		{"the window on one truck", week + "&vehicle_id=" + truck.String(), []string{first, span}},
		{"the window, returned only", week + "&status=returned", []string{returned}},
		{"start alone", "start=2026-05-12T08:00:00Z", []string{after, span}},
		{"end alone", "end=2026-05-02T08:00:01Z", []string{before, span}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crudtest.AssertExactlyOnce(t, crudtest.Walk(t, a, base+"?"+tc.query, 1, nil), tc.want)
		})
	}
	crudtest.Rejects(t, env, a, "equipment_reservations", []crudtest.Case{
		{Name: "start not a date-time", Method: "GET", Path: base + "?start=next-week", Status: 422, Code: "validation_error", Field: "start"},
		{Name: "end before start", Method: "GET", Path: base + "?start=2026-05-12T08:00:00Z&end=2026-05-05T08:00:00Z", Status: 422, Code: "validation_error", Field: "end"},
		{Name: "end before start within a microsecond", Method: "GET", Path: base + "?start=2026-05-12T08:00:00.0000009Z&end=2026-05-12T08:00:00.0000001Z", Status: 422, Code: "validation_error", Field: "end"},
		{Name: "a cursor of the list without the window", Method: "GET", Path: base + "?" + week + "&cursor=" + crudtest.Cursor(t, a, base),
			Status: 422, Code: "validation_error", Field: "cursor"},
	})
}
