package isolation_test

import (
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// readQueries are the query strings the GET routes with a Check of their
// own need to be answered with 200 (the suite's Query gives the others').
var readQueries = map[string]func(t testing.TB, s *Suite) string{
	"GET /api/v2/availability": func(t testing.TB, s *Suite) string {
		return planningWindow + "&equipment_id=" + s.Make(t, "equipment", s.A)
	},
}

// TestEveryReadNamesIgnoredParameters: every v2 GET, the suite's routes
// (which TestCompleteness holds to every registered route) and /health,
// answers a request carrying a parameter no handler reads with 200 and a
// warning naming that parameter alone, the same request without it with no
// warning, and each parameter the document declares, given alone with a
// value its schema takes, without a warning when the answer is 200. Every
// answer passes the contract (apitest checks each): each GET's schema allows
// the warning, a parameter the server read is declared, and one it names
// is not.
func TestEveryReadNamesIgnoredParameters(t *testing.T) {
	s := newSuite(t)
	const unknown = "zz_not_a_parameter"
	want := []any{map[string]any{"code": "ignored_parameters", "details": map[string]any{"parameters": []any{unknown}}}}
	keys := append(slices.Sorted(maps.Keys(routes)), exempt...)
	checked, documented := 0, 0
	for _, key := range keys {
		method, route := splitKey(key)
		if method != http.MethodGet {
			continue
		}
		checked++
		t.Run(key, func(t *testing.T) {
			r := routes[key]
			path := route
			switch {
			case r.Params != nil:
				path = fillParams(t, route, r.Params(t, s, s.A))
			case hasParam(route):
				path = fill(route, s.Make(t, r.Fixture, s.A))
			}
			path += r.Query
			if q, ok := readQueries[key]; ok {
				path += q(t, s)
			}
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			plain := s.A.Get(path)
			if plain.Status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, plain.Status, plain.Body)
			}
			if w, ok := plain.JSON()["warnings"]; ok {
				t.Errorf("GET %s: warnings %v, want none", path, w)
			}
			res := s.A.Get(path + sep + unknown + "=1")
			if res.Status != http.StatusOK {
				t.Fatalf("GET %s with %s: %d %s", path, unknown, res.Status, res.Body)
			}
			if got := res.JSON()["warnings"]; !reflect.DeepEqual(got, want) {
				t.Errorf("GET %s with %s: warnings %v, want %v", path, unknown, got, want)
			}
			// Each documented parameter the path does not carry yet, alone,
			// with a value its schema takes: an answer of 200 must not name
			// it (the contract check fails one that does: a documented filter
			// the handler never reads).
			route, _, _ := strings.Cut(path, "?")
			for _, name := range s.contract.QueryParameters(http.MethodGet, route) {
				if strings.Contains(path, "?"+name+"=") || strings.Contains(path, "&"+name+"=") {
					continue
				}
				value, _ := s.contract.QueryExample(http.MethodGet, route, name)
				res := s.A.Get(path + sep + url.Values{name: {value}}.Encode())
				if res.Status == http.StatusOK {
					documented++
					if w, ok := res.JSON()["warnings"]; ok {
						t.Errorf("GET %s with %s=%s: warnings %v, want none", path, name, value, w)
					}
				}
			}
		})
	}
	if checked < 20 || documented < 40 {
		t.Fatalf("%d GET routes and %d documented parameters answered 200: the suite's table lost its reads", checked, documented)
	}
	t.Logf("%d GET routes, %d documented parameters answered 200 without a warning", checked, documented)
}
