package isolation_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest/crudtest"
)

// TestUnknownExpansionRefused: every GET route of the table answers an
// unknown ?expand value with 422 naming expand, a route with no expansions
// as much as one with some (docs/decisions.md), and serves the same request
// without it (so the 422 is the expansion's).
func TestUnknownExpansionRefused(t *testing.T) {
	s := newSuite(t)
	for _, key := range slices.Sorted(maps.Keys(routes)) {
		method, route := splitKey(key)
		if method != http.MethodGet {
			continue
		}
		r := routes[key]
		path := route + r.Query
		switch {
		case hasParam(route):
			path = fill(route, s.Make(t, r.Fixture, s.A)) + r.Query
		case key == "GET /api/v2/availability":
			path = route + planningWindow + "&equipment_id=" + s.Make(t, "equipment", s.A)
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		if res := s.A.Get(path); res.Status != http.StatusOK {
			t.Errorf("GET %s: %d %s, want 200", path, res.Status, res.Body)
			continue
		}
		res := s.A.Get(path + sep + "expand=no_such_expansion")
		if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "validation_error" ||
			!slices.Contains(crudtest.Fields(res), "expand") {
			t.Errorf("GET %s with an unknown expand: %d %s, want 422 naming expand", path, res.Status, res.Body)
		}
	}
}
