package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
)

// pollEvery is how often the tests' feeds poll once caught up: a change
// reaches the feed when the server-wide visibility horizon passes it, which
// a transaction held open by another test package can delay for many
// seconds (docs/changes.md), and a feed polling every 10 ms ran through the
// organization's 1,000 requests a minute while it waited.
const pollEvery = 100 * time.Millisecond

// TestFeedFollowsChangesAndResumes: a Feed yields the changes of writes
// made before and while it runs, each once; a second Feed started from the
// cursor the first told OnCursor once it had handled them yields only what
// came after.
func TestFeedFollowsChangesAndResumes(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Feed reader")
	api, err := client.New(env.Listen(t)+"/api/v2", org.Key, client.HTTPClient(contractClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	newClient := func(name string) string {
		t.Helper()
		res, err := api.CreateClientWithResponse(ctx, nil, client.ClientCreate{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return res.JSON201.ClientRecord.Id.String()
	}
	want := map[string]bool{newClient("Before"): true}

	// A Cursor left in params is ignored, as NewFeed says: the feed starts
	// at its own cursor ("", the oldest change).
	stale := "not-a-cursor"
	feed := api.NewFeed("", &client.ListChangesParams{Cursor: &stale})
	feed.Every = pollEvery
	seen := map[string]int{}
	saved := ""
	caughtUp, stop := context.WithCancel(ctx)
	defer stop()
	feed.OnCursor = func(c string) {
		if len(seen) == len(want) { // every change handled: the cursor is past them
			saved = c
			stop()
		}
	}
	for ch, err := range feed.Changes(caughtUp) {
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[ch.ObjectId.String()]++
		if len(seen) == 1 {
			want[newClient("During")] = true // written while the feed runs
		}
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("client %s: %d changes, want 1", id, seen[id])
		}
	}

	later := newClient("After")
	if saved != feed.Cursor() {
		t.Fatalf("OnCursor was told %q, the feed stands at %q", saved, feed.Cursor())
	}
	resumed := api.NewFeed(saved, nil)
	resumed.Every = pollEvery
	for ch, err := range resumed.Changes(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.ObjectId.String() != later {
			t.Fatalf("the resumed feed yielded %s %s, want only the later client", ch.Type, ch.ObjectId)
		}
		break
	}
}

// TestFeedMovesPastAnEmptyPage: a page without changes whose next_cursor
// moved on (the read passed over changes of other types, up to 10,000 at a
// time, docs/changes.md "Pages") moves the feed's cursor too. The feed
// kept its cursor, asked for the same empty page again and again while
// has_more said more followed, and spent the organization's rate limit. A
// server of pages set up for the test stands in for an organization with
// 10,000 changes of other types, which the test cannot write under the
// real rate limit.
func TestFeedMovesPastAnEmptyPage(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cursor := r.URL.Query().Get("cursor")
		mu.Lock()
		asked[cursor]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch cursor {
		case "":
			fmt.Fprint(w, `{"data":[],"pagination":{"next_cursor":"past-10000","has_more":true}}`)
		case "past-10000":
			fmt.Fprint(w, `{"data":[{"id":"0192f3a1-0000-7000-8000-000000000001","type":"client.created","object_type":"client",`+
				`"object_id":"0192f3a1-0000-7000-8000-000000000002","data":{},"created_at":"2026-12-02T01:00:00Z"}],`+
				`"pagination":{"next_cursor":"after-it","has_more":false}}`)
		default:
			fmt.Fprint(w, `{"data":[],"pagination":{"next_cursor":"after-it","has_more":false}}`)
		}
	}))
	defer srv.Close()
	feed, ctx := feedFrom(t, srv.URL)
	for ch, err := range feed.Changes(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.ObjectType != "client" {
			t.Fatalf("change %+v", ch)
		}
		break
	}
	mu.Lock()
	defer mu.Unlock()
	// The loop broke out on the page's change: the feed stands at its start.
	if asked[""] != 1 || asked["past-10000"] != 1 || feed.Cursor() != "past-10000" {
		t.Fatalf("pages asked for %v, cursor %q; want the empty page once, then the next, cursor past-10000", asked, feed.Cursor())
	}
}

// TestAPageWithNoWayOnEndsIteration: a page that says more follow and
// gives no cursor ends All and the change feed with an error, after the
// page's own records, not with a list that looks whole; the feed asked for
// the same page again and again without a pause until 2.9.3.
func TestAPageWithNoWayOnEndsIteration(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/changes") {
			fmt.Fprint(w, `{"data":[{"id":"0192f3a1-0000-7000-8000-000000000001","type":"client.created","object_type":"client",`+
				`"object_id":"0192f3a1-0000-7000-8000-000000000002","data":{},"created_at":"2026-12-02T01:00:00Z"}],`+
				`"pagination":{"next_cursor":null,"has_more":true}}`)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"0192f3a1-0000-7000-8000-000000000003","name":"Acme"}],"pagination":{"next_cursor":null,"has_more":true}}`)
	}))
	defer srv.Close()
	api, err := client.New(srv.URL+"/api/v2", "key")
	if err != nil {
		t.Fatal(err)
	}
	var records, errors int
	for rec, err := range client.All[client.ClientRecord](context.Background(), api.Raw.ListClients, nil) {
		if err != nil {
			errors++
		} else if rec.Name == "Acme" {
			records++
		}
	}
	if records != 1 || errors != 1 || asked.Load() != 1 {
		t.Fatalf("All: %d records, %d errors, %d pages asked; want the page's record, then one error", records, errors, asked.Load())
	}

	asked.Store(0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	feed := api.NewFeed("", nil)
	feed.Every = time.Hour
	var changes, ends int
	for _, err := range feed.Changes(ctx) {
		if err != nil {
			ends++
			continue
		}
		if changes++; changes > 1 {
			break
		}
	}
	if changes != 1 || ends != 1 || asked.Load() != 1 {
		t.Fatalf("feed: %d changes, %d errors, %d pages asked; want the page's change, then one error", changes, ends, asked.Load())
	}
}

// TestFeedHead: a Feed started from FeedHead yields the changes written
// after it (what it yields of earlier ones depends on the server's oldest
// running write, docs/changes.md "Starting from now"); the head of a type
// filter goes on with that filter only.
func TestFeedHead(t *testing.T) {
	api, ctx := sdkFor(t, "Feed head")
	types := "client.updated"
	params := &client.ListChangesParams{Type: &types}
	head, err := api.FeedHead(ctx, params)
	if err != nil || head == "" {
		t.Fatalf("FeedHead: %q, %v", head, err)
	}
	created, err := api.CreateClientWithResponse(ctx, nil, client.ClientCreate{Name: "After the head"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.JSON201.ClientRecord.Id
	name := "Renamed after the head"
	if _, err := api.UpdateClientWithResponse(ctx, id, nil, client.ClientUpdate{Name: &name}); err != nil {
		t.Fatal(err)
	}
	feed := api.NewFeed(head, params)
	feed.Every = pollEvery
	for ch, err := range feed.Changes(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Type != "client.updated" {
			t.Fatalf("a %s change from the head of client.updated", ch.Type)
		}
		if ch.ObjectId == id {
			break
		}
	}
	// The head's cursor is bound to its filter.
	for _, err := range api.NewFeed(head, nil).Changes(ctx) {
		if client.CodeOf(err) != "validation_error" {
			t.Errorf("the head of client.updated followed without the filter: %v", err)
		}
		break
	}
}

// TestAFeedFromNowDropsFromAtItsCursor: a Feed given From (ChangesFromNow)
// asks for the head on its first poll only, and polls from the cursor it
// got there without from (the server refuses the two together).
func TestAFeedFromNowDropsFromAtItsCursor(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Feed from now")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var (
		mu      sync.Mutex
		queries []url.Values
	)
	record := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		queries = append(queries, req.URL.Query())
		if len(queries) == 3 {
			stop()
		}
		mu.Unlock()
		return contractClient(t).Transport.RoundTrip(req)
	})
	api, err := client.New(env.Listen(t)+"/api/v2", org.Key, client.HTTPClient(&http.Client{Transport: record}))
	if err != nil {
		t.Fatal(err)
	}
	now := client.ChangesFromNow
	feed := api.NewFeed("", &client.ListChangesParams{From: &now})
	feed.Every = pollEvery
	for _, err := range feed.Changes(ctx) {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the feed: %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, q := range queries {
		if first := i == 0; q.Has("from") != first || q.Has("cursor") == first {
			t.Errorf("poll %d: %v, want from=now on the first poll only and a cursor on the others", i+1, q)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestOnCursorSavesTheHeadOfAFeedFromNow: a Feed started at the head tells
// OnCursor the head on its first poll, before any change came, so a Feed
// restarted from the saved cursor yields what was written while none ran;
// and OnCursor hears of a page's cursor only after the loop body handled
// the page's last change. Saved beside each change alone, as the SDK's
// example did until 2.11.3, the cursor stayed "" until the first change,
// and a restart asked for a new head and skipped what came meanwhile.
func TestOnCursorSavesTheHeadOfAFeedFromNow(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Feed from now, restarted")
	api, err := client.New(env.Listen(t)+"/api/v2", org.Key, client.HTTPClient(contractClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	saved := ""
	now := client.ChangesFromNow
	first := api.NewFeed(saved, &client.ListChangesParams{From: &now})
	first.Every = pollEvery
	stopped, stop := context.WithCancel(ctx)
	first.OnCursor = func(c string) { saved = c; stop() }
	for ch, err := range first.Changes(stopped) {
		if err == nil {
			t.Fatalf("a feed from now on an organization without changes yielded %s", ch.Type)
		}
	}
	if saved == "" {
		t.Fatal("OnCursor was not told the head before the feed stopped")
	}

	// Written while no feed runs.
	written := map[string]bool{}
	for _, name := range []string{"While down 1", "While down 2"} {
		res, err := api.CreateClientWithResponse(ctx, nil, client.ClientCreate{Name: name})
		if err != nil || res.JSON201 == nil {
			t.Fatalf("create client: %v", err)
		}
		written[res.JSON201.ClientRecord.Id.String()] = true
	}

	limit := 2
	restarted := api.NewFeed(saved, &client.ListChangesParams{From: &now, Limit: &limit})
	restarted.Every = pollEvery
	var events []string
	handled := 0
	caughtUp, done := context.WithCancel(ctx)
	// The two changes may come in two pages (a transaction open elsewhere
	// in the cluster holds the feed's horizon back for a moment), each
	// followed by its cursor: the feed stops at the cursor after both.
	restarted.OnCursor = func(string) {
		events = append(events, "cursor")
		if handled == len(written) {
			done()
		}
	}
	for ch, err := range restarted.Changes(caughtUp) {
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !written[ch.ObjectId.String()] {
			t.Fatalf("the restarted feed yielded %s %s, want the clients written while it was down", ch.Type, ch.ObjectId)
		}
		events = append(events, "change")
		handled++
	}
	if got := strings.Join(events, ","); strings.Count(got, "change") != 2 || !strings.HasSuffix(got, "change,cursor") {
		t.Fatalf("events %s, want both changes handled, then the cursor after them told", got)
	}
}

// TestABreakOnAPagesLastChangeYieldsItAgain: a loop that breaks out on the
// last change of a page (its handling failed) gets that change again when
// it ranges over the same Feed; until 2.11.3 the feed had moved past the
// page before handing out its last change, so a failure there, unlike one
// anywhere else in the page, lost the change. A server of pages set up for
// the test fixes where the page ends.
func TestABreakOnAPagesLastChangeYieldsItAgain(t *testing.T) {
	change := func(n int) string {
		return fmt.Sprintf(`{"id":"0192f3a1-0000-7000-8000-00000000000%d","type":"client.updated","object_type":"client",`+
			`"object_id":"0192f3a1-0000-7000-8000-0000000000a%d","data":{},"created_at":"2026-12-01T00:00:00Z"}`, n, n)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Query().Get("cursor") {
		case "":
			fmt.Fprintf(w, `{"data":[%s,%s],"pagination":{"next_cursor":"p2","has_more":true}}`, change(1), change(2))
		case "p2":
			fmt.Fprintf(w, `{"data":[%s],"pagination":{"next_cursor":"p3","has_more":false}}`, change(3))
		default:
			fmt.Fprint(w, `{"data":[],"pagination":{"next_cursor":"p3","has_more":false}}`)
		}
	}))
	defer srv.Close()
	feed, ctx := feedFrom(t, srv.URL)
	var handled []string
	failed := false
	for range 2 {
		for ch, err := range feed.Changes(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			id := ch.Id.String()
			if strings.HasSuffix(id, "2") && !failed {
				failed = true
				break // handling failed: range again
			}
			handled = append(handled, id[len(id)-1:])
			if len(handled) == 4 {
				break
			}
		}
	}
	// The page [1, 2] again after the failure on 2, then 3.
	if got := strings.Join(handled, ","); got != "1,1,2,3" {
		t.Fatalf("handled %s, want 1,1,2,3 (the page yielded again after a break on its last change)", got)
	}
}

// feedFrom is a Feed from the oldest change of the server of pages at url,
// polling every 10 ms, and a context that ends with the test or after a
// minute.
func feedFrom(t *testing.T, url string) (*client.Feed, context.Context) {
	t.Helper()
	api, err := client.New(url+"/api/v2", "key")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	feed := api.NewFeed("", nil)
	feed.Every = pollEvery
	return feed, ctx
}
