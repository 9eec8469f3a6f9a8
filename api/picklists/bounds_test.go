package picklists_test

import (
	"context"
	"strings"
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

// TestAListHoldsAtMostMaxListText: the items of one list hold at most
// MaxListText bytes of notes, custom descriptions and serial numbers,
// counted as the answer carries them (escaped: a < is six bytes). The item
// that reaches the bound is written; one byte more, by a creation or by a
// PATCH that lengthens a text, is a 422 on the field whose text grew the
// most, and nothing is written; a PATCH that adds no text (a stage move, a
// shorter serial number) goes through on a list over the bound, as one
// written before it may be.
func TestAListHoldsAtMostMaxListText(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	list := a.Post(lists, map[string]any{"name": "Long notes"}).Data()["id"].(string)
	// The last item: "last" (4) and one serial number of 16 < (96, its
	// quotes and comma 3 more); two items before it hold the rest.
	const lastSize = 4 + 16*6 + 3
	first := 1_000_000
	second := storage.MaxListText - lastSize - first - 2*len("item")
	if _, err := env.Svc.DB.ExecContext(context.Background(), `INSERT INTO pick_list_items (organization_id, pick_list_id, custom_description, notes)
		VALUES (?, ?, 'item', repeat('x', ?)), (?, ?, 'item', repeat('x', ?))`, a.ID, list, first, a.ID, list, second); err != nil {
		t.Fatal(err)
	}
	last := a.Post(items, map[string]any{"pick_list_id": list, "custom_description": "last",
		"serial_numbers": []string{strings.Repeat("<", 16)}})
	if last.Status != 201 {
		t.Fatalf("the item that fills the budget: %d %s", last.Status, last.Body)
	}
	lastID := last.Data()["id"].(string)

	over := a.Post(items, map[string]any{"pick_list_id": list, "custom_description": "x", "serial_numbers": []string{"S1"}})
	if over.Status != 422 || !strings.Contains(over.FieldIssue("serial_numbers"), "at most 3145728 bytes of text") {
		t.Fatalf("one item past the budget: %d %s, want 422 on serial_numbers", over.Status, over.Body)
	}
	if res := a.Patch(items+"/"+lastID, map[string]any{"notes": "n"}); res.Status != 422 || res.FieldIssue("notes") == "" {
		t.Fatalf("a PATCH adding a note past the budget: %d %s, want 422 on notes", res.Status, res.Body)
	}
	var n int
	if err := env.Svc.DB.NewRaw(`SELECT count(*) FROM pick_list_items WHERE organization_id = ? AND pick_list_id = ?`, a.ID, list).
		Scan(context.Background(), &n); err != nil || n != 3 {
		t.Fatalf("the list holds %d items (%v), want 3", n, err)
	}

	// Over the bound, as a list written before it may be: what adds no
	// text goes through.
	if _, err := env.Svc.DB.ExecContext(context.Background(), `UPDATE pick_list_items SET notes = notes || 'more' WHERE organization_id = ? AND pick_list_id = ? AND notes IS NOT NULL`, a.ID, list); err != nil {
		t.Fatal(err)
	}
	if res := a.Patch(items+"/"+lastID, map[string]any{"stage": "checked"}); res.Status != 200 {
		t.Fatalf("a stage move on a list over the budget: %d %s", res.Status, res.Body)
	}
	if res := a.Patch(items+"/"+lastID, map[string]any{"serial_numbers": []string{"S1"}}); res.Status != 200 {
		t.Fatalf("a shorter serial number on a list over the budget: %d %s", res.Status, res.Body)
	}
}
