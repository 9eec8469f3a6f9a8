package storage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// notedClient is a client with its notes, scanned on the pgx path (on a
// pool) or by the scanner of database/sql rows (in a transaction).
type notedClient struct {
	bun.BaseModel `bun:"table:clients,alias:c"`

	ID             uuid.UUID `bun:"id,pk,type:uuid"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid"`
	Name           string    `bun:"name"`
	Notes          *string   `bun:"notes"`
	CreatedAt      time.Time `bun:"created_at"`
}

func (c *notedClient) PageKey() storage.Cursor {
	return storage.Cursor{CreatedAt: c.CreatedAt, ID: c.ID}
}

// hookedClient is the same client with a scan hook: bun scans it.
type hookedClient struct {
	bun.BaseModel `bun:"table:clients,alias:c"`

	ID             uuid.UUID `bun:"id,pk,type:uuid"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid"`
	Name           string    `bun:"name"`
	Notes          *string   `bun:"notes"`
	CreatedAt      time.Time `bun:"created_at"`
}

func (c *hookedClient) PageKey() storage.Cursor {
	return storage.Cursor{CreatedAt: c.CreatedAt, ID: c.ID}
}

func (c *hookedClient) AfterScanRow(context.Context) error { return nil }

// TestListMeasuresThePage: a page's Bytes is its size as read, on every
// path a list takes (the pgx one, database/sql's, bun's): a page whose
// record has notes of n bytes measures n more than the same page whose
// record has none, and the limit-th record's notes count too.
func TestListMeasuresThePage(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// slack is how far the difference may be from n: see below.
	const n, slack = 10_000, 16
	notes := strings.Repeat("<", n/2) + strings.Repeat("é", n/4) // n bytes, n*3/4 characters
	long := f.Insert(t, "clients", f.A, map[string]any{"name": "long", "notes": notes})
	short := f.Insert(t, "clients", f.A, map[string]any{"name": "shrt"})
	one := func(id uuid.UUID) storage.Cond { return storage.Where("?TableAlias.id = ?", id) }
	p := storage.PageRequest{Limit: 10}

	type lister func(db bun.IDB, cond storage.Cond) (items, bytes int, err error)
	var noted lister = func(db bun.IDB, cond storage.Cond) (int, int, error) {
		page, err := storage.List[notedClient](ctx, db, f.A, p, cond)
		return len(page.Items), page.Bytes, err
	}
	var hooked lister = func(db bun.IDB, cond storage.Cond) (int, int, error) {
		page, err := storage.List[hookedClient](ctx, db, f.A, p, cond)
		return len(page.Items), page.Bytes, err
	}
	conn, err := f.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	for _, tc := range []struct {
		name string
		run  func(fn func(db bun.IDB))
		list lister
		// fixed: the values other than the texts are measured too
		fixed bool
	}{
		{"pgx, on the pool", func(fn func(bun.IDB)) { fn(f.DB) }, noted, true},
		{"database/sql, in a transaction", func(fn func(bun.IDB)) {
			if err := f.DB.RunInTx(ctx, nil, func(_ context.Context, tx bun.Tx) error { fn(tx); return nil }); err != nil {
				t.Fatal(err)
			}
		}, noted, true},
		{"bun's scan (a model with a scan hook)", func(fn func(bun.IDB)) { fn(f.DB) }, hooked, false},
		{"bun's query (a connection)", func(fn func(bun.IDB)) { fn(conn) }, noted, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(func(db bun.IDB) {
				items, withNotes, err := tc.list(db, one(long))
				if err != nil || items != 1 {
					t.Fatalf("the long one: %d items, %v", items, err)
				}
				items, without, err := tc.list(db, one(short))
				if err != nil || items != 1 {
					t.Fatalf("the short one: %d items, %v", items, err)
				}
				// The rows' other values may differ in length by a few
				// bytes either way where they arrive as text (through
				// PgBouncer, a time's fraction drops its trailing zeros:
				// either record's may be the shorter).
				if d := withNotes - without; d < n-slack || d > n+slack {
					t.Errorf("Bytes %d with %d bytes of notes, %d without: a difference of %d", withNotes, n, without, d)
				}
				if name := len("shrt"); without < name || tc.fixed && without < name+16+16+8 {
					t.Errorf("Bytes %d without notes: the name, ids and time are not counted", without)
				}
				both := storage.Where("?TableAlias.id IN (?, ?)", long, short)
				if _, all, err := tc.list(db, both); err != nil || all != withNotes+without {
					t.Errorf("a page of both: Bytes %d (%v), want %d", all, err, withNotes+without)
				}
			})
		})
	}
}

// TestExpandedBytes: the text of the records a page's expansions inline
// (related.One fields, nested ones too) is counted for every record that
// points at one; a relation not asked for (nil) or absent (a nil record)
// adds nothing, and the records' own text is not counted (Page.Bytes has
// it).
func TestExpandedBytes(t *testing.T) {
	type category struct {
		Name  string
		Color *string
	}
	type equipment struct {
		ID       uuid.UUID
		Name     string
		Tags     []string
		Category **category
	}
	type embedded struct{ Venue string }
	type event struct {
		embedded
		Name  string
		Notes *string
	}
	type record struct {
		Name      string
		Notes     *string
		Event     **event
		Equipment **equipment
		Lines     *[]string // not a to-one expansion: not counted
	}
	str := func(s string) *string { return &s }
	cat := &category{Name: "Audio", Color: str("#112233")} // 5 + 7
	eq := &equipment{Name: "Mixer", Tags: []string{"ab", "c"}, Category: &cat}
	notes := strings.Repeat("x", 1000)
	ev := &event{embedded: embedded{Venue: "Hall"}, Name: "Gala", Notes: &notes} // 4 + 4 + 1000
	var noEvent *event
	lines := []string{strings.Repeat("y", 500)}

	items := []record{
		{Name: "own text", Notes: &notes, Event: &ev, Equipment: &eq, Lines: &lines},
		{Name: "same event again", Event: &ev},
		{Name: "no event", Event: &noEvent},
		{Name: "not expanded"},
	}
	wantEq := len("Mixer") + len("ab") + len("c") + len("Audio") + len("#112233")
	wantEv := len("Hall") + len("Gala") + len(notes)
	if got, want := storage.ExpandedBytes(items), wantEq+2*wantEv; got != want {
		t.Fatalf("ExpandedBytes = %d, want %d", got, want)
	}
	if got := storage.ExpandedBytes([]category{{Name: "no expansions"}}); got != 0 {
		t.Fatalf("ExpandedBytes of records without expansions = %d", got)
	}
}
