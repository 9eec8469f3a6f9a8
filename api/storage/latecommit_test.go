package storage_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/tenancy"
)

// TestListNeverPassesALateCommit: a record whose transaction commits after a
// reader took a page sorts after every record of that page, even when the
// transaction wrote it before another writer's record that the page holds.
// Otherwise a cursor already past that point would never list it (the
// migration list_order_is_commit_order, docs/decisions.md).
func TestListNeverPassesALateCommit(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.create(t, f.A, "first")

	// A transaction writes "early" and stays open.
	tx, err := f.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.NewRaw("INSERT INTO clients (organization_id, name) VALUES (?, 'early')", f.A).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// Another writes "late", through the storage layer, meanwhile.
	done := make(chan error, 1)
	go func() {
		var ch storage.Changes
		ch.Set("name", "late")
		_, err := storage.Create[client](ctx, f.DB, tenancy.Tenant{Org: f.A}, ch)
		done <- err
	}()
	// "late" is either written (as it was before the fix) or waits for
	// "early"'s transaction.
	lateDone := waitWrittenOrWaiting(t, f.DB, done)

	seen := walk(t, f, f.A, 100, nil)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if !lateDone {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}

	all, err := storage.List[client](ctx, f.DB, f.A, storage.PageRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, n := range seen {
		read[n] = true
	}
	var last storage.Cursor
	for _, c := range all.Items {
		if read[c.Name] {
			last = c.PageKey()
		}
	}
	for _, c := range all.Items {
		if !read[c.Name] && !after(c.PageKey(), last) {
			t.Errorf("%q committed after the page %v was read but sorts before its end: "+
				"a reader following the cursor never lists it", c.Name, seen)
		}
	}
	if len(all.Items) != 3 {
		t.Fatalf("%d clients, want first, early, late", len(all.Items))
	}
}

// after reports whether a sorts after b in (created_at, id) order.
func after(a, b storage.Cursor) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return bytes.Compare(a.ID[:], b.ID[:]) > 0
}

// waitWrittenOrWaiting returns true when the write behind done ended and
// false when a session of the database waits for an advisory lock; it fails
// the test when the write failed.
func waitWrittenOrWaiting(t *testing.T, db *bun.DB, done <-chan error) bool {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			return true
		case <-tick.C:
			var waiting bool
			if err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = l.database
				WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted)`).Scan(context.Background(), &waiting); err != nil {
				t.Fatal(err)
			}
			if waiting {
				return false
			}
		}
	}
}

// TestEveryListTableOrdersByCommit: every table with a page index (the
// organization, then created_at and id) takes the list_position lock on
// insert, so a table added later cannot be listed without it. The
// exceptions are not read oldest first through a cursor.
func TestEveryListTableOrdersByCommit(t *testing.T) {
	f := newFixture(t)
	notListedOldestFirst := map[string]string{
		"api_keys":           "listed by the CLI only, in full",
		"pick_list_items":    "read in full with their pick list",
		"webhook_deliveries": "newest first: a later commit belongs at the head, which a reader has passed anyway",
	}
	var missing []string
	if err := f.DB.NewRaw(`
		SELECT DISTINCT c.relname FROM pg_index i
		JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		WHERE (SELECT array_agg(a.attname ORDER BY k.ord) FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
		       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum)
		      @> ARRAY['organization_id', 'created_at', 'id']::name[]
		  AND NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'list_position')
		  AND c.relname NOT IN (?)
		ORDER BY 1`, bun.List(slices.Collect(maps.Keys(notListedOldestFirst)))).Scan(context.Background(), &missing); err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("tables with a page index but no list_position trigger: %v", missing)
	}
}
