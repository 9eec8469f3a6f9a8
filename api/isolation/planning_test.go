package isolation_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// planningWindow is the window of the planning checks; the shared
// reservation fixture (bookings_test.go) overlaps it.
var planningWindow = "?start=" + url.QueryEscape("2026-06-01T00:00:00Z") + "&end=" + url.QueryEscape("2026-06-05T00:00:00Z")

// Entries for the planning endpoints: availability (single and batch) and
// vehicle load.
func init() {
	register(nil, map[string]Route{
		"GET /api/v2/equipment/:id/availability": {Fixture: "equipment", Query: planningWindow},
		"GET /api/v2/vehicles/:id/load":          {Fixture: "vehicles", Query: planningWindow},
		"GET /api/v2/availability":               {Fixture: "equipment", Check: checkBatchAvailability},
	})
}

// checkBatchAvailability: B naming A's equipment gets 404 (alone or among
// its own), told exactly as for a random id (the answer names the ids it
// did not find), and is served for its own.
func checkBatchAvailability(t *testing.T, s *Suite) {
	mine, theirs := s.Make(t, "equipment", s.B), s.Make(t, "equipment", s.A)
	base := "/api/v2/availability" + planningWindow + "&equipment_id="
	for _, ids := range []string{theirs, mine + "," + theirs} {
		r := s.sameAsMissing(t, s.B, http.MethodGet, base+ids, []string{theirs}, nil)
		if r.Status != http.StatusNotFound || r.ErrorCode() != "not_found" {
			t.Errorf("B asking for A's equipment (%s): %d %s, want 404 not_found", ids, r.Status, r.Body)
		}
	}
	if r := s.B.Get(base + mine); r.Status != http.StatusOK || len(r.List()) != 1 {
		t.Errorf("B asking for its own equipment: %d %s", r.Status, r.Body)
	}
}

// TestPlanningFiguresAreOwn: A's reservations never count in B's figures,
// for two organizations and for a sandbox and its parent.
func TestPlanningFiguresAreOwn(t *testing.T) {
	t.Run("two organizations", func(t *testing.T) { planningFiguresAreOwn(t, newSuite(t)) })
	t.Run("a sandbox and its parent", func(t *testing.T) {
		env := apitest.New(t)
		live := env.NewOrg("Parent")
		planningFiguresAreOwn(t, suiteOf(t, env, live, live.SandboxOf("Parent sandbox")))
	})
}

// planningFiguresAreOwn: A and B book the same window heavily on equipment
// and trucks of the same names and sizes; each organization's availability
// and load show its own bookings only.
func planningFiguresAreOwn(t *testing.T, s *Suite) {
	type fleet struct{ eq, truck string }
	setup := func(o *apitest.Org, qty int) fleet {
		f := fleet{
			eq: s.Create(t, o, "/api/v2/equipment", map[string]any{"name": "Moving head", "stock_quantity": 10,
				"weight_lbs": 50, "case_length_in": 10, "case_width_in": 10, "case_height_in": 10}),
			truck: s.Create(t, o, "/api/v2/vehicles", map[string]any{"name": "Truck", "max_payload_lbs": 1000,
				"interior_length_inches": 100, "interior_width_inches": 100, "interior_height_inches": 100}),
		}
		s.Create(t, o, "/api/v2/equipment_reservations", map[string]any{"equipment_id": f.eq, "vehicle_id": f.truck,
			"start_date": "2026-06-01T08:00:00Z", "end_date": "2026-06-03T08:00:00Z", "quantity": qty})
		return f
	}
	a, b := setup(s.A, 9), setup(s.B, 2)
	for _, c := range []struct {
		o       *apitest.Org
		f       fleet
		qty     float64
		payload float64
	}{{s.A, a, 9, 450}, {s.B, b, 2, 100}} {
		av := c.o.Get("/api/v2/equipment/" + c.f.eq + "/availability" + planningWindow).Data()
		if av["min_available"] != 10-c.qty || len(av["conflicting_reservation_ids"].([]any)) != 1 {
			t.Errorf("availability counts another organization's reservations: %v", av)
		}
		batch := c.o.Get("/api/v2/availability" + planningWindow + "&equipment_id=" + c.f.eq).List()
		if len(batch) != 1 || batch[0]["min_available"] != 10-c.qty {
			t.Errorf("batch availability counts another organization's reservations: %v", batch)
		}
		load := c.o.Get("/api/v2/vehicles/" + c.f.truck + "/load" + planningWindow).Data()
		if load["payload_lbs"] != c.payload || len(load["reservations"].([]any)) != 1 {
			t.Errorf("load counts another organization's reservations: %v", load)
		}
	}
}
