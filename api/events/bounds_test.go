package events_test

import (
	"context"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/events"
	"github.com/eventapi/eventapi/api/storage/reservations"
	"github.com/eventapi/eventapi/platform/config"
)

// TestAnExpansionInlinesAtMostMaxInlined: an event's reservations are
// inlined up to MaxInlined (cancelled ones count: any number of them may
// name one equipment); one more makes expand=equipment_reservations a 422
// on expand that says how to page them, while the event without the
// expansion still answers. The expanded GET waits for the large-read
// bulkhead; the plain one does not.
func TestAnExpansionInlinesAtMostMaxInlined(t *testing.T) {
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.LargeReads = 1 }))
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	ev, eq := rows.Event("Festival"), rows.Equipment("Cable", nil, nil)
	if _, err := env.Svc.DB.ExecContext(context.Background(), `INSERT INTO equipment_reservations
		(organization_id, equipment_id, event_id, start_date, end_date, reservation_status)
		SELECT ?, ?, ?, '2027-06-01', '2027-06-02', 'cancelled' FROM generate_series(1, ?)`,
		a.ID, eq, ev, events.MaxInlined); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v2/events/", "/api/v2/jobs/"} {
		res := a.Get(path + ev.String() + "?expand=equipment_reservations,equipment")
		if n := len(asList(res.Data()["equipment_reservations"])); res.Status != 200 || n != events.MaxInlined {
			t.Fatalf("%s with %d reservations: %d, %d inlined; want 200 and all", path, events.MaxInlined, res.Status, n)
		}
	}

	release := env.HoldLargeReads()
	results := a.GetWhileHeld(t, "/api/v2/events/"+ev.String()+"?expand=equipment_reservations")
	if res := a.Get("/api/v2/events/" + ev.String() + "?expand=equipment"); res.Status != 200 {
		t.Fatalf("an event without its reservations while the slot was held: %d %s", res.Status, res.Body)
	}
	if res := apitest.ReleaseAndCollect(t, results, 1, release)[0]; res.Status != 200 {
		t.Fatalf("after the slot was freed: %d", res.Status)
	}

	if res := a.Post("/api/v2/equipment_reservations", map[string]any{"equipment_id": eq.String(), "event_id": ev.String(),
		"start_date": "2027-06-01T00:00:00Z", "end_date": "2027-06-02T00:00:00Z"}); res.Status != 201 {
		t.Fatalf("one more reservation: %d %s", res.Status, res.Body)
	}
	for _, path := range []string{"/api/v2/events/", "/api/v2/jobs/"} {
		res := a.Get(path + ev.String() + "?expand=equipment_reservations")
		if res.Status != 422 || !strings.Contains(res.FieldIssue("expand"), "event_id="+ev.String()) {
			t.Fatalf("%s with %d reservations: %d (%d inlined) %q, want 422 on expand naming the page to read",
				path, events.MaxInlined+1, res.Status, len(asList(res.Data()["equipment_reservations"])), res.FieldIssue("expand"))
		}
		if res := a.Get(path + ev.String()); res.Status != 200 {
			t.Fatalf("%s without expand: %d %s", path, res.Status, res.Body)
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestAnExpansionIsBoundedByItsText: an event's inlined reservations hold
// at most reservations.MaxText bytes of notes, truck positions and
// overbook reasons; one byte more is a 422 on expand.
func TestAnExpansionIsBoundedByItsText(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	ev, eq := rows.Event("Festival"), rows.Equipment("Cable", nil, nil)
	if _, err := env.Svc.DB.ExecContext(context.Background(), `INSERT INTO equipment_reservations
		(organization_id, equipment_id, event_id, start_date, end_date, reservation_status, notes)
		SELECT ?, ?, ?, '2027-06-01', '2027-06-02', 'cancelled', repeat('n', ? / 4) FROM generate_series(1, 4)`,
		a.ID, eq, ev, reservations.MaxText); err != nil {
		t.Fatal(err)
	}
	path := "/api/v2/events/" + ev.String() + "?expand=equipment_reservations"
	if res := a.Get(path); res.Status != 200 {
		t.Fatalf("reservations of %d bytes of text: %d", reservations.MaxText, res.Status)
	}
	if _, err := env.Svc.DB.ExecContext(context.Background(), `UPDATE equipment_reservations SET truck_position = 'x'
		WHERE organization_id = ? AND id = (SELECT id FROM equipment_reservations WHERE organization_id = ? LIMIT 1)`, a.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if res := a.Get(path); res.Status != 422 || !strings.Contains(res.FieldIssue("expand"), "more than 8388608 bytes") {
		t.Fatalf("one byte more: %d %q, want 422 on expand", res.Status, res.FieldIssue("expand"))
	}
}
