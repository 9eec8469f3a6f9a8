package planning_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/planning"
	"github.com/eventapi/eventapi/api/storage/reservations"
)

// TestAnswersAreBounded: an availability answer or a load is built from at
// most planning.MaxHolds reservations; a window that holds more is a 422 on
// the parameter that set it, before the answer is built (a year of a busy
// truck was a 10 MB answer, a batch of 100 busy records 24 MB).
func TestAnswersAreBounded(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	busy := rows.Equipment("Busy", nil, nil)
	idle := rows.Equipment("Idle", nil, nil)
	truck := a.Post("/api/v2/vehicles", map[string]any{"name": "Truck", "status": "available"}).Data()["id"].(string)
	event := a.Post("/api/v2/events", map[string]any{"name": "Season", "venue": "Hall",
		"start_date": "2026-01-01T00:00:00Z", "end_date": "2026-12-31T00:00:00Z"}).Data()["id"].(string)
	// MaxHolds reservations of an hour each, one an hour from 2026-01-01 on.
	_, err := env.Svc.DB.ExecContext(context.Background(), `
		INSERT INTO equipment_reservations (organization_id, equipment_id, vehicle_id, start_date, end_date, quantity)
		SELECT ?, ?, ?, timestamptz '2026-01-01' + g * interval '1 hour', timestamptz '2026-01-01' + (g + 1) * interval '1 hour', 1
		FROM generate_series(1, ?) g`, a.ID, busy, truck, planning.MaxHolds)
	if err != nil {
		t.Fatal(err)
	}
	window := "start=" + url.QueryEscape("2026-01-01T00:00:00Z") + "&end=" + url.QueryEscape("2026-12-31T00:00:00Z")
	paths := []struct{ name, path, field string }{
		{"availability", "/api/v2/equipment/" + busy.String() + "/availability?" + window, "end"},
		{"batch availability", "/api/v2/availability?equipment_id=" + busy.String() + "," + idle.String() + "&" + window, "end"},
		{"load", "/api/v2/vehicles/" + truck + "/load?" + window, "end"},
		{"load by event", "/api/v2/vehicles/" + truck + "/load?event_id=" + event, "event_id"},
	}
	for _, p := range paths {
		if r := a.Get(p.path); r.Status != 200 {
			t.Fatalf("%s over %d reservations: %d %s", p.name, planning.MaxHolds, r.Status, r.Body)
		}
	}
	_, err = env.Svc.DB.ExecContext(context.Background(), `
		INSERT INTO equipment_reservations (organization_id, equipment_id, vehicle_id, start_date, end_date, quantity)
		VALUES (?, ?, ?, '2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z', 1)`, a.ID, busy, truck)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		r := a.Get(p.path)
		if r.Status != 422 || !strings.Contains(string(r.Body), `"field":"`+p.field+`"`) || !strings.Contains(string(r.Body), "more than 5000 reservations") {
			t.Errorf("%s over %d reservations: %d %s, want 422 on %s", p.name, planning.MaxHolds+1, r.Status, r.Body, p.field)
		}
	}
}

// TestALoadIsBoundedByItsText: a load inlines its reservations' notes, so
// the count bound alone let a load within it be 204 MB; the reservations
// of one answer hold at most reservations.MaxText bytes of notes, truck
// positions and overbook reasons. A load at the bound answers; one byte
// more is a 422 on the parameter that set the window.
func TestALoadIsBoundedByItsText(t *testing.T) {
	env := newEnv(t)
	a := env.NewOrg("A")
	rows := bookingtest.For(env, a)
	eq := rows.Equipment("Cable", nil, nil)
	truck := a.Post("/api/v2/vehicles", map[string]any{"name": "Truck", "status": "available"}).Data()["id"].(string)
	const n = 8
	_, err := env.Svc.DB.ExecContext(context.Background(), `
		INSERT INTO equipment_reservations (organization_id, equipment_id, vehicle_id, start_date, end_date, truck_position, notes)
		SELECT ?, ?, ?, '2026-06-01', '2026-06-02', 'front', repeat('n', ? / ? - 5) FROM generate_series(1, ?) g`,
		a.ID, eq, truck, reservations.MaxText, n, n)
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v2/vehicles/" + truck + "/load?start=" + url.QueryEscape("2026-06-01T00:00:00Z") + "&end=" + url.QueryEscape("2026-06-03T00:00:00Z")
	if r := a.Get(path); r.Status != 200 || len(r.Body) < reservations.MaxText {
		t.Fatalf("a load of %d bytes of text: %d, %d bytes", reservations.MaxText, r.Status, len(r.Body))
	}
	if _, err := env.Svc.DB.ExecContext(context.Background(), `UPDATE equipment_reservations SET overbook_reason = 'x'
		WHERE organization_id = ? AND id = (SELECT id FROM equipment_reservations WHERE organization_id = ? LIMIT 1)`, a.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if r := a.Get(path); r.Status != 422 || !strings.Contains(r.FieldIssue("end"), "more than 8388608 bytes of notes") {
		t.Fatalf("a load of one byte more: %d %.400s, want 422 on end", r.Status, r.Body)
	}
}
