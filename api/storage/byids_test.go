package storage

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
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
	ways := threeWays(t, db)
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
		{"one id, matched with = $2", orgA, "id", []uuid.UUID{rows[1].ID}, "", []string{"a"}},
		{"one foreign id", orgA, "id", []uuid.UUID{rows[3].ID}, "", nil},
		{"many ids, joined", orgA, "id", manyIDs(rows[0].ID, rows[3].ID), "", []string{"c"}},
		{"many lists, ordered", orgA, "list_id", manyIDs(list1, list2), "?TableAlias.name ASC", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		for via, idb := range ways {
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

// TestInThroughScopes: InThrough returns the organization's records linked
// from the ids by the organization's own links, each once however many
// links name it: never a record another organization's link names, nor a
// foreign record its own link names. The same on a pool, in a transaction
// and through bun's fallback.
func TestInThroughScopes(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE in_probe (id uuid PRIMARY KEY, organization_id uuid NOT NULL, list_id uuid NOT NULL, name text NOT NULL);
		CREATE TABLE in_link (organization_id uuid NOT NULL, list_id uuid NOT NULL, probe_id uuid)`); err != nil {
		t.Fatal(err)
	}
	orgA, orgB := tenancy.OrganizationID{UUID: uuid.New()}, tenancy.OrganizationID{UUID: uuid.New()}
	list1, list2, list3 := uuid.New(), uuid.New(), uuid.New()
	probes := []inProbe{
		{ID: uuid.New(), OrganizationID: orgA.UUID, ListID: list1, Name: "a"},
		{ID: uuid.New(), OrganizationID: orgA.UUID, ListID: list1, Name: "b"},
		{ID: uuid.New(), OrganizationID: orgA.UUID, ListID: list1, Name: "unlinked"},
		{ID: uuid.New(), OrganizationID: orgB.UUID, ListID: list1, Name: "foreign"},
	}
	if _, err := db.NewInsert().Model(&probes).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	type link struct {
		bun.BaseModel  `bun:"table:in_link"`
		OrganizationID uuid.UUID  `bun:"organization_id,type:uuid"`
		ListID         uuid.UUID  `bun:"list_id,type:uuid"`
		ProbeID        *uuid.UUID `bun:"probe_id,type:uuid"`
	}
	links := []link{
		{OrganizationID: orgA.UUID, ListID: list1, ProbeID: &probes[0].ID},
		{OrganizationID: orgA.UUID, ListID: list1, ProbeID: &probes[0].ID}, // twice
		{OrganizationID: orgA.UUID, ListID: list2, ProbeID: &probes[1].ID},
		{OrganizationID: orgA.UUID, ListID: list2, ProbeID: nil},
		{OrganizationID: orgA.UUID, ListID: list3, ProbeID: &probes[3].ID}, // A's link to B's record
		{OrganizationID: orgB.UUID, ListID: list1, ProbeID: &probes[2].ID}, // B's link to A's record
	}
	if _, err := db.NewInsert().Model(&links).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	ways := threeWays(t, db)
	through := Through{Table: "in_link", Column: "probe_id", Key: "list_id"}
	tests := []struct {
		name string
		org  tenancy.OrganizationID
		ids  []uuid.UUID
		want []string
	}{
		{"linked twice, once", orgA, []uuid.UUID{list1}, []string{"a"}},
		{"several lists, a NULL link", orgA, []uuid.UUID{list1, list2}, []string{"a", "b"}},
		{"a link to another organization's record", orgA, []uuid.UUID{list3}, nil},
		{"another organization's link", orgB, []uuid.UUID{list1}, nil},
		{"no ids", orgA, nil, nil},
		{"many lists, joined", orgA, manyIDs(list1, list2, list3), []string{"a", "b"}},
	}
	for _, tt := range tests {
		for via, idb := range ways {
			t.Run(tt.name+" via "+via, func(t *testing.T) {
				got, err := InThrough[inProbe](ctx, idb, tt.org, through, tt.ids, "probe")
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, r := range got {
					names = append(names, r.Name)
				}
				slices.Sort(names)
				if !slices.Equal(names, tt.want) {
					t.Fatalf("got %v, want %v", names, tt.want)
				}
			})
		}
	}
}

// manyIDs is ids followed by ten unknown ids.
func manyIDs(ids ...uuid.UUID) []uuid.UUID {
	for range 10 {
		ids = append(ids, uuid.New())
	}
	return ids
}

// TestInTextMatchesByCount: the parameterised text tests one id with = $2
// and sends it as a prepared statement may; more ids, and linked records
// even for one id, are an array sent with database.PlanEachCall, so that
// PostgreSQL never keeps a plan made for no organization in particular.
func TestInTextMatchesByCount(t *testing.T) {
	typ := reflect.TypeFor[inProbe]()
	link := Through{Table: "in_link", Column: "probe_id", Key: "list_id"}
	through := `"ip"."id" = ANY(ARRAY(SELECT "probe_id" FROM "in_link" WHERE organization_id = $1 AND "list_id" = ANY($2::uuid[])))`
	tests := []struct {
		name         string
		set          inSet
		ids          int
		want         string
		planEachCall bool
	}{
		{"one id", inSet{column: "list_id"}, 1, `"ip"."list_id" = $2::uuid`, false},
		{"two ids", inSet{column: "list_id"}, 2, `"ip"."list_id" = ANY($2::uuid[])`, true},
		{"one, through", inSet{column: "id", through: link}, 1, through, true},
		{"many, through", inSet{column: "id", through: link}, 20, through, true},
	}
	org := tenancy.OrganizationID{UUID: uuid.New()}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := tt.set
			set.one = set.oneID(tt.ids)
			if text := set.text(typ); !strings.Contains(text, tt.want) {
				t.Fatalf("%s\nlacks %s", text, tt.want)
			}
			args := set.args(org, make([]uuid.UUID, tt.ids))
			if got := args[0] == database.PlanEachCall; got != tt.planEachCall {
				t.Fatalf("planned on every call = %v, want %v (arguments %v)", got, tt.planEachCall, args)
			}
		})
	}
}

// threeWays are the connections In is checked on: the pool (the pgx path),
// a transaction (database/sql) and a single connection, which In cannot
// address directly (bun's fallback).
func threeWays(t *testing.T, db *bun.DB) map[string]bun.IDB {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	return map[string]bun.IDB{"pool": db, "transaction": tx, "bun fallback": conn}
}
