package changes_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestTheFeedWaitsForAnOpenTransaction: a change of a transaction still
// open holds the feed back (the visibility horizon, docs/changes.md): a
// change committed after it is not listed yet and the cursor does not pass
// it, so a reader that goes on from its cursor gets both, each once, once
// the first commits. Without the horizon the later change was listed, its
// cursor passed the earlier change's place, and the reader never saw it.
// The two are of two tables: writes of one table and organization are
// serialized (list order is commit order, docs/decisions.md).
func TestTheFeedWaitsForAnOpenTransaction(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	o, err := tenancy.CreateOrganization(ctx, db, "Horizon", nil)
	if err != nil {
		t.Fatal(err)
	}
	org := tenancy.OrganizationID{UUID: o.ID}
	readBoth := func(after *storage.Cursor) feed.Feed {
		t.Helper()
		f, err := feed.List(ctx, db, org, storage.PageRequest{Limit: 10, After: after},
			feed.Filter{ObjectTypes: []string{feed.Client, feed.CrewMember}})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	var early, late string
	if err := tx.NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, 'early') RETURNING id", o.ID).Scan(ctx, &early); err != nil {
		t.Fatal(err)
	}
	if err := db.NewRaw("INSERT INTO crew_members (organization_id, first_name, last_name) VALUES (?, 'Late', 'Crew') RETURNING id",
		o.ID).Scan(ctx, &late); err != nil {
		t.Fatal(err)
	}
	before := readBoth(nil)
	if len(before.Items) != 0 {
		t.Fatalf("%d changes listed while an earlier one was uncommitted (the first of %s %s); want none",
			len(before.Items), before.Items[0].ObjectType, before.Items[0].ObjectID)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Go on from the read's place until both came: other transactions on
	// the server may hold the horizon back a while longer.
	after := before.Resume
	var seen []string
	for deadline := time.Now().Add(time.Minute); len(seen) < 2 && time.Now().Before(deadline); {
		page := readBoth(after)
		for _, ch := range page.Items {
			seen = append(seen, ch.ObjectID.String())
		}
		if page.Resume != nil {
			after = page.Resume
		}
		if len(seen) < 2 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(seen) != 2 || seen[0] != early || seen[1] != late {
		t.Fatalf("the reader got %v, want the early change then the late one (%s, %s)", seen, early, late)
	}
}
