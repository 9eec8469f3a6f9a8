package isolation_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
)

// filterFixtures names the fixture whose records a uuid query filter takes,
// by the filter's name (the document's parameter).
var filterFixtures = map[string]string{
	"event_id":   "events",
	"vehicle_id": "vehicles",
	"client_id":  "clients",
	"quote_id":   "quotes",
}

// opaqueIDs are uuid body fields that reference no record of this API:
// pick list items carry the ids of physical cases and warehouses kept in
// other systems (no table, no foreign key), so any uuid is stored as given
// and reveals nothing about another organization.
var opaqueIDs = []string{"container_id", "warehouse_id"}

// docPath turns a route key's path (/api/v2/things/:id) into a path the
// document can match.
func docPath(route string) string { return fill(route, uuid.NewString()) }

// TestRefsMatchTheDocument derives each write route's reference fields from
// the OpenAPI document (every uuid field of its request body, nested ones
// included) and fails when the route's entry does not check exactly those:
// a new reference field in the document cannot go untested.
func TestRefsMatchTheDocument(t *testing.T) {
	c, err := apitest.LoadContract()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range slices.Sorted(maps.Keys(routes)) {
		method, path := splitKey(key)
		if method != http.MethodPost && method != http.MethodPatch {
			continue
		}
		want := c.RequestReferences(method, docPath(path))
		var have []string
		for _, r := range routes[key].Refs {
			have = append(have, r.Field)
		}
		slices.Sort(have)
		for _, f := range want {
			if !slices.Contains(have, f) && !slices.Contains(opaqueIDs, f) {
				t.Errorf("%s: the document's request body has the reference %s, which the isolation entry never points at another organization's record", key, f)
			}
		}
		for _, f := range have {
			if !slices.Contains(want, f) {
				t.Errorf("%s: the isolation entry checks %s, which the document's request body does not have", key, f)
			}
		}
	}
}

// TestListFiltersWithForeignIDs gives every uuid filter of every list route
// (from the document) the other organization's record: A's list must hold
// none of B's records (an empty page or a 422 naming the filter), and never
// a 5xx.
func TestListFiltersWithForeignIDs(t *testing.T) {
	c, err := apitest.LoadContract()
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
				fx, ok := filterFixtures[filter]
				if !ok && filter != "key_id" {
					t.Fatalf("filter %s of %s takes a record id, but filterFixtures does not say which resource's", filter, key)
				}
				// B's record of the listed resource, pointed (in the database,
				// the filter names the column) at B's record the filter gets:
				// a filter that escapes the organization would return it.
				table := fixtures[routes[key].Fixture].Table
				theirs := []string{s.Make(t, routes[key].Fixture, s.B)}
				var foreign string
				if filter == "key_id" {
					// API keys are made with their organization, not through
					// the API: B's own key.
					if err := s.Env.Svc.DB.NewSelect().Table("api_keys").Column("id").
						Where("organization_id = ?", s.B.ID).Limit(1).Scan(context.Background(), &foreign); err != nil {
						t.Fatal(err)
					}
				} else {
					foreign = s.Shared(t, fx, s.B)
				}
				if _, err := s.Env.Svc.DB.NewUpdate().Table(table).Set("? = ?", bun.Ident(filter), foreign).
					Where("organization_id = ?", s.B.ID).Where("id = ?", theirs[0]).Exec(context.Background()); err != nil {
					t.Fatal(err)
				}
				filtered := path + "?" + url.Values{filter: {foreign}}.Encode()
				res := s.A.Get(filtered)
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
