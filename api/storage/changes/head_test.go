package changes_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestHeadIsAStoredPlace: the head is the organization's last change below
// the visibility horizon, however far the horizon has moved past it (here
// by transactions that record no change, as request-log flushes do), or its
// retention mark when that is later, or the feed's start: never a place
// above every stored position, which a moved database's detection cannot
// see (docs/changes.md, "A moved database"). Read after it, the feed lists
// just what was written after it; another organization's changes do not
// move it.
func TestHeadIsAStoredPlace(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	newOrg := func(name string) tenancy.OrganizationID {
		o, err := tenancy.CreateOrganization(ctx, db, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tenancy.OrganizationID{UUID: o.ID}
	}
	org, other := newOrg("Head"), newOrg("Other")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(q, args...).Exec(ctx); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	client := func(o tenancy.OrganizationID, name string) {
		t.Helper()
		exec("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, ?)", uuid.New(), o.UUID, name)
	}
	head := func() storage.Cursor {
		t.Helper()
		h, err := feed.Head(ctx, db, org)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}

	place := func(position, seq int64) storage.Cursor {
		return (&feed.Change{Position: position, Seq: seq}).PageKey()
	}
	if h, start := head(), place(0, 0); h != start {
		t.Errorf("the head of an empty feed is %v, want the start %v", h, start)
	}
	client(org, "first")
	all, _ := until(t, db, org, nil, 1) // below the horizon from now on
	for range 50 {
		exec("SELECT pg_current_xact_id()") // the horizon moves on, no change recorded
	}
	client(other, "another organization's")
	if h := head(); h != all[0].PageKey() {
		t.Fatalf("head %v, want the last change %v", h, all[0].PageKey())
	}

	at := head()
	client(org, "second")
	after, _ := until(t, db, org, &at, 1)
	if len(after) != 1 || after[0].Seq == all[0].Seq {
		t.Fatalf("after the head: %s, want the second client only", described(after))
	}

	// A retention mark after the last change (every change below the
	// horizon purged) is the head.
	exec("INSERT INTO change_retention_marks (organization_id, position, seq) VALUES (?, ?::text::xid8, ?)",
		org.UUID, after[0].Position, after[0].Seq+1)
	if h, mark := head(), place(after[0].Position, after[0].Seq+1); h != mark {
		t.Errorf("head %v, want the mark %v", h, mark)
	}
}
