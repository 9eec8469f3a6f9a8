package isolation_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// v1Entries are the isolation checks of the page-numbered /api/v1 surface,
// keyed "METHOD /api/v1/path/:param". Its records are the v2 fixtures'
// (jobs are events, crew are crew members); its envelope and errors are
// v1's own ({data, meta}, {error:{code, message}}).
var v1Entries = map[string]Route{
	"GET /api/v1/equipment":       {Fixture: "equipment"},
	"GET /api/v1/equipment/:id":   {Fixture: "equipment"},
	"PATCH /api/v1/equipment/:id": {Fixture: "equipment", Body: func(testing.TB, *Suite, *apitest.Org) map[string]any { return map[string]any{"weight_lbs": 12.5} }},
	"GET /api/v1/jobs":            {Fixture: "events"},
	"GET /api/v1/jobs/:id":        {Fixture: "events"},
	"GET /api/v1/crew":            {Fixture: "crew_members"},
	"GET /api/v1/crew/:id":        {Fixture: "crew_members"},
}

// v1Public are /api/v1 paths served without a key (the v1 description);
// they hold no tenant data.
var v1Public = []string{"/api/v1/openapi.json"}

// v1Routes lists the registered /api/v1 routes as "METHOD path" keys.
func v1Routes(env *apitest.Env) []string {
	seen := map[string]bool{}
	for _, r := range env.Svc.App.GetRoutes(true) {
		if r.Method == http.MethodHead || !strings.HasPrefix(r.Path, "/api/v1/") || slices.Contains(v1Public, r.Path) {
			continue
		}
		seen[r.Method+" "+r.Path] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// TestV1Completeness fails when a registered /api/v1 route has no entry in
// v1Entries, or an entry names a route or fixture that does not exist.
func TestV1Completeness(t *testing.T) {
	env := apitest.New(t)
	registered := v1Routes(env)
	if len(registered) == 0 {
		t.Fatal("no /api/v1 routes found")
	}
	for _, key := range registered {
		if _, ok := v1Entries[key]; !ok {
			t.Errorf("v1 route %s has no isolation entry: add it to v1Entries (api/isolation/v1_test.go)", key)
		}
	}
	for key, r := range v1Entries {
		if !slices.Contains(registered, key) {
			t.Errorf("v1 isolation entry %s names no registered route", key)
		}
		if _, ok := fixtures[r.Fixture]; !ok {
			t.Errorf("v1 isolation entry %s uses unknown fixture %q", key, r.Fixture)
		}
	}
}

// TestV1Isolation runs every v1 entry with two organizations: B gets 404
// NOT_FOUND on A's record, exactly as on a random id (docs/v1.md; on HEAD
// too for a GET), and changes nothing; A's list (every page) holds
// A's records and none of B's, and its meta.total counts A's only.
func TestV1Isolation(t *testing.T) {
	s := newSuite(t)
	for _, key := range slices.Sorted(maps.Keys(v1Entries)) {
		t.Run(key, func(t *testing.T) {
			method, path := splitKey(key)
			r := v1Entries[key]
			if hasParam(path) {
				s.checkV1Item(t, method, path, r)
				return
			}
			s.checkV1List(t, path, r)
		})
	}
}

func (s *Suite) checkV1Item(t *testing.T, method, route string, r Route) {
	table := fixtures[r.Fixture].Table
	id := s.Make(t, r.Fixture, s.A)
	path := fill(route, id)
	stamp := fixtures[r.Fixture].Stamp
	if stamp == "" {
		stamp = "updated_at"
	}
	before, ok := s.row(t, table, stamp, s.A.ID, id)
	if !ok {
		t.Fatalf("fixture %s made no row %s in %s", r.Fixture, id, table)
	}
	res := s.foreignItem(t, method, path, []string{id}, s.body(t, method, r, s.B))
	if e, _ := res.JSON()["error"].(map[string]any); res.Status != http.StatusNotFound || e["code"] != "NOT_FOUND" {
		t.Errorf("B %s A's record: %d %s, want 404 NOT_FOUND", method, res.Status, res.Body)
	}
	if after, ok := s.row(t, table, stamp, s.A.ID, id); !ok || !after.Equal(before) {
		t.Fatalf("B's %s changed or removed A's record (exists=%v)", method, ok)
	}
	res = s.A.Do(method, path, s.body(t, method, r, s.A))
	if d, _ := res.JSON()["data"].(map[string]any); res.Status != http.StatusOK || d["id"] != id {
		t.Errorf("A %s its own record: %d %s", method, res.Status, res.Body)
	}
}

func (s *Suite) checkV1List(t *testing.T, path string, r Route) {
	mine := s.Make(t, r.Fixture, s.A)
	theirs := []string{s.Make(t, r.Fixture, s.B), s.Make(t, r.Fixture, s.B)}
	var got []string
	total := -1
	for page := 1; ; page++ {
		res := s.A.Get(fmt.Sprintf("%s?limit=100&page=%d", path, page))
		if res.Status != http.StatusOK {
			t.Fatalf("A's list page %d: %d %s", page, res.Status, res.Body)
		}
		meta, _ := res.JSON()["meta"].(map[string]any)
		if n, ok := meta["total"].(float64); ok {
			total = int(n)
		}
		items := res.List()
		for _, it := range items {
			id, _ := it["id"].(string)
			got = append(got, id)
		}
		if len(items) < 100 {
			break
		}
	}
	if !slices.Contains(got, mine) {
		t.Errorf("A's list does not hold A's record %s", mine)
	}
	for _, id := range theirs {
		if slices.Contains(got, id) {
			t.Errorf("A's list holds B's record %s", id)
		}
	}
	own, err := s.Env.Svc.DB.NewSelect().Table(fixtures[r.Fixture].Table).
		Where("organization_id = ?", s.A.ID).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if total != int(own) || len(got) != int(own) {
		t.Errorf("A's list: meta.total %d and %d items; A has %d records", total, len(got), own)
	}
}
