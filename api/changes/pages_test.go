package changes_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/api/apitest"
	feed "github.com/eventapi/eventapi/api/storage/changes"
)

// TestPageBytesAreBounded: changes of large records (quotes of 500 lines
// with long descriptions, about 0.5 MB each) end a page at
// feed.MaxPageBytes of data, however high the limit, with has_more
// and a cursor that goes on to the rest: following the cursor still reads
// every change once. Before the bound, one page of 100 such changes was a
// 58 MB answer.
func TestPageBytesAreBounded(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Big quotes")
	line := map[string]any{"description": strings.Repeat("d", 1000), "quantity": 1, "unit_price": 1}
	lines := make([]any, 500)
	for i := range lines {
		lines[i] = line
	}
	const quotes = 6
	want := map[string]bool{}
	for i := range quotes {
		res := a.Post("/api/v2/quotes", map[string]any{"title": fmt.Sprint("Q", i), "line_items": lines,
			"notes": strings.Repeat("n", 10000)})
		if res.Status != 201 {
			t.Fatalf("quote %d: %d %s", i, res.Status, res.Body)
		}
		want[res.Data()["id"].(string)] = true
	}
	all := settle(t, a, "&type=quote.created", func(all []map[string]any) bool { return len(all) >= quotes })

	first := a.Get(feedPath + "?limit=100&type=quote.created")
	page, pg := first.List(), first.JSON()["pagination"].(map[string]any)
	if len(page) == 0 || len(page) >= quotes || pg["has_more"] != true || pg["next_cursor"] == nil {
		t.Fatalf("first page: %d changes, has_more %v, %d bytes; want fewer than %d with has_more",
			len(page), pg["has_more"], len(first.Body), quotes)
	}
	if len(first.Body) > 3*feed.MaxPageBytes {
		t.Errorf("first page is %d bytes, bound %d of data", len(first.Body), feed.MaxPageBytes)
	}
	// The bound holds for the stored data as the feed measures it: the
	// change that would pass it starts the next page.
	var ids []string
	for _, c := range page {
		ids = append(ids, c["id"].(string))
	}
	var stored int
	if err := env.Svc.DB.NewRaw("SELECT sum(octet_length(data::text)) FROM changes WHERE organization_id = ? AND id::text = ANY(?)",
		a.ID, pgdialect.Array(ids)).Scan(t.Context(), &stored); err != nil {
		t.Fatal(err)
	}
	if len(page) > 1 && stored > feed.MaxPageBytes {
		t.Errorf("first page holds %d changes of %d stored bytes, bound %d", len(page), stored, feed.MaxPageBytes)
	}
	seen := map[string]int{}
	for _, c := range all {
		seen[c["object_id"].(string)]++
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("quote %s: %d changes read, want 1", id, seen[id])
		}
	}
}

// TestPageBytesCountEscapedCharacters: the bound counts a change's data as
// the answer writes it, where each <, > and & is a six-byte \u escape.
// Clients whose notes are 10,000 of them store about 10 kB each and answer
// about 60 kB: measured by the stored bytes, all 60 fitted in one page of
// about 3.6 MB; the page now ends near feed.MaxPageBytes.
func TestPageBytesCountEscapedCharacters(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Angle brackets")
	const clients = 60
	for i := range clients {
		res := a.Post("/api/v2/clients", map[string]any{"name": fmt.Sprint("C", i), "notes": strings.Repeat("<&>", 3333)})
		if res.Status != 201 {
			t.Fatalf("client %d: %d %s", i, res.Status, res.Body)
		}
	}
	all := settle(t, a, "&type=client.created", atLeast(clients))
	if len(all) != clients {
		t.Fatalf("feed followed to the end lists %d client.created, want %d", len(all), clients)
	}
	first := a.Get(feedPath + "?limit=100&type=client.created")
	page, pg := first.List(), first.JSON()["pagination"].(map[string]any)
	if len(page) == 0 || len(page) >= clients || pg["has_more"] != true {
		t.Fatalf("first page: %d changes, has_more %v, %d bytes; want fewer than %d with has_more",
			len(page), pg["has_more"], len(first.Body), clients)
	}
	t.Logf("first page: %d changes, %d bytes", len(page), len(first.Body))
	// One change is about 60 kB answered: the page may pass the bound by
	// its envelope and the fields beside each change's data, not by more.
	if bound := feed.MaxPageBytes + 64<<10; len(first.Body) > bound {
		t.Errorf("first page is %d bytes for %d changes, want at most %d", len(first.Body), len(page), bound)
	}
}
