package changes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	feed "github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// theRule is a change's size as a page answers it, as the page statement
// measured it before the size was stored: the stored jsonb's text in
// bytes, plus five for each <, > and & and three for each U+2028 and
// U+2029 (docs/changes.md, "Pages"). The stored size must be this, so that
// pages are cut where they were.
const theRule = `(octet_length(data::text)
	+ 5 * (length(data::text) - length(translate(data::text, '<>&', '')))
	+ 3 * (length(data::text) - length(translate(data::text, U&'\2028\2029', ''))))`

// aClient makes an organization with one client, whose change is the
// feed's first.
func aClient(t *testing.T, db *bun.DB) (tenancy.OrganizationID, uuid.UUID) {
	t.Helper()
	o, err := tenancy.CreateOrganization(context.Background(), db, "Sizes", nil)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.New()
	if _, err := db.NewRaw(`INSERT INTO clients (id, organization_id, name) VALUES (?, ?, 'C')`, id, o.ID).
		Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tenancy.OrganizationID{UUID: o.ID}, id
}

// setNotes writes each of notes to the client's notes, in a statement of
// its own: a client.updated change each, written by the trigger.
func setNotes(t *testing.T, db *bun.DB, org tenancy.OrganizationID, client uuid.UUID, notes ...string) {
	t.Helper()
	for _, n := range notes {
		if _, err := db.NewRaw(`UPDATE clients SET notes = ?, updated_at = clock_timestamp() WHERE organization_id = ? AND id = ?`,
			n, org.UUID, client).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// settled waits until org's changes are below the feed's horizon: every
// transaction up to the last one's position has ended, on the whole
// server, whose other databases' transactions hold the horizon too.
func settled(t *testing.T, db *bun.DB, org tenancy.OrganizationID) {
	t.Helper()
	var last int64
	if err := db.NewRaw(`SELECT max(position)::text::bigint FROM changes WHERE organization_id = ?`, org.UUID).
		Scan(context.Background(), &last); err != nil {
		t.Fatal(err)
	}
	pgtest.TransactionIDsPast(t, db, last)
}

// randomText is n characters of hexadecimal that PostgreSQL cannot
// compress: each change that holds it is stored out of line (TOAST), and
// reading its data is a fetch from the TOAST table that PostgreSQL counts.
func randomText(t *testing.T, db *bun.DB, n int) string {
	t.Helper()
	var s string
	if err := db.NewRaw(`SELECT left(string_agg(md5(random()::text), ''), ?) FROM generate_series(1, ? / 32 + 1)`, n, n).
		Scan(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// toastReads is how many values of changes this transaction has read
// from the TOAST table: each is a scan of its index.
func toastReads(t *testing.T, tx bun.Tx) int64 {
	t.Helper()
	var n int64
	if err := tx.NewRaw(`SELECT coalesce(sum(pg_stat_get_xact_numscans(i.indexrelid)), 0)::bigint FROM pg_index i
		WHERE i.indrelid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'changes'::regclass)`).
		Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAPageReadsTheDataOfTheChangesItReturns: a page over large changes
// reads the data of the changes it returns, not of all the limit + 1 it
// looks at. The page statement measured each of them (cast the data to
// text and scanned it) before the byte bound cut the page: 6 s of
// PostgreSQL for a page of one 3 MB change at limit=100, 0.33 s at
// limit=1. The trigger now stores each change's size, and the statement
// sums it, through the feed index.
func TestAPageReadsTheDataOfTheChangesItReturns(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org, client := aClient(t, db)
	// Eight changes of about 0.8 MB: two fit in MaxPageBytes, the third
	// would pass it.
	const big = 800_000
	notes := make([]string, 8)
	for i := range notes {
		notes[i] = randomText(t, db, big)
	}
	setNotes(t, db, org, client, notes...)
	settled(t, db, org)

	statements := &pgtest.Statements{Marker: "sum(size) OVER"}
	tx, err := db.WithQueryHook(statements).BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	before := toastReads(t, tx)
	// After the client's creation: the eight updates.
	first, err := feed.List(ctx, db, org, storage.PageRequest{Limit: 1}, feed.Filter{ObjectTypes: []string{feed.Client}})
	if err != nil || len(first.Items) != 1 {
		t.Fatalf("first page: %d changes, %v", len(first.Items), err)
	}
	page, err := feed.List(ctx, tx, org, storage.PageRequest{Limit: 100, After: first.Resume},
		feed.Filter{ObjectTypes: []string{feed.Client}})
	if err != nil {
		t.Fatal(err)
	}
	read := toastReads(t, tx) - before
	if len(page.Items) != 2 || !page.HasMore {
		t.Fatalf("page: %d changes, has_more %v; want 2 of about 0.8 MB and more", len(page.Items), page.HasMore)
	}
	t.Logf("a page of %d changes at limit=100 over %d changes of %d bytes read %d values of their data", len(page.Items), len(notes), big, read)
	if read > int64(len(page.Items)) {
		t.Errorf("a page of %d changes at limit=100 read the data of %d changes; want at most the %d it returns",
			len(page.Items), read, len(page.Items))
	}
	for _, c := range page.Items {
		if c.Size < big || c.Size > big+1000 {
			t.Errorf("change %d: size %d, want about %d", c.Seq, c.Size, big)
		}
	}
	// One statement, which the feed index can serve.
	if len(statements.Sent) != 1 {
		t.Fatalf("%d page statements, want 1", len(statements.Sent))
	}
	if plan := pgtest.PlanWithoutSeqScans(t, db, statements.Sent[0]); strings.Contains(plan, "Seq Scan on changes") {
		t.Fatalf("the page statement scans the whole feed:\n%s", plan)
	}
}

// TestTheStoredSizeIsTheRule: each function that writes a change (a plain
// record's change, a quote's taken at commit, a quote's deletion) stores
// the size the page statement measured before, for data full of the
// characters the answer escapes, of multibyte characters and of those the
// stored JSON escapes itself.
func TestTheStoredSizeIsTheRule(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	org, client := aClient(t, db)
	texts := []string{
		"plain",
		"<b>Fish & Chips</b> <<>>&&",
		"line\u2028separator\u2029paragraph \u2028\u2029",
		"Bühne · Licht 🎛 ½ 東京 <é>",
		"quoted \"x\" back\\slash\ttab\nnewline \u0001",
		strings.Repeat("<&>\u2028", 5000) + strings.Repeat("é", 3000),
		"",
	}
	setNotes(t, db, org, client, texts...)
	quote := uuid.New()
	for _, q := range []string{
		`INSERT INTO quotes (id, organization_id, quote_number, title) VALUES (?, ?, 'Q-1', '<Q> & ' || chr(8233))`,
		`INSERT INTO quote_line_items (organization_id, quote_id, position, description, quantity, unit_price, line_total)
			VALUES (?1, ?0, 1, 'Line <1> & more', 1, 10, 10), (?1, ?0, 2, 'Line ' || chr(8232), 2, 5, 10)`,
		`UPDATE quotes SET title = 'Approved <q>', status = 'approved', updated_at = clock_timestamp() WHERE id = ? AND organization_id = ?`,
		`DELETE FROM quotes WHERE id = ? AND organization_id = ?`,
		`DELETE FROM clients WHERE id = ? AND organization_id = ?`,
	} {
		id := quote
		if strings.HasPrefix(q, "DELETE FROM clients") {
			id = client
		}
		if _, err := db.NewRaw(q, id, org.UUID).Exec(ctx); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var rows []struct {
		Type   string `bun:"type"`
		Stored *int64 `bun:"rendered_size"`
		Rule   int64  `bun:"rule"`
	}
	if err := db.NewRaw(`SELECT type, rendered_size, `+theRule+` AS rule FROM changes WHERE organization_id = ? ORDER BY seq`, org.UUID).
		Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, r := range rows {
		types[r.Type]++
		if r.Stored == nil {
			t.Errorf("%s: no stored size, the rule measures %d", r.Type, r.Rule)
		} else if *r.Stored != r.Rule {
			t.Errorf("%s: stored size %d, the rule measures %d", r.Type, *r.Stored, r.Rule)
		}
	}
	if types["client.updated"] != len(texts) {
		t.Errorf("%d client.updated changes, want %d", types["client.updated"], len(texts))
	}
	for _, ty := range []string{"client.created", "client.deleted", "quote.created", "quote.approved", "quote.deleted"} {
		if types[ty] == 0 {
			t.Errorf("no %s change (all: %v)", ty, types)
		}
	}
}

// TestAChangeWithoutAStoredSizeIsMeasured: a change written before the
// size was stored (rendered_size NULL) is measured by the page statement
// with the same rule, and bounds the page as a stored size does. Each
// change here holds 150,000 '<': 150 kB stored, 900 kB answered, so two
// fit in MaxPageBytes and a third does not, whether their sizes are
// stored or not (by their stored bytes alone, all three would fit).
func TestAChangeWithoutAStoredSizeIsMeasured(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		without []int // the updates (1-based, in order) whose size is not stored
	}{
		{"none stored", []int{1, 2, 3}},
		{"the first and third not stored", []int{1, 3}},
		{"the second not stored", []int{2}},
		{"all stored", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			org, client := aClient(t, db)
			notes := strings.Repeat("<", 150_000)
			setNotes(t, db, org, client, notes+"1", notes+"2", notes+"3")
			settled(t, db, org)
			for _, n := range tc.without {
				if _, err := db.NewRaw(`UPDATE changes SET rendered_size = NULL WHERE organization_id = ? AND type = 'client.updated'
					AND data->>'notes' = ?`, org.UUID, notes+string(rune('0'+n))).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			var want []int64
			if err := db.NewRaw(`SELECT `+theRule+` FROM changes WHERE organization_id = ? ORDER BY position, seq`, org.UUID).
				Scan(ctx, &want); err != nil {
				t.Fatal(err)
			}
			var got []feed.Change
			var pages []int
			var after *storage.Cursor
			for {
				page, err := feed.List(ctx, db, org, storage.PageRequest{Limit: 100, After: after}, feed.Filter{ObjectTypes: []string{feed.Client}})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, page.Items...)
				pages = append(pages, len(page.Items))
				if !page.HasMore {
					break
				}
				after = page.Resume
			}
			// The creation (small) and two updates, then the third.
			if len(pages) != 2 || pages[0] != 3 || pages[1] != 1 {
				t.Fatalf("pages of %v changes, want [3 1]", pages)
			}
			for i, c := range got {
				if c.Size != want[i] {
					t.Errorf("change %d: size %d, the rule measures %d", i, c.Size, want[i])
				}
			}
		})
	}
}
