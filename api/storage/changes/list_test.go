package changes_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// feedOf makes an organization whose feed holds runs of changes in order:
// kind "c" a client's, "r" a reservation's. Positions are small xid8
// values, below any horizon.
func feedOf(t *testing.T, db *bun.DB, runs ...run) tenancy.OrganizationID {
	t.Helper()
	o, err := tenancy.CreateOrganization(context.Background(), db, "Feed", nil)
	if err != nil {
		t.Fatal(err)
	}
	org := tenancy.OrganizationID{UUID: o.ID}
	feedOfAppend(t, db, org, 0, runs...)
	return org
}

type run struct {
	kind string
	n    int
}

// read lists org's feed after after for a key that reads clients alone.
func read(t *testing.T, db *bun.DB, org tenancy.OrganizationID, limit int, after *storage.Cursor) feed.Feed {
	t.Helper()
	f, err := feed.List(context.Background(), db, org, storage.PageRequest{Limit: limit, After: after},
		feed.Filter{ObjectTypes: []string{feed.Client}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestListResumesAfterWhatTheKeyCannotSee: a page that is not full resumes
// after the last change the read passed over, listed or not, so a key that
// reads clients alone does not pass over the same reservations on every
// poll; and a read passes over at most MaxScan changes, so one that finds
// none of the key's among them ends there with more to come.
func TestListResumesAfterWhatTheKeyCannotSee(t *testing.T) {
	db := pgtest.Open(t)

	t.Run("short page", func(t *testing.T) {
		org := feedOf(t, db, run{"r", 25}, run{"c", 1}, run{"r", 30})
		first := read(t, db, org, 10, nil)
		if len(first.Items) != 1 || first.Items[0].ObjectType != feed.Client || first.HasMore || first.Resume == nil {
			t.Fatalf("first read: %d changes, has_more %v, resume %v; want the client's, no more, a resume point", len(first.Items), first.HasMore, first.Resume)
		}
		if first.Resume.ID == first.Items[0].PageKey().ID {
			t.Fatal("the read resumes after the client's change, passing over the 30 reservations after it again")
		}
		if again := read(t, db, org, 10, first.Resume); len(again.Items) != 0 || again.Resume != nil || again.HasMore {
			t.Fatalf("read from the resume point: %d changes, resume %v; want none passed over", len(again.Items), again.Resume)
		}
	})

	t.Run("nothing the key can see", func(t *testing.T) {
		org := feedOf(t, db, run{"r", 40})
		first := read(t, db, org, 10, nil)
		if len(first.Items) != 0 || first.Resume == nil || first.HasMore {
			t.Fatalf("first read: %d changes, resume %v, has_more %v; want none, a resume point past the 40", len(first.Items), first.Resume, first.HasMore)
		}
		feedOfAppend(t, db, org, 40, run{"c", 1})
		if next := read(t, db, org, 10, first.Resume); len(next.Items) != 1 {
			t.Fatalf("after a client change: %d changes, want it", len(next.Items))
		}
	})

	t.Run("a read passes over at most MaxScan", func(t *testing.T) {
		org := feedOf(t, db, run{"r", feed.MaxScan + 50}, run{"c", 1})
		first := read(t, db, org, 10, nil)
		if len(first.Items) != 0 || !first.HasMore || first.Resume == nil {
			t.Fatalf("first read: %d changes, has_more %v, resume %v; want none, more to come, a resume point", len(first.Items), first.HasMore, first.Resume)
		}
		second := read(t, db, org, 10, first.Resume)
		if len(second.Items) != 1 || second.Items[0].ObjectType != feed.Client || second.HasMore {
			t.Fatalf("second read: %d changes, has_more %v; want the client's and no more", len(second.Items), second.HasMore)
		}
	})

	t.Run("a full page resumes after its last change", func(t *testing.T) {
		org := feedOf(t, db, run{"c", 3}, run{"r", 5}, run{"c", 3})
		first := read(t, db, org, 3, nil)
		if len(first.Items) != 3 || !first.HasMore || *first.Resume != first.Items[2].PageKey() {
			t.Fatalf("first read: %d changes, has_more %v; want 3, more, resume at the third", len(first.Items), first.HasMore)
		}
		if second := read(t, db, org, 3, first.Resume); len(second.Items) != 3 {
			t.Fatalf("second read: %d changes, want the 3 clients after the reservations", len(second.Items))
		}
	})
}

// feedOfAppend adds runs to org's feed after position from.
func feedOfAppend(t *testing.T, db *bun.DB, org tenancy.OrganizationID, from int, runs ...run) {
	t.Helper()
	last := int64(from)
	for _, r := range runs {
		last += int64(r.n)
	}
	pgtest.TransactionIDsPast(t, db, last)
	for _, r := range runs {
		object := map[string]string{"c": "client", "r": "equipment_reservation"}[r.kind]
		if _, err := db.NewRaw(`INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
			SELECT ?, (? + g)::text::xid8, ? || '.created', ?, gen_random_uuid(), '{}'::jsonb FROM generate_series(1, ?) g`,
			org.UUID, from, object, object, r.n).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		from += r.n
	}
}

// TestPurgeDeletesInBatches: the retention purge deletes the changes past
// retention a batch per statement, until a batch finds fewer, and keeps
// the recent ones.
func TestPurgeDeletesInBatches(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org := feedOf(t, db, run{"c", 7}, run{"r", 2})
	if _, err := db.NewRaw(`UPDATE changes SET created_at = created_at - interval '30 days 1 minute'
		WHERE organization_id = ? AND object_type = 'client'`, org.UUID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	statements := &pgtest.Statements{Marker: "the feed's retention"}
	counted := db.WithQueryHook(statements)
	n, err := feed.PurgeInBatchesOf(ctx, counted, 3)
	if err != nil || n != 7 {
		t.Fatalf("purge: %d deleted, %v; want 7", n, err)
	}
	if got := len(statements.Sent); got != 3 {
		t.Errorf("purge ran %d statements, want 3 (batches of 3, 3 and 1)", got)
	}
	var left []string
	if err := db.NewRaw("SELECT object_type FROM changes WHERE organization_id = ?", org.UUID).Scan(ctx, &left); err != nil {
		t.Fatal(err)
	}
	if len(left) != 2 || left[0] != "equipment_reservation" {
		t.Fatalf("left %v, want the 2 recent reservation changes", left)
	}
}

// TestPurgeCanBeServedByAnIndex: the purge's statement has an index for
// every read of changes, so a run reads a bounded part of the feed however
// large it is. A cutoff computed per row (clock_timestamp()) is one no
// index can serve: every run would scan the whole table.
func TestPurgeCanBeServedByAnIndex(t *testing.T) {
	db := pgtest.Open(t)
	feedOf(t, db, run{"c", 3})
	sent := &pgtest.Statements{Marker: "the feed's retention"}
	if _, err := feed.Purge(context.Background(), db.WithQueryHook(sent)); err != nil || len(sent.Sent) != 1 {
		t.Fatalf("purge: %d statements, %v; want 1", len(sent.Sent), err)
	}
	if plan := pgtest.PlanWithoutSeqScans(t, db, sent.Sent[0]); strings.Contains(plan, "Seq Scan on changes") {
		t.Fatalf("the purge scans the whole feed:\n%s", plan)
	}
}

// TestAPurgeDoesNotWaitForAnother: a pod that purges while another's batch
// is uncommitted finds the head locked and stops at once (SKIP LOCKED),
// deleting nothing twice; the other's commit deletes its batch.
func TestAPurgeDoesNotWaitForAnother(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org := feedOf(t, db, run{"c", 5})
	age(t, db, org, 1, 2, 3, 4, 5)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if n, err := feed.Purge(ctx, tx); err != nil || n != 5 {
		t.Fatalf("the first pod's purge: %d, %v; want 5", n, err)
	}
	// A purge that waited for the lock would wait for this test's end.
	bounded, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if n, err := feed.Purge(bounded, db); err != nil || n != 0 {
		t.Fatalf("the second pod's purge, the first uncommitted: %d, %v; want 0 at once", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.NewRaw("SELECT count(*) FROM changes WHERE organization_id = ?", org.UUID).Scan(ctx, &left); err != nil || left != 0 {
		t.Fatalf("%d changes left (%v), want 0", left, err)
	}
}

// TestAPurgeGoesOnPastChangesAnotherHolds: a batch that deletes fewer of
// its head's old changes because another pod's purge holds some of them
// does not end the run: the run goes on past them and deletes every other
// old change. Ending at the first short batch let two pods that met on the
// head both stop, leaving the backlog for another hour.
func TestAPurgeGoesOnPastChangesAnotherHolds(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org := feedOf(t, db, run{"c", 9})
	age(t, db, org, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	// Another pod's batch holds the second and the fifth.
	if _, err := tx.NewRaw(`SELECT seq FROM changes WHERE organization_id = ? AND position::text::bigint IN (2, 5) FOR UPDATE`, org.UUID).
		Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := feed.PurgeInBatchesOf(ctx, db, 3); err != nil || n != 7 {
		t.Fatalf("purge beside another's batch: %d deleted, %v; want the 7 it does not hold", n, err)
	}
}
