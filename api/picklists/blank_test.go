package picklists_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestItemWithoutAVisibleDescription: a custom_description that shows
// nothing (a zero-width space) is no description, as "" is: an item
// without equipment needs a visible one, and none is stored.
func TestItemWithoutAVisibleDescription(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	pl := ok(t, a.Post(lists, body("name", "Stage left")), 201)["id"].(string)
	for _, d := range []string{"", "  ", "\u200b", "\ufeff\u2060"} {
		want(t, a.Post(items, body("pick_list_id", pl, "custom_description", d)), 422, "validation_error")
	}
	if got := ok(t, a.Get(lists+"/"+pl+"?expand=items"), 200)["items"].([]any); len(got) != 0 {
		t.Errorf("%d items stored, want none: %v", len(got), got)
	}
}
