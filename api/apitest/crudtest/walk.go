package crudtest

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// Walk lists path page by page with limit, following next_cursor to the
// end, and returns the ids in the order received. It checks every page's
// size and that has_more agrees with next_cursor. between, when set, runs
// after each page but the last (to write records mid-walk).
func Walk(t testing.TB, o *apitest.Org, path string, limit int, between func(page int)) []string {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var ids []string
	cursor := ""
	for page := 0; ; page++ {
		if page > 10_000 {
			t.Fatalf("walk %s: no end after %d pages", path, page)
		}
		q := fmt.Sprintf("%s%slimit=%d", path, sep, limit)
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		r := o.Get(q)
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", q, r.Status, r.Body)
		}
		items := r.List()
		if len(items) > limit {
			t.Fatalf("GET %s: %d items > limit %d", q, len(items), limit)
		}
		for _, it := range items {
			id, _ := it["id"].(string)
			ids = append(ids, id)
		}
		pg, _ := r.JSON()["pagination"].(map[string]any)
		more, _ := pg["has_more"].(bool)
		next, _ := pg["next_cursor"].(string)
		if more != (next != "") {
			t.Fatalf("GET %s: has_more=%v but next_cursor=%v", q, more, pg["next_cursor"])
		}
		if !more {
			return ids
		}
		if len(items) != limit {
			t.Fatalf("GET %s: short page (%d) with has_more", q, len(items))
		}
		if between != nil {
			between(page)
		}
		cursor = next
	}
}

// Cursor returns the next_cursor of the first page of path with limit=1
// (the list must hold at least two records).
func Cursor(t testing.TB, o *apitest.Org, path string) string {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	r := o.Get(path + sep + "limit=1")
	pg, _ := r.JSON()["pagination"].(map[string]any)
	next, _ := pg["next_cursor"].(string)
	if r.Status != 200 || next == "" {
		t.Fatalf("GET %s?limit=1: want a next_cursor, got %d %s", path, r.Status, r.Body)
	}
	return next
}

// AssertExactlyOnce fails unless got holds every id of want exactly once,
// in want's order, and nothing else.
func AssertExactlyOnce(t testing.TB, got, want []string) {
	t.Helper()
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	for _, id := range want {
		if seen[id] != 1 {
			t.Errorf("id %s seen %d times", id, seen[id])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("walk returned %d ids, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("walk order differs at %d: got %s, want %s", i, got[i], want[i])
		}
	}
}
