package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
)

// TestFeedFollowsChangesAndResumes: a Feed yields the changes of writes
// made before and while it runs, each once; a second Feed started from the
// first one's Cursor yields only what came after.
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
	feed.Every = 10 * time.Millisecond
	seen := map[string]int{}
	for ch, err := range feed.Changes(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		seen[ch.ObjectId.String()]++
		if len(seen) == 1 {
			want[newClient("During")] = true // written while the feed runs
		}
		if len(seen) == len(want) {
			break
		}
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("client %s: %d changes, want 1", id, seen[id])
		}
	}

	later := newClient("After")
	resumed := api.NewFeed(feed.Cursor(), nil)
	resumed.Every = 10 * time.Millisecond
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
