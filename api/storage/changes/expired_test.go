package changes_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// age puts org's changes at the given positions past the retention.
func age(t *testing.T, db bun.IDB, org tenancy.OrganizationID, positions ...int) {
	t.Helper()
	if _, err := db.NewRaw(`UPDATE changes SET created_at = created_at - interval '31 days'
		WHERE organization_id = ? AND position::text::bigint IN (?)`, org.UUID, bun.List(positions)).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// purge runs the retention purge and wants n deletions.
func purge(t *testing.T, db bun.IDB, n int64) {
	t.Helper()
	if got, err := feed.Purge(context.Background(), db); err != nil || got != n {
		t.Fatalf("purge: %d deleted, %v; want %d", got, err, n)
	}
}

// positions lists the changes' positions.
func positions(cs []feed.Change) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.Position
	}
	return out
}

// list reads org's client changes after after, up to limit.
func list(db bun.IDB, org tenancy.OrganizationID, limit int, after *storage.Cursor) (feed.Feed, error) {
	return feed.List(context.Background(), db, org, storage.PageRequest{Limit: limit, After: after},
		feed.Filter{ObjectTypes: []string{feed.Client}})
}

// TestACursorBeforeTheRetentionMarkIsExpired is docs/changes.md, "An
// expired cursor": a change past the retention is listed until the purge
// deletes it; then a cursor before the last deleted change (the mark) is
// refused with cursor_expired, one at or after it goes on, and a read
// without a cursor starts after it, also over a change older in feed
// order that the purge kept. The mark never moves back, and it is the
// organization's own.
func TestACursorBeforeTheRetentionMarkIsExpired(t *testing.T) {
	db := pgtest.Open(t)
	org := feedOf(t, db, run{"c", 10})
	other := feedOf(t, db, run{"c", 3})
	all, err := list(db, org, 10, nil)
	if err != nil || len(all.Items) != 10 {
		t.Fatalf("the feed lists %d changes (%v), want 10", len(all.Items), err)
	}
	at := func(position int) *storage.Cursor {
		k := all.Items[position-1].PageKey()
		return &k
	}
	otherFirst, err := list(db, other, 1, nil)
	if err != nil {
		t.Fatal(err)
	}

	// Past the retention but not purged: still listed.
	age(t, db, org, 1, 2, 3, 5, 6)
	if f, err := list(db, org, 10, at(3)); err != nil || len(f.Items) != 7 {
		t.Fatalf("before the purge, after the third: %v (%v), want the 7 after it, the aged ones too", positions(f.Items), err)
	}

	purge(t, db, 5)
	if _, err := list(db, org, 10, at(3)); !errs.Is(err, errs.CursorExpired) {
		t.Fatalf("a cursor before the purged changes: %v, want cursor_expired", err)
	}
	if _, err := list(db, org, 10, at(4)); !errs.Is(err, errs.CursorExpired) {
		t.Fatalf("a cursor on a kept change before purged ones: %v, want cursor_expired", err)
	}
	if f, err := list(db, org, 10, at(6)); err != nil || len(f.Items) != 4 || f.Items[0].Position != 7 {
		t.Fatalf("a cursor at the last purged change: %v (%v), want 7 to 10", positions(f.Items), err)
	}
	if f, err := list(db, org, 10, nil); err != nil || len(f.Items) != 4 || f.Items[0].Position != 7 {
		t.Fatalf("a read without a cursor: %v (%v), want 7 to 10 (the kept 4 is before the mark)", positions(f.Items), err)
	}
	if f, err := list(db, other, 10, otherFirst.Resume); err != nil || len(f.Items) != 2 {
		t.Fatalf("another organization's cursor: %d changes (%v), want its 2 others", len(f.Items), err)
	}

	// The kept change before the mark goes later: the mark stays.
	age(t, db, org, 4)
	purge(t, db, 1)
	if f, err := list(db, org, 10, at(6)); err != nil || len(f.Items) != 4 {
		t.Fatalf("a cursor at the mark after a later purge of an earlier change: %v (%v), want 7 to 10", positions(f.Items), err)
	}
	if _, err := list(db, org, 10, at(5)); !errs.Is(err, errs.CursorExpired) {
		t.Fatalf("a cursor before the mark after a later purge of an earlier change: %v, want cursor_expired", err)
	}
}

// purgeFirst is a query hook that runs the retention purge, once, before
// the first statement that holds marker: the purge commits between the
// statements of one read.
type purgeFirst struct {
	db     bun.IDB
	marker string
	done   *atomic.Bool
	t      *testing.T
}

func (h purgeFirst) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if strings.Contains(e.Query, h.marker) && h.done.CompareAndSwap(false, true) {
		if _, err := feed.Purge(ctx, h.db); err != nil {
			h.t.Error(err)
		}
	}
	return ctx
}
func (purgeFirst) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestAPurgeDuringAReadIsSeen: a purge that commits after a read took the
// horizon and the mark, and before it read its page (or, for a page that
// is not full, the last change passed over), is seen by the statement
// that reads them: the cursor is refused; a read without one starts
// again after the new mark.
func TestAPurgeDuringAReadIsSeen(t *testing.T) {
	db := pgtest.Open(t)
	for _, tc := range []struct {
		name, marker string
		limit        int
	}{
		{"a full page", "sized", 2},
		{"a page that is not full", "LATERAL", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			org := feedOf(t, db, run{"c", 10})
			first, err := list(db, org, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			age(t, db, org, 3, 4)
			hooked := db.WithQueryHook(purgeFirst{db: db, marker: tc.marker, done: new(atomic.Bool), t: t})
			if _, err := list(hooked, org, tc.limit, first.Resume); !errs.Is(err, errs.CursorExpired) {
				t.Fatalf("a cursor before changes purged during the read: %v, want cursor_expired", err)
			}

			org = feedOf(t, db, run{"c", 10})
			age(t, db, org, 1, 2)
			hooked = db.WithQueryHook(purgeFirst{db: db, marker: tc.marker, done: new(atomic.Bool), t: t})
			f, err := list(hooked, org, tc.limit, nil)
			if err != nil || len(f.Items) == 0 || f.Items[0].Position != 3 {
				t.Fatalf("a read without a cursor during a purge: %v (%v), want it to start after the purged 1 and 2", positions(f.Items), err)
			}
		})
	}
}

// TestACursorInsideATransactionBeforeTheMarkIsExpired: one transaction's
// changes share one position and follow each other by seq, and a page can
// end between them. The purge deletes by seq, so the mark can fall between
// them too. A cursor on one of them before the mark is refused like any
// cursor before it, though its position is the mark's: the changes after
// it up to the mark are gone. A cursor at the mark goes on with the rest
// of the transaction, as does a read without a cursor (docs/changes.md,
// "An expired cursor"). Both kinds of read are covered: a full page (its
// statement reads the mark) and one that is not full (the statement that
// finds the last change passed over reads it).
func TestACursorInsideATransactionBeforeTheMarkIsExpired(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		limit int
	}{
		{"a full page", 1},
		{"a page that is not full", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			org := feedOf(t, db)
			pgtest.TransactionIDsPast(t, db, 2)
			// One transaction's 3 changes at position 1, then another's at 2.
			if _, err := db.NewRaw(`INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
				SELECT ?, (CASE WHEN g <= 3 THEN 1 ELSE 2 END)::text::xid8, 'client.created', 'client', gen_random_uuid(), '{}'::jsonb
				FROM generate_series(1, 4) g ORDER BY g`, org.UUID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			all, err := list(db, org, 10, nil)
			if err != nil || len(all.Items) != 4 {
				t.Fatalf("the feed lists %d changes (%v), want 4", len(all.Items), err)
			}
			for i := 1; i < 3; i++ {
				if p, q := all.Items[i-1], all.Items[i]; p.Position != 1 || q.Position != 1 || p.Seq >= q.Seq {
					t.Fatalf("changes %v: want the first 3 at position 1 in increasing seq", positions(all.Items))
				}
			}
			// A page of one ends inside the transaction: its cursor is
			// on the first change.
			first, err := list(db, org, 1, nil)
			if err != nil || !first.HasMore || first.Resume == nil || *first.Resume != all.Items[0].PageKey() {
				t.Fatalf("a page of one: resume %v, has_more %v (%v), want the first change's cursor", first.Resume, first.HasMore, err)
			}

			// The purge deletes the first two: the mark is the second,
			// at the first's position.
			if _, err := db.NewRaw(`UPDATE changes SET created_at = created_at - interval '31 days'
				WHERE organization_id = ? AND seq IN (?, ?)`, org.UUID, all.Items[0].Seq, all.Items[1].Seq).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			purge(t, db, 2)

			if _, err := list(db, org, tc.limit, first.Resume); !errs.Is(err, errs.CursorExpired) {
				t.Fatalf("a cursor on a purged change of the mark's transaction, before the mark: %v, want cursor_expired", err)
			}
			mark := all.Items[1].PageKey()
			f, err := list(db, org, tc.limit, &mark)
			if err != nil || len(f.Items) == 0 || f.Items[0].Seq != all.Items[2].Seq {
				t.Fatalf("a cursor at the mark: %v (%v), want the transaction's third change first", positions(f.Items), err)
			}
			if f, err := list(db, org, tc.limit, nil); err != nil || len(f.Items) == 0 || f.Items[0].Seq != all.Items[2].Seq {
				t.Fatalf("a read without a cursor: %v (%v), want the transaction's third change first", positions(f.Items), err)
			}
		})
	}
}
