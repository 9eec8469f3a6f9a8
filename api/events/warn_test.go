package events_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestMovingAnEventWarnsOfItsReservations: a PATCH that moves an event's
// dates away from its reservations (which keep their own) answers the
// reservations_outside_event warning naming those that hold stock and
// overlapped the old dates; one that keeps them overlapping, one that
// leaves the dates alone, one of an event already away from them (a
// load-in booked the day before stays outside every move), and a key that
// may not read reservations get none. The dates are written in every case.
func TestMovingAnEventWarnsOfItsReservations(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	ev := newEvent(t, a, map[string]any{"start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T08:00:00Z"})
	id := ev["id"].(string)
	reserve := func(status string) string {
		eq := rows.Equipment("Console "+status, bookingtest.Stock(10), nil) // one reservation per item and event
		r := a.Post("/api/v2/equipment_reservations", map[string]any{"equipment_id": eq.String(), "event_id": id,
			"start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T08:00:00Z", "reservation_status": status})
		if r.Status != 201 {
			t.Fatalf("reserve: %d %s", r.Status, r.Body)
		}
		return r.Data()["id"].(string)
	}
	held, checkedOut := reserve("reserved"), reserve("checked_out")
	reserve("cancelled") // holds nothing: never named
	noReservations := a.WithKey(apikey.Live, tenancy.EventsRead, tenancy.EventsWrite)

	for _, tc := range []struct {
		name  string
		org   *apitest.Org
		body  map[string]any
		warns []string // the ids named, nil: no warning
	}{
		{"the name only", a, map[string]any{"name": "Renamed"}, nil},
		{"dates still overlapping", a, map[string]any{"start_date": "2026-06-02T08:00:00Z", "end_date": "2026-06-05T08:00:00Z"}, nil},
		{"moved a week on", a, map[string]any{"start_date": "2026-06-08T08:00:00Z", "end_date": "2026-06-10T08:00:00Z"}, []string{held, checkedOut}},
		{"the end alone, back to where they were", a, map[string]any{"start_date": "2026-05-30T08:00:00Z"}, nil},
		{"ending as they start", a, map[string]any{"end_date": "2026-06-01T08:00:00Z"}, []string{held, checkedOut}},
		{"moved again, already away from them", a, map[string]any{"start_date": "2026-07-01T08:00:00Z", "end_date": "2026-07-02T08:00:00Z"}, nil},
		{"back over them", a, map[string]any{"start_date": "2026-06-01T00:00:00Z", "end_date": "2026-06-04T00:00:00Z"}, nil},
		{"moved away by a key that may not read reservations", noReservations, map[string]any{"start_date": "2026-08-01T08:00:00Z", "end_date": "2026-08-02T08:00:00Z"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.org.Patch(path+"/"+id, tc.body)
			if r.Status != 200 {
				t.Fatalf("PATCH: %d %s", r.Status, r.Body)
			}
			for k, v := range tc.body {
				if r.Data()[k] != v {
					t.Errorf("%s = %v, want %v written", k, r.Data()[k], v)
				}
			}
			if d := namedWarning(t, r, "reservations_outside_event", tc.warns); d != nil &&
				(d["window_start"] != r.Data()["start_date"] || d["window_end"] != r.Data()["end_date"]) {
				t.Errorf("details %v, want the event's new dates as the window", d)
			}
		})
	}
}

// TestEndingAnEventWarnsOfWhatItStillHolds: a PATCH that sets an event's
// status to cancelled or completed answers the reservations_still_held
// warning naming its reservations still reserved or checked out, whatever
// their dates (a returned or cancelled one is not named); another status, a
// PATCH without a status, and a key that may not read reservations get
// none. The status is written in every case, and the reservations keep
// theirs.
func TestEndingAnEventWarnsOfWhatItStillHolds(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	ev := newEvent(t, a, map[string]any{"start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T08:00:00Z"})
	id := ev["id"].(string)
	reserve := func(status, start, end string) string {
		eq := rows.Equipment("Console "+status+start, bookingtest.Stock(10), nil) // one reservation per item and event
		r := a.Post("/api/v2/equipment_reservations", map[string]any{"equipment_id": eq.String(), "event_id": id,
			"start_date": start, "end_date": end, "reservation_status": status})
		if r.Status != 201 {
			t.Fatalf("reserve: %d %s", r.Status, r.Body)
		}
		return r.Data()["id"].(string)
	}
	held := reserve("reserved", "2026-06-01T08:00:00Z", "2026-06-03T08:00:00Z")
	out := reserve("checked_out", "2026-06-01T08:00:00Z", "2026-06-03T08:00:00Z")
	loadIn := reserve("reserved", "2026-05-31T08:00:00Z", "2026-06-01T08:00:00Z") // the day before, outside the event
	reserve("returned", "2026-06-01T08:00:00Z", "2026-06-03T08:00:00Z")
	reserve("cancelled", "2026-06-01T08:00:00Z", "2026-06-03T08:00:00Z")
	noReservations := a.WithKey(apikey.Live, tenancy.EventsRead, tenancy.EventsWrite)

	all := []string{held, out, loadIn}
	for _, tc := range []struct {
		name  string
		org   *apitest.Org
		body  map[string]any
		warns []string // the ids named, nil: no warning
	}{
		{"confirmed", a, map[string]any{"status": "confirmed"}, nil},
		{"cancelled", a, map[string]any{"status": "cancelled"}, all},
		{"the name of a cancelled event", a, map[string]any{"name": "Gala (off)"}, nil},
		{"completed", a, map[string]any{"status": "completed"}, all},
		{"completed again", a, map[string]any{"status": "completed"}, all},
		{"cancelled by a key that may not read reservations", noReservations, map[string]any{"status": "cancelled"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.org.Patch(path+"/"+id, tc.body)
			if r.Status != 200 {
				t.Fatalf("PATCH: %d %s", r.Status, r.Body)
			}
			for k, v := range tc.body {
				if r.Data()[k] != v {
					t.Errorf("%s = %v, want %v written", k, r.Data()[k], v)
				}
			}
			if d := namedWarning(t, r, "reservations_still_held", tc.warns); d != nil && d["event_status"] != tc.body["status"] {
				t.Errorf("details %v, want the event's new status", d)
			}
		})
	}
	if r := a.Get("/api/v2/equipment_reservations/" + held); r.Data()["reservation_status"] != "reserved" {
		t.Errorf("the reservation changed: %s", r.Body)
	}
}

// namedWarning checks that r's answer carries exactly one warning, code,
// naming the reservations ids in order with their count, and returns its
// details; with ids nil, that it carries none, and returns nil.
func namedWarning(t *testing.T, r *apitest.Response, code string, ids []string) map[string]any {
	t.Helper()
	ws, _ := r.JSON()["warnings"].([]any)
	if ids == nil {
		if len(ws) != 0 {
			t.Fatalf("warnings %v, want none", ws)
		}
		return nil
	}
	if len(ws) != 1 {
		t.Fatalf("warnings %v, want %s", ws, code)
	}
	w := ws[0].(map[string]any)
	d, _ := w["details"].(map[string]any)
	got, _ := d["reservation_ids"].([]any)
	if w["code"] != code || d["count"] != float64(len(ids)) || len(got) != len(ids) {
		t.Fatalf("warning %v, want %s naming %v", w, code, ids)
	}
	for i, want := range ids {
		if got[i] != want {
			t.Errorf("reservation_ids[%d] = %v, want %v", i, got[i], want)
		}
	}
	return d
}
