package storage

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestInArraysAreNeverPrepared: however often In runs with an array of
// ids, its statement is never a named prepared statement on the server
// connection, so PostgreSQL plans every call for its organization and ids
// and never settles on a generic plan (docs/architecture.md, "Expansions").
// The statement for one id, run as often, is prepared (on a direct
// connection; a transaction pooler prepares nothing), which shows that the
// check can see a prepared statement.
func TestInArraysAreNeverPrepared(t *testing.T) {
	db := pgtest.Open(t)
	db.DB.SetMaxOpenConns(1) // the pool's statements and the check share one server connection
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE in_probe (id uuid PRIMARY KEY, organization_id uuid NOT NULL, list_id uuid NOT NULL, name text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	org := tenancy.OrganizationID{UUID: uuid.New()}
	probes := []inProbe{
		{ID: uuid.New(), OrganizationID: org.UUID, ListID: uuid.New(), Name: "a"},
		{ID: uuid.New(), OrganizationID: org.UUID, ListID: uuid.New(), Name: "b"},
	}
	if _, err := db.NewInsert().Model(&probes).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[inProbe]()
	arrayText := inSet{column: "id"}.text(typ)
	oneText := inSet{column: "id", one: true}.text(typ)

	run := func(t *testing.T, idb bun.IDB) []string {
		for range 8 { // more than the five custom plans after which PostgreSQL may keep a generic one
			for _, ids := range [][]uuid.UUID{{probes[0].ID}, {probes[0].ID, probes[1].ID}} {
				got, err := ByIDs[inProbe](ctx, idb, org, ids, "probe")
				if err != nil || len(got) != len(ids) {
					t.Fatalf("ByIDs(%d ids) = %d records, %v", len(ids), len(got), err)
				}
			}
		}
		var prepared []string
		if err := idb.NewRaw(`SELECT statement FROM pg_prepared_statements`).Scan(ctx, &prepared); err != nil {
			t.Fatal(err)
		}
		return prepared
	}
	for via, idb := range map[string]func(t *testing.T) bun.IDB{
		"pool": func(*testing.T) bun.IDB { return db },
		"transaction": func(t *testing.T) bun.IDB {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = tx.Rollback() })
			return tx
		},
	} {
		t.Run(via, func(t *testing.T) {
			prepared := run(t, idb(t))
			if slices.Contains(prepared, arrayText) {
				t.Fatalf("the statement for an array of ids is prepared:\n%s", arrayText)
			}
			if pgtest.Pooler() == "" && !slices.Contains(prepared, oneText) {
				t.Fatalf("the statement for one id is not prepared; prepared: %q", prepared)
			}
		})
	}
}
