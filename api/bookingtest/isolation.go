package bookingtest

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// Isolated asserts that other cannot read, patch or (withDelete) delete
// owner's record at path/id: each answers 404 not_found, and owner's record
// reads the same afterwards.
func Isolated(t testing.TB, owner, other *apitest.Org, path, id string, patch any, withDelete bool) {
	t.Helper()
	before := owner.Get(path + "/" + id)
	if before.Status != 200 {
		t.Fatalf("owner GET %s/%s: %d %s", path, id, before.Status, before.Body)
	}
	check := func(what string, res *apitest.Response) {
		t.Helper()
		if res.Status != 404 || res.ErrorCode() != "not_found" {
			t.Errorf("other org %s %s/%s: %d %s, want 404 not_found", what, path, id, res.Status, res.Body)
		}
	}
	check("GET", other.Get(path+"/"+id))
	check("PATCH", other.Patch(path+"/"+id, patch))
	if withDelete {
		check("DELETE", other.Delete(path+"/"+id))
	}
	if after := owner.Get(path + "/" + id); string(after.Body) != string(before.Body) {
		t.Errorf("owner's record changed:\n%s\n%s", before.Body, after.Body)
	}
}

// NotListed asserts that the list at path (query included) as seen by o
// holds none of ids, and returns how many records it holds.
func NotListed(t testing.TB, o *apitest.Org, path string, ids ...string) int {
	t.Helper()
	res := o.Get(path)
	if res.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	items := res.List()
	for _, it := range items {
		for _, id := range ids {
			if it["id"] == id {
				t.Errorf("GET %s lists another organization's record %s", path, id)
			}
		}
	}
	return len(items)
}

// ForeignCursor asserts that a cursor from owner's list at path is refused
// (422 validation_error) on other's list. owner must have more than one
// record there.
func ForeignCursor(t testing.TB, owner, other *apitest.Org, path string) {
	t.Helper()
	res := owner.Get(path + "?limit=1")
	pg, _ := res.JSON()["pagination"].(map[string]any)
	cursor, _ := pg["next_cursor"].(string)
	if cursor == "" {
		t.Fatalf("GET %s?limit=1 gave no cursor: %s", path, res.Body)
	}
	if r := other.Get(path + "?cursor=" + cursor); r.Status != 422 || r.ErrorCode() != "validation_error" {
		t.Errorf("foreign cursor on %s: %d %s", path, r.Status, r.Body)
	}
}
