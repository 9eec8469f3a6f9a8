package changes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// until reads org's client changes from after until it has want of them
// (the feed lists a change once every transaction on the server that began
// before it has ended, which on a shared server takes a moment) and returns
// them with the cursor to go on from.
func until(t *testing.T, db bun.IDB, org tenancy.OrganizationID, after *storage.Cursor, want int) ([]feed.Change, *storage.Cursor) {
	t.Helper()
	var got []feed.Change
	cursor := after
	for deadline := time.Now().Add(60 * time.Second); ; {
		f, err := feed.List(context.Background(), db, org, storage.PageRequest{Limit: 100, After: cursor},
			feed.Filter{ObjectTypes: []string{feed.Client}})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f.Items...)
		if f.Resume != nil {
			cursor = f.Resume
		}
		if len(got) >= want {
			return got, cursor
		}
		if time.Now().After(deadline) {
			t.Fatalf("the feed lists %d changes after 60s, want %d", len(got), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// described is each change's type and the client's name in it.
func described(cs []feed.Change) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Type+" "+string(c.Data))
	}
	return fmt.Sprint(out)
}

// TestAMovedDatabaseKeepsCursorsAndOrder is docs/changes.md, "A moved
// database": the stored positions stand far above the transaction counter
// (a database of the same cluster shares the counter, so the test raises
// them, as a restore into a cluster with a lower counter would leave them);
// `migrate up` raises the offset, and then a reader following a cursor
// saved before the move sees the new changes, after the old ones, a new
// reader sees every change with each record's in order, and an endpoint
// disabled after the move queues the new changes (the fan-out's horizon is
// webhook_endpoint_disabled's).
func TestAMovedDatabaseKeepsCursorsAndOrder(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	o, err := tenancy.CreateOrganization(ctx, db, "Moved", nil)
	if err != nil {
		t.Fatal(err)
	}
	org := tenancy.OrganizationID{UUID: o.ID}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(q, args...).Exec(ctx); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	first, second, third := uuid.New(), uuid.New(), uuid.New()
	exec("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'first')", first, org.UUID)
	exec("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'second')", second, org.UUID)
	endpoint := uuid.New()
	exec(`INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret)
		VALUES (?, ?, 'https://example.com/hook', '{*}', '\x00')`, endpoint, org.UUID)
	before, _ := until(t, db, org, nil, 2)
	// The fan-out has taken both to the endpoint.
	exec("UPDATE webhook_endpoints SET feed_position = ?::text::xid8, feed_seq = ? WHERE id = ?", before[1].Position, before[1].Seq, endpoint)

	// The move: every stored position rises by shift; the reader's saved
	// cursor is the old cluster's too.
	const shift = 1_000_000
	exec("UPDATE changes SET position = (position::text::bigint + ?)::text::xid8", shift)
	exec("UPDATE webhook_endpoints SET feed_position = (feed_position::text::bigint + ?)::text::xid8", shift)
	last := before[1]
	last.Position += shift
	saved := last.PageKey()

	m, err := database.NewMigrator(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}

	exec("UPDATE clients SET name = 'first again' WHERE id = ? AND organization_id = ?", first, org.UUID)
	exec("INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'third')", third, org.UUID)

	got, _ := until(t, db, org, &saved, 2)
	if len(got) != 2 || got[0].Type != feed.Client+".updated" || got[0].ObjectID != first ||
		got[1].ObjectID != third || got[0].Position <= last.Position {
		t.Fatalf("after the saved cursor (at %d): %s at %d, %d; want the update of the first client and the third client, above it",
			last.Position, described(got), got[0].Position, got[len(got)-1].Position)
	}

	all, _ := until(t, db, org, nil, 4)
	order := make([]uuid.UUID, len(all))
	for i, c := range all {
		order[i] = c.ObjectID
	}
	if want := fmt.Sprint([]uuid.UUID{first, second, first, third}); fmt.Sprint(order) != want ||
		all[0].Type != feed.Client+".created" || all[2].Type != feed.Client+".updated" {
		t.Fatalf("a new reader: %s, want the first and second created, the first updated, the third created", described(all))
	}

	exec("UPDATE webhook_endpoints SET status = 'disabled' WHERE id = ?", endpoint)
	var queued []uuid.UUID
	if err := db.NewRaw(`SELECT c.object_id FROM webhook_deliveries d JOIN changes c ON c.seq = d.change_seq
		WHERE d.organization_id = ? AND d.endpoint_id = ? ORDER BY c.position, c.seq`, org.UUID, endpoint).Scan(ctx, &queued); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint([]uuid.UUID{first, third}); fmt.Sprint(queued) != want {
		t.Fatalf("the endpoint disabled after the move queued %v, want the changes after the move %v", queued, want)
	}
}
