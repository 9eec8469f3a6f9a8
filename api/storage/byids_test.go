package storage

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// inProbe is a tenant table's record for In.
type inProbe struct {
	bun.BaseModel `bun:"table:in_probe,alias:ip"`

	ID             uuid.UUID `bun:"id,pk,type:uuid"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid"`
	ListID         uuid.UUID `bun:"list_id,type:uuid"`
	Name           string    `bun:"name"`
}

// TestInScopesAndOrders: In returns exactly the organization's records whose
// column holds one of the ids (another organization's never, even by its
// id), in the order asked, the same through a transaction and through bun's
// fallback (a connection it cannot address directly).
func TestInScopesAndOrders(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE in_probe (id uuid PRIMARY KEY, organization_id uuid NOT NULL, list_id uuid NOT NULL, name text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	orgA, orgB := tenancy.OrganizationID{UUID: uuid.New()}, tenancy.OrganizationID{UUID: uuid.New()}
	list1, list2 := uuid.New(), uuid.New()
	rows := []inProbe{
		{ID: uuid.New(), OrganizationID: orgA.UUID, ListID: list1, Name: "c"},
		{ID: uuid.New(), OrganizationID: orgA.UUID, ListID: list1, Name: "a"},
		{ID: uuid.New(), OrganizationID: orgA.UUID, ListID: list2, Name: "b"},
		{ID: uuid.New(), OrganizationID: orgB.UUID, ListID: list1, Name: "foreign"},
	}
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	names := func(got []inProbe) []string {
		var out []string
		for _, r := range got {
			out = append(out, r.Name)
		}
		return out
	}
	tests := []struct {
		name   string
		org    tenancy.OrganizationID
		column string
		ids    []uuid.UUID
		order  string
		want   []string
	}{
		{"by list, ordered", orgA, "list_id", []uuid.UUID{list1, list2}, "?TableAlias.name ASC", []string{"a", "b", "c"}},
		{"by list, descending", orgA, "list_id", []uuid.UUID{list1}, "?TableAlias.name DESC", []string{"c", "a"}},
		{"by id, a foreign id left out", orgA, "id", []uuid.UUID{rows[0].ID, rows[3].ID}, "", []string{"c"}},
		{"the other organization", orgB, "list_id", []uuid.UUID{list1, list2}, "", []string{"foreign"}},
		{"no ids", orgA, "id", nil, "", nil},
		{"unknown ids", orgA, "id", []uuid.UUID{uuid.New()}, "", nil},
	}
	for _, tt := range tests {
		for via, idb := range map[string]bun.IDB{"pool": db, "transaction": tx, "bun fallback": conn} {
			t.Run(tt.name+" via "+via, func(t *testing.T) {
				got, err := In[inProbe](ctx, idb, tt.org, tt.column, tt.ids, tt.order, "probe")
				if err != nil {
					t.Fatal(err)
				}
				g := names(got)
				if tt.order == "" {
					slices.Sort(g)
				}
				if !slices.Equal(g, tt.want) {
					t.Fatalf("got %v, want %v", g, tt.want)
				}
			})
		}
	}
}
