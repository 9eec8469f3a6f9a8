package isolation_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest/contract"
)

// idFixtures names the fixture whose records a field that holds a record
// id takes, by the field's name. The fields themselves come from the
// OpenAPI document: every uuid property of a write's request body (Suite.refs)
// and every uuid query filter of a list (TestListFiltersWithForeignIDs).
var idFixtures = map[string]string{
	"client_id":      "clients",
	"event_id":       "events",
	"equipment_id":   "equipment",
	"category_id":    "equipment_categories",
	"vehicle_id":     "vehicles",
	"quote_id":       "quotes",
	"pick_list_id":   "pick_lists",
	"parent_item_id": "pick_list_items",
}

// opaqueIDs are uuid body fields that reference no record of this API:
// pick list items carry the ids of physical cases and warehouses kept in
// other systems (no table, no foreign key), so any uuid is stored as given
// and reveals nothing about another organization.
var opaqueIDs = []string{"container_id", "warehouse_id"}

// arrayItems is the rest of a valid element of each array whose elements
// hold a reference, so that the reference is what the request is refused for.
var arrayItems = map[string]map[string]any{
	"line_items": {"quantity": 2, "unit_price": 10},
}

// docPath turns a route key's path (/api/v2/things/:id) into a path the
// document can match.
func docPath(route string) string { return fill(route, uuid.NewString()) }

// refs are the references of the route's request body, read from the
// document; it fails t for a reference whose resource idFixtures does not
// name, so a new reference field cannot go unchecked.
func (s *Suite) refs(t testing.TB, method, route string) []Ref {
	t.Helper()
	if method != http.MethodPost && method != http.MethodPatch {
		return nil
	}
	var out []Ref
	for _, field := range s.contract.RequestReferences(method, docPath(route)) {
		name := field[strings.LastIndex(field, ".")+1:]
		if slices.Contains(opaqueIDs, name) {
			continue
		}
		fx, ok := idFixtures[name]
		if !ok {
			t.Fatalf("%s %s: the document's request body has the reference %s, but idFixtures does not say which resource's records it takes", method, route, field)
		}
		out = append(out, Ref{Field: field, Fixture: fx})
	}
	return out
}

// withRef returns a copy of body with ref pointing at id; a field of an
// array's elements ("line_items[0].equipment_id") becomes a one-element
// array built from arrayItems.
func withRef(body map[string]any, ref Ref, id string) map[string]any {
	out := maps.Clone(body)
	if out == nil {
		out = map[string]any{}
	}
	array, field, nested := strings.Cut(ref.Field, "[0].")
	if !nested {
		out[ref.Field] = id
		return out
	}
	item := maps.Clone(arrayItems[array])
	if item == nil {
		item = map[string]any{}
	}
	item[field] = id
	out[array] = []any{item}
	return out
}

// TestRefsFromTheDocument: every write route's references, as the document
// gives them, name a known resource, and the document gives some at all (a
// change to how they are read cannot quietly turn the checks off).
func TestRefsFromTheDocument(t *testing.T) {
	s := &Suite{}
	var err error
	if s.contract, err = contract.Load(); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(routes)) {
		method, path := splitKey(key)
		for _, r := range s.refs(t, method, path) {
			found[r.Field] = true
			if _, ok := fixtures[r.Fixture]; !ok {
				t.Errorf("%s: reference %s takes fixture %q, which does not exist", key, r.Field, r.Fixture)
			}
		}
	}
	for _, want := range []string{"client_id", "event_id", "equipment_id", "category_id", "vehicle_id", "quote_id",
		"pick_list_id", "parent_item_id", "line_items[0].equipment_id"} {
		if !found[want] {
			t.Errorf("no write route has the reference %s: the document is not being read", want)
		}
	}
}
