package changes_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestAnEarlierTransactionsChangeSortsAfterTheRowsPreviousWriter is the
// per-record order of docs/changes.md in its hardest case: transaction A
// takes its id first, B (a higher id) then writes the record and commits,
// and only then does A write the same record. A's change committed last, so
// the feed, ordered by (position, seq), must list it after B's although A's
// own id is the lower one: the position of A's change is raised to at least
// B's. It checks an update and a deletion of a plain record and an update of
// a quote, whose change is taken at commit by another function.
func TestAnEarlierTransactionsChangeSortsAfterTheRowsPreviousWriter(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Order", nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, create, writeB, writeA string
		want                         []string // each change's type and the record's notes or title in it
	}{
		{
			name:   "update of a client",
			create: `INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'C')`,
			writeB: `UPDATE clients SET notes = 'B' WHERE id = ? AND organization_id = ?`,
			writeA: `UPDATE clients SET notes = 'A' WHERE id = ? AND organization_id = ?`,
			want:   []string{"client.created <nil>", "client.updated B", "client.updated A"},
		},
		{
			name:   "deletion of a client",
			create: `INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'C')`,
			writeB: `UPDATE clients SET notes = 'B' WHERE id = ? AND organization_id = ?`,
			writeA: `DELETE FROM clients WHERE id = ? AND organization_id = ?`,
			want:   []string{"client.created <nil>", "client.updated B", "client.deleted B"},
		},
		{
			name:   "update of a quote",
			create: `INSERT INTO quotes (id, organization_id, quote_number, title) VALUES (?, ?, 'Q-1', 'Q')`,
			writeB: `UPDATE quotes SET title = 'B' WHERE id = ? AND organization_id = ?`,
			writeA: `UPDATE quotes SET title = 'A' WHERE id = ? AND organization_id = ?`,
			want:   []string{"quote.created Q", "quote.updated B", "quote.updated A"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := uuid.New()
			if _, err := db.NewRaw(tc.create, id, org.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			a, xidA := begin(t, db)
			defer a.Rollback()
			b, xidB := begin(t, db)
			defer b.Rollback()
			if xidB <= xidA {
				t.Fatalf("B's id %d is not above A's %d", xidB, xidA)
			}
			if _, err := b.NewRaw(tc.writeB, id, org.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if _, err := a.NewRaw(tc.writeA, id, org.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if err := a.Commit(); err != nil {
				t.Fatal(err)
			}
			var rows []struct {
				Type     string         `bun:"type"`
				Field    sql.NullString `bun:"field"`
				Position int64          `bun:"position"`
			}
			if err := db.NewRaw(`SELECT type, coalesce(data->>'notes', data->>'title') AS field, position::text::bigint AS position
				FROM changes WHERE organization_id = ? AND object_id = ? ORDER BY position, seq`, org.ID, id).Scan(ctx, &rows); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rows {
				field := "<nil>"
				if r.Field.Valid {
					field = r.Field.String
				}
				got = append(got, r.Type+" "+field)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("feed order %q, want %q (positions %v; A's id %d, B's %d)", got, tc.want, rows, xidA, xidB)
			}
			if last := rows[len(rows)-1].Position; last < xidA {
				t.Fatalf("A's change at %d, below A's own id %d", last, xidA)
			}
		})
	}
}

// begin starts a transaction and gives it its id at once.
func begin(t *testing.T, db *bun.DB) (bun.Tx, int64) {
	t.Helper()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var xid int64
	if err := tx.NewRaw("SELECT pg_current_xact_id()::text::bigint").Scan(context.Background(), &xid); err != nil {
		t.Fatal(err)
	}
	return tx, xid
}

// TestANewRecordsChangeSortsAfterWhatItsStatementSaw: transaction A takes
// its id first (as the Idempotency-Key middleware's claim does, before the
// handler's locks), B (a higher id) writes another record and commits, and
// only then does A create its record, having seen B's write. A's change must
// be listed after B's: a reader replaying the feed would otherwise see A's
// record before the change it depended on (a reservation admitted because
// another was deleted, listed before that deletion). It checks a plain
// record and a quote, whose change is taken at commit by another function.
func TestANewRecordsChangeSortsAfterWhatItsStatementSaw(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Causal", nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, createA, want string }{
		{"a client", `INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'A')`, "client.created"},
		{"a quote", `INSERT INTO quotes (id, organization_id, quote_number, title) VALUES (?, ?, 'Q-' || left(gen_random_uuid()::text, 8), 'A')`, "quote.created"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, xidA := begin(t, db)
			defer a.Rollback()
			b, _ := begin(t, db)
			defer b.Rollback()
			idB, idA := uuid.New(), uuid.New()
			if _, err := b.NewRaw(`INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'B')`, idB, org.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if _, err := a.NewRaw(tc.createA, idA, org.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if err := a.Commit(); err != nil {
				t.Fatal(err)
			}
			var rows []struct {
				Type     string    `bun:"type"`
				ObjectID uuid.UUID `bun:"object_id"`
				Position int64     `bun:"position"`
			}
			if err := db.NewRaw(`SELECT type, object_id, position::text::bigint AS position FROM changes
				WHERE organization_id = ? AND object_id IN (?, ?) ORDER BY position, seq`, org.ID, idA, idB).Scan(ctx, &rows); err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2 || rows[0].ObjectID != idB || rows[1].ObjectID != idA || rows[1].Type != tc.want {
				t.Fatalf("feed order %+v, want B's client.created and then A's %s (A's id %d)", rows, tc.want, xidA)
			}
			if rows[1].Position < xidA {
				t.Fatalf("A's change at %d, below A's own id %d", rows[1].Position, xidA)
			}
		})
	}
}

// TestADocumentDeletedInItsTransactionEndsDeleted: a quote or invoice
// written and then deleted in one transaction (a database-side cleanup; the
// API deletes neither) ends the feed deleted. Its write's change is taken
// at commit, after the deletion's; it was taken from the row as written
// and listed after the deletion, bringing the document back for a reader
// applying the feed in order.
func TestADocumentDeletedInItsTransactionEndsDeleted(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Cleanup", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, create, write, remove, want string }{
		{"a quote updated", `INSERT INTO quotes (id, organization_id, quote_number, title) VALUES (?, ?, 'Q-D1', 'Q')`,
			`UPDATE quotes SET title = 'B' WHERE id = ? AND organization_id = ?`,
			`DELETE FROM quotes WHERE id = ? AND organization_id = ?`, "[quote.created quote.deleted]"},
		{"an invoice updated", `INSERT INTO invoices (id, organization_id, invoice_number, due_date) VALUES (?, ?, 'I-D1', '2027-01-31')`,
			`UPDATE invoices SET notes = 'B' WHERE id = ? AND organization_id = ?`,
			`DELETE FROM invoices WHERE id = ? AND organization_id = ?`, "[invoice.created invoice.deleted]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := uuid.New()
			if _, err := db.NewRaw(tc.create, id, org.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				if _, err := tx.NewRaw(tc.write, id, org.ID).Exec(ctx); err != nil {
					return err
				}
				_, err := tx.NewRaw(tc.remove, id, org.ID).Exec(ctx)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if err := db.NewRaw(`SELECT type FROM changes WHERE organization_id = ? AND object_id = ? ORDER BY position, seq`,
				org.ID, id).Scan(ctx, &got); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.want {
				t.Fatalf("feed of the document: %v, want %s", got, tc.want)
			}
		})
	}
}
