package isolation_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest/contract"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
)

// TestListFiltersWithForeignIDs gives every uuid filter of every list route
// (from the document) the other organization's record: A's list must hold
// none of B's records (an empty page or a 422 naming the filter), answer
// exactly as for a random id, and never a 5xx.
func TestListFiltersWithForeignIDs(t *testing.T) {
	c, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := newSuite(t)
	checked := 0
	for _, key := range slices.Sorted(maps.Keys(routes)) {
		method, path := splitKey(key)
		if method != http.MethodGet || hasParam(path) {
			continue
		}
		for _, filter := range c.ListFilters(path) {
			t.Run(key+"?"+filter, func(t *testing.T) {
				fx, ok := idFixtures[filter]
				if !ok && filter != "key_id" {
					t.Fatalf("filter %s of %s takes a record id, but idFixtures does not say which resource's", filter, key)
				}
				// B's record of the listed resource, pointed (in the database,
				// the filter names the column) at B's record the filter gets:
				// a filter that escapes the organization would return it.
				table := fixtures[routes[key].Fixture].Table
				theirs := []string{s.Make(t, routes[key].Fixture, s.B)}
				ctx := context.Background()
				var current *string
				if err := s.Env.Svc.DB.NewSelect().Table(table).ColumnExpr("?::text", bun.Ident(filter)).
					Where("organization_id = ?", s.B.ID).Where("id = ?", theirs[0]).Scan(ctx, &current); err != nil {
					t.Fatal(err)
				}
				var foreign string
				switch {
				case filter == "key_id" && current != nil:
					// The key B's record was made with (a request log
					// record's key is its request's).
					foreign = *current
				case filter == "key_id":
					// API keys are made with their organization, not through
					// the API: B's own key.
					if err := s.Env.Svc.DB.NewSelect().Table("api_keys").Column("id").
						Where("organization_id = ?", s.B.ID).Limit(1).Scan(ctx, &foreign); err != nil {
						t.Fatal(err)
					}
				default:
					foreign = s.Shared(t, fx, s.B)
				}
				if current == nil || *current != foreign {
					if _, err := s.Env.Svc.DB.NewUpdate().Table(table).Set("? = ?", bun.Ident(filter), foreign).
						Where("organization_id = ?", s.B.ID).Where("id = ?", theirs[0]).Exec(ctx); err != nil {
						t.Fatal(err)
					}
				}
				// The answer must be the one a random id gets (existence_test.go):
				// an empty page and a 422 are both fine, but not one for B's
				// id and the other for an id that names nothing.
				filtered := path + "?" + url.Values{filter: {foreign}}.Encode()
				res := s.sameAsMissing(t, s.A, http.MethodGet, filtered, []string{foreign}, nil)
				switch {
				case res.Status == http.StatusOK:
					got := crudtest.Walk(t, s.A, filtered, 100, nil)
					for _, id := range theirs {
						if slices.Contains(got, id) {
							t.Errorf("A's %s filtered by B's %s holds B's record %s", path, filter, id)
						}
					}
					if len(got) != 0 {
						t.Errorf("A's %s filtered by B's %s holds %d records, want none", path, filter, len(got))
					}
				case res.Status == http.StatusUnprocessableEntity && slices.Contains(crudtest.Fields(res), filter):
				default:
					t.Errorf("A's %s?%s=<B's id>: %d %s, want 200 with nothing or 422 naming %s", path, filter, res.Status, res.Body, filter)
				}
			})
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no list route has a uuid filter in the document: the check checks nothing")
	}
	t.Logf("%d list filters checked with another organization's ids", checked)
}

// TestItemFiltersWithForeignIDs does for the uuid filters of routes with a
// path parameter (the load of one truck, /vehicles/{id}/load?event_id=)
// what TestListFiltersWithForeignIDs does for lists: B, on its own record,
// filtered by A's record, is answered exactly as with a random id (on HEAD
// too), and served with its own. The filter is sent alone: with event_id
// the load takes its window from the event, and start and end are refused
// beside it (docs/decisions.md, "Availability and truck load").
func TestItemFiltersWithForeignIDs(t *testing.T) {
	s := newSuite(t)
	checked := 0
	for _, key := range slices.Sorted(maps.Keys(routes)) {
		method, path := splitKey(key)
		if method != http.MethodGet || !hasParam(path) || routes[key].Params != nil {
			continue
		}
		for _, filter := range s.contract.ListFilters(docPath(path)) {
			checked++
			t.Run(key+"?"+filter, func(t *testing.T) {
				fx, ok := idFixtures[filter]
				if !ok {
					t.Fatalf("filter %s of %s takes a record id, but idFixtures does not say which resource's", filter, key)
				}
				own := fill(path, s.Shared(t, routes[key].Fixture, s.B))
				theirs := s.Shared(t, fx, s.A)
				s.foreignItem(t, method, own+"?"+url.Values{filter: {theirs}}.Encode(), []string{theirs}, nil)
				mine := own + "?" + url.Values{filter: {s.Shared(t, fx, s.B)}}.Encode()
				if res := s.B.Get(mine); res.Status != http.StatusOK {
					t.Errorf("B's %s with its own %s: %d %s", path, filter, res.Status, res.Body)
				}
			})
		}
	}
	if checked == 0 {
		t.Fatal("no route with a path parameter has a uuid filter in the document: the check checks nothing")
	}
}
