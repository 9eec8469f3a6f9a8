package planning_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/planning"
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
