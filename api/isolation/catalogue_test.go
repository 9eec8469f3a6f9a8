package isolation_test

import (
	"net/url"
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
)

// Entries for the catalogue resources: events (and the /jobs alias),
// clients, crew members, equipment, equipment categories and vehicles.
func init() {
	register(map[string]Fixture{
		"events": {Table: "events", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/events", eventBody(t, s, o))
		}},
		"clients": {Table: "clients", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/clients", map[string]any{"name": "Client", "email": "c@client.example"})
		}},
		"crew_members": {Table: "crew_members", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/crew_members", map[string]any{"first_name": "Dana", "last_name": "Okafor"})
		}},
		"equipment_categories": {Table: "equipment_categories", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/equipment_categories", map[string]any{"name": "Category " + newName(), "color": "#1E88E5"})
		}},
		"equipment": {Table: "equipment", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/equipment", map[string]any{"name": "Amp", "category_id": s.Shared(t, "equipment_categories", o)})
		}},
		"vehicles": {Table: "vehicles", Make: func(t testing.TB, s *Suite, o *apitest.Org) string {
			return s.Create(t, o, "/api/v2/vehicles", map[string]any{"name": "Truck", "status": "available"})
		}},
	}, map[string]Route{
		"GET /api/v2/events":        {Fixture: "events"},
		"POST /api/v2/events":       {Fixture: "events", Body: eventBody},
		"GET /api/v2/events/:id":    {Fixture: "events"},
		"PATCH /api/v2/events/:id":  {Fixture: "events", Body: rename("name")},
		"GET /api/v2/jobs":          {Fixture: "events"},
		"GET /api/v2/jobs/:id":      {Fixture: "events"},
		"GET /api/v2/clients":       {Fixture: "clients"},
		"POST /api/v2/clients":      {Fixture: "clients", Body: rename("name")},
		"GET /api/v2/clients/:id":   {Fixture: "clients"},
		"PATCH /api/v2/clients/:id": {Fixture: "clients", Body: rename("name")},

		"GET /api/v2/crew_members":       {Fixture: "crew_members"},
		"POST /api/v2/crew_members":      {Fixture: "crew_members", Body: crewBody},
		"GET /api/v2/crew_members/:id":   {Fixture: "crew_members"},
		"PATCH /api/v2/crew_members/:id": {Fixture: "crew_members", Body: rename("role")},

		"GET /api/v2/equipment":       {Fixture: "equipment"},
		"POST /api/v2/equipment":      {Fixture: "equipment", Body: rename("name")},
		"GET /api/v2/equipment/:id":   {Fixture: "equipment"},
		"PATCH /api/v2/equipment/:id": {Fixture: "equipment", Body: rename("name")},

		"GET /api/v2/equipment_categories":       {Fixture: "equipment_categories"},
		"POST /api/v2/equipment_categories":      {Fixture: "equipment_categories", Body: rename("name")},
		"GET /api/v2/equipment_categories/:id":   {Fixture: "equipment_categories"},
		"PATCH /api/v2/equipment_categories/:id": {Fixture: "equipment_categories", Body: rename("name")},

		"GET /api/v2/vehicles":       {Fixture: "vehicles"},
		"POST /api/v2/vehicles":      {Fixture: "vehicles", Body: rename("name")},
		"GET /api/v2/vehicles/:id":   {Fixture: "vehicles"},
		"PATCH /api/v2/vehicles/:id": {Fixture: "vehicles", Body: rename("license_plate")},
	})
}

func eventBody(testing.TB, *Suite, *apitest.Org) map[string]any {
	return map[string]any{"name": "Gala", "start_date": "2026-06-01T18:00:00Z", "end_date": "2026-06-02T02:00:00Z", "venue": "Pier 4"}
}

func crewBody(testing.TB, *Suite, *apitest.Org) map[string]any {
	return map[string]any{"first_name": "Sam", "last_name": "Lee"}
}

// rename is a body that sets one string field to a fresh value.
func rename(field string) func(testing.TB, *Suite, *apitest.Org) map[string]any {
	return func(testing.TB, *Suite, *apitest.Org) map[string]any {
		return map[string]any{field: "Renamed " + newName()}
	}
}

var counter int

// newName is unique within the test binary (category names are unique).
func newName() string {
	counter++
	return string(rune('A'+counter%26)) + url.PathEscape(string(rune('a'+counter/26%26))) + itoa(counter)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestCatalogueFilters: the list filters of the catalogue never reach into
// another organization, whatever they name.
func TestCatalogueFilters(t *testing.T) {
	s := newSuite(t)
	aCat := s.Make(t, "equipment_categories", s.A)
	aEq := s.Create(t, s.A, "/api/v2/equipment", map[string]any{"name": "A amp", "category_id": aCat})
	bCat := s.Create(t, s.B, "/api/v2/equipment_categories", map[string]any{"name": "Shared Name"})
	bEq := s.Create(t, s.B, "/api/v2/equipment", map[string]any{"name": "B amp", "category_id": bCat})
	s.Create(t, s.A, "/api/v2/equipment", map[string]any{"name": "A uncategorised"})

	for _, q := range []string{"category=" + bCat, "category=" + url.QueryEscape("Shared Name"), "category=shared%20name"} {
		if got := crudtest.Walk(t, s.A, "/api/v2/equipment?"+q, 100, nil); len(got) != 0 {
			t.Errorf("A filtering by B's category (%s) got %v", q, got)
		}
	}
	r := s.A.Get("/api/v2/equipment?limit=100&expand=category")
	for _, it := range r.List() {
		if it["id"] == bEq {
			t.Errorf("A's expanded list holds B's equipment")
		}
		if c, _ := it["category"].(map[string]any); c != nil && c["id"] == bCat {
			t.Errorf("A's expanded list inlines B's category")
		}
	}
	if got := crudtest.Walk(t, s.A, "/api/v2/equipment?category="+aCat, 100, nil); !slices.Equal(got, []string{aEq}) {
		t.Errorf("A filtering by its own category: %v", got)
	}
	// B's name is free in A: the unique index is per organization.
	s.Create(t, s.A, "/api/v2/equipment_categories", map[string]any{"name": "shared name"})

	bClient := s.Create(t, s.B, "/api/v2/clients", map[string]any{"name": "Zephyr Unique Client", "email": "zephyr@b.example"})
	for _, q := range []string{"zephyr", "b.example"} {
		if got := crudtest.Walk(t, s.A, "/api/v2/clients?search="+q, 100, nil); slices.Contains(got, bClient) || len(got) != 0 {
			t.Errorf("A searching %q finds %v", q, got)
		}
	}
	bVehicle := s.Make(t, "vehicles", s.B)
	if got := crudtest.Walk(t, s.A, "/api/v2/vehicles", 100, nil); slices.Contains(got, bVehicle) {
		t.Errorf("A's vehicles hold B's")
	}
}
