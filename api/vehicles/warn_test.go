package vehicles_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
)

// TestAVehiclePatchWarnsOfTheReservationsItLeaves: a PATCH that takes a
// vehicle out of service answers reservations_on_vehicle naming its
// reservations that hold stock and end after now (not one that ended, not a
// cancelled one); a PATCH that cuts its payload answers over_payload when
// the peak of what it carries from now on exceeds the new figure (two
// bookings of 180.5 lb riding together: 361 lb), not when it does not; a
// PATCH of the name and one back to available get none. The vehicle is
// written in every case.
func TestAVehiclePatchWarnsOfTheReservationsItLeaves(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	truck := rows.Vehicle("Box truck", "available").String()
	reserve := func(name, status, start, end string) string {
		eq := rows.Equipment(name, bookingtest.Stock(10), nil) // 180.5 lb each
		r := a.Post("/api/v2/equipment_reservations", map[string]any{"equipment_id": eq.String(), "vehicle_id": truck,
			"start_date": start, "end_date": end, "reservation_status": status})
		if r.Status != 201 {
			t.Fatalf("reserve %s: %d %s", name, r.Status, r.Body)
		}
		return r.Data()["id"].(string)
	}
	reserve("Amp", "returned", "2027-06-01T08:00:00Z", "2027-06-03T08:00:00Z")         // holds nothing
	reserve("Old console", "reserved", "2026-01-05T08:00:00Z", "2026-01-06T08:00:00Z") // ended: not named
	console := reserve("Console", "reserved", "2027-06-01T08:00:00Z", "2027-06-03T08:00:00Z")
	desk := reserve("Desk", "checked_out", "2027-06-02T08:00:00Z", "2027-06-04T08:00:00Z")
	reserve("Spare", "cancelled", "2027-06-01T08:00:00Z", "2027-06-03T08:00:00Z")

	type want struct {
		code  string
		count int
	}
	for _, tc := range []struct {
		name  string
		org   *apitest.Org
		body  map[string]any
		warns []want
	}{
		{"the name", a, map[string]any{"name": "Box truck 26"}, nil},
		{"to maintenance", a, map[string]any{"status": "maintenance"}, []want{{"reservations_on_vehicle", 2}}},
		{"back to available", a, map[string]any{"status": "available"}, nil},
		{"a payload the two carry together exceed", a, map[string]any{"max_payload_lbs": 300}, []want{{"over_payload", 0}}},
		{"a payload they fit", a, map[string]any{"max_payload_lbs": 400}, nil},
		{"retired with a payload they exceed", a, map[string]any{"status": "retired", "max_payload_lbs": 200},
			[]want{{"reservations_on_vehicle", 2}, {"over_payload", 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.org.Patch(path+"/"+truck, tc.body)
			if r.Status != 200 {
				t.Fatalf("PATCH: %d %s", r.Status, r.Body)
			}
			for k, v := range tc.body {
				if r.Data()[k] != v && r.Data()[k] != float64(toInt(v)) {
					t.Errorf("%s = %v, want %v written", k, r.Data()[k], v)
				}
			}
			ws, _ := r.JSON()["warnings"].([]any)
			if len(ws) != len(tc.warns) {
				t.Fatalf("warnings %v, want %v", ws, tc.warns)
			}
			for i, w := range tc.warns {
				got := ws[i].(map[string]any)
				d, _ := got["details"].(map[string]any)
				if got["code"] != w.code {
					t.Fatalf("warning %d: %v, want %s", i, got, w.code)
				}
				switch w.code {
				case "reservations_on_vehicle":
					ids, _ := d["reservation_ids"].([]any)
					if d["count"] != float64(w.count) || len(ids) != 2 || ids[0] != console || ids[1] != desk ||
						d["vehicle_status"] != r.Data()["status"] {
						t.Errorf("details %v, want the console and the desk", d)
					}
				case "over_payload":
					if d["peak_payload_lbs"] != 361.0 || d["payload_lbs"] != 361.0 || d["over_payload"] != true {
						t.Errorf("details %v, want a peak of 361 lb", d)
					}
				}
			}
		})
	}
}

// toInt is v as an int when it is one (a JSON number is read back as a
// float64), else 0.
func toInt(v any) int {
	n, _ := v.(int)
	return n
}
