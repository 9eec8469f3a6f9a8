package picklists_test

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/picklists"
	storage "github.com/eventapi/eventapi/api/storage/picklists"
)

// TestAListHoldsAtMostMaxItems: the item that would be a list's
// MaxItems+1st is refused (422 on pick_list_id), and nothing is written.
func TestAListHoldsAtMostMaxItems(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	list := a.Post(lists, map[string]any{"name": "Full"}).Data()["id"].(string)
	if _, err := env.Svc.DB.ExecContext(context.Background(), `INSERT INTO pick_list_items (organization_id, pick_list_id, custom_description)
		SELECT ?, ?, 'item ' || g FROM generate_series(1, ? - 1) g`, a.ID, list, storage.MaxItems); err != nil {
		t.Fatal(err)
	}
	if res := a.Post(items, map[string]any{"pick_list_id": list, "custom_description": "the last"}); res.Status != 201 {
		t.Fatalf("item %d: %d %s", storage.MaxItems, res.Status, res.Body)
	}
	res := a.Post(items, map[string]any{"pick_list_id": list, "custom_description": "one too many"})
	if res.Status != 422 || fields(res) != "pick_list_id" {
		t.Fatalf("item %d: %d %s, want 422 on pick_list_id", storage.MaxItems+1, res.Status, res.Body)
	}
	var n int
	if err := env.Svc.DB.NewRaw("SELECT count(*) FROM pick_list_items WHERE organization_id = ? AND pick_list_id = ?", a.ID, list).
		Scan(context.Background(), &n); err != nil || n != storage.MaxItems {
		t.Fatalf("the list holds %d items (%v), want %d", n, err, storage.MaxItems)
	}
}

// TestAnExpandedPageHoldsAtMostMaxExpandedLists: with expand=items a page
// ends after MaxExpandedLists lists, whatever its limit, and its cursor
// goes on to the rest; without it the limit holds.
func TestAnExpandedPageHoldsAtMostMaxExpandedLists(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	total := picklists.MaxExpandedLists + 2
	for range total {
		a.Post(lists, map[string]any{"name": "List"})
	}
	first := a.Get(lists + "?expand=items&limit=100")
	pg := first.JSON()["pagination"].(map[string]any)
	if len(first.List()) != picklists.MaxExpandedLists || pg["has_more"] != true {
		t.Fatalf("an expanded page of limit 100: %d lists, has_more %v; want %d and true", len(first.List()), pg["has_more"], picklists.MaxExpandedLists)
	}
	rest := a.Get(lists + "?expand=items&limit=100&cursor=" + pg["next_cursor"].(string))
	if len(rest.List()) != total-picklists.MaxExpandedLists {
		t.Fatalf("the next page: %d lists, want %d", len(rest.List()), total-picklists.MaxExpandedLists)
	}
	if plain := a.Get(lists + "?limit=100"); len(plain.List()) != total {
		t.Fatalf("a page without expand: %d lists, want %d", len(plain.List()), total)
	}
}
