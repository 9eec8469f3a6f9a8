package changes_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	feed "github.com/eventapi/eventapi/api/storage/changes"
)

// TestRetention: a change older than feed.Retention (30 days) is listed
// until the purge deletes it, and then no more; one a minute younger is
// both listed and kept.
func TestRetention(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	old := create(t, a, "/api/v2/clients", map[string]any{"name": "Old"})
	recent := create(t, a, "/api/v2/clients", map[string]any{"name": "Recent"})
	settle(t, a, "", holds(recent["id"]))
	ctx := context.Background()
	// One a minute past feed.Retention, the other a minute short of it.
	for id, age := range map[any]time.Duration{old["id"]: feed.Retention + time.Minute, recent["id"]: feed.Retention - time.Minute} {
		if _, err := env.Svc.DB.NewRaw(`UPDATE changes SET created_at = created_at - make_interval(secs => ?)
			WHERE organization_id = ? AND object_id = ?`, age.Seconds(), a.ID, id).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if listed, _ := follow(t, a, "", ""); len(listed) != 2 {
		t.Fatalf("before the purge the feed lists %v, want both changes", types(listed))
	}
	n, err := feed.Purge(ctx, env.Svc.DB)
	if err != nil || n != 1 {
		t.Fatalf("purge: %d, %v; want 1 deleted", n, err)
	}
	listed, _ := follow(t, a, "", "")
	if len(listed) != 1 || listed[0]["object_id"] != recent["id"] {
		t.Fatalf("feed lists %v, want only the recent change", types(listed))
	}
	var left int
	if err := env.Svc.DB.NewRaw("SELECT count(*) FROM changes WHERE organization_id = ?", a.ID).Scan(ctx, &left); err != nil || left != 1 {
		t.Fatalf("%d changes left (%v), want 1", left, err)
	}
}

// TestAnExpiredCursorIsGone is the reviewer's case (docs/changes.md, "An
// expired cursor"): a reader saves its cursor, the changes after it pass
// the retention and are purged, and the reader comes back. It gets 410
// cursor_expired telling it to resync, not a page that skips them; a
// reader of another organization, and a new reader, go on with 200.
func TestAnExpiredCursorIsGone(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	first := create(t, a, "/api/v2/clients", map[string]any{"name": "First"})
	settle(t, a, "", holds(first["id"]))
	_, saved := follow(t, a, "", "")
	gone := create(t, a, "/api/v2/clients", map[string]any{"name": "Gone"})
	kept := create(t, a, "/api/v2/clients", map[string]any{"name": "Kept"})
	settle(t, a, "", holds(kept["id"]))
	create(t, b, "/api/v2/clients", map[string]any{"name": "B"})
	bChanges := settle(t, b, "", atLeast(1))
	_, bSaved := follow(t, b, "", "")

	ctx := context.Background()
	if _, err := env.Svc.DB.NewRaw(`UPDATE changes SET created_at = created_at - interval '31 days'
		WHERE organization_id = ? AND object_id IN (?, ?)`, a.ID, first["id"], gone["id"]).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := feed.Purge(ctx, env.Svc.DB); err != nil || n != 2 {
		t.Fatalf("purge: %d, %v; want 2 deleted", n, err)
	}

	res := a.Get(feedPath + "?cursor=" + url.QueryEscape(saved))
	if res.Status != 410 || res.ErrorCode() != "cursor_expired" || !strings.Contains(res.ErrorMessage(), "Resync") || !strings.Contains(res.ErrorMessage(), "kept 30 days") {
		t.Fatalf("a cursor before purged changes: %d %s, want 410 cursor_expired telling the reader to resync", res.Status, res.Body)
	}
	if example := apitest.ErrorExamples(t, false)["CursorExpired"].Example; res.ErrorCode() != example.Code || res.ErrorMessage() != example.Message {
		t.Errorf("%s %q, the document's example %+v", res.ErrorCode(), res.ErrorMessage(), example)
	}
	apitest.AssertNoDatabaseText(t, res.Body)

	if listed, _ := follow(t, a, "", ""); len(listed) != 1 || listed[0]["object_id"] != kept["id"] {
		t.Fatalf("a new reader lists %v, want the kept change", types(listed))
	}
	if listed, _ := follow(t, b, "", bSaved); len(listed) != 0 || len(bChanges) != 1 {
		t.Fatalf("another organization's cursor: %v, want a page with nothing new", types(listed))
	}
}
