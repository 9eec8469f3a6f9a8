package storage_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/clients"
	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// texts records the statements storage sends with parameters.
type texts struct {
	mu   sync.Mutex
	seen []string
}

func (x *texts) add(_ context.Context, q string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.seen = append(x.seen, q)
}

func (x *texts) last(t *testing.T) string {
	t.Helper()
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.seen) == 0 {
		t.Fatal("no statement reached the statement hooks")
	}
	return x.seen[len(x.seen)-1]
}

func seedOrg(t *testing.T, db *bun.DB, names ...string) tenancy.OrganizationID {
	t.Helper()
	ctx := context.Background()
	var id uuid.UUID
	if err := db.NewRaw("INSERT INTO organizations (name) VALUES ('org') RETURNING id").Scan(ctx, &id); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := db.ExecContext(ctx, "INSERT INTO clients (organization_id, name) VALUES (?, ?)", id, n); err != nil {
			t.Fatal(err)
		}
	}
	return tenancy.OrganizationID{UUID: id}
}

// TestListParameterised pages through one organization's list with and
// without conditions, on a pool and in a transaction, in the default mode
// and in the transaction-pooler mode (pgx exec mode, nothing prepared): the
// pages hold exactly that organization's matching records in order, the
// text is the same for every organization, and the tenant guard sees it; a
// list with a planned condition is never kept prepared.
func TestListParameterised(t *testing.T) {
	url := pgtest.NewDatabase(t)
	// The URL's own mode (behind EVENTAPI_TEST_POOLER_URL: transaction) and,
	// directly on PostgreSQL, the pooler mode's pgx settings as well.
	modes := []string{pgtest.Pooler()}
	if modes[0] != database.PoolerTransaction {
		modes = append(modes, database.PoolerTransaction)
	}
	for _, pooler := range modes {
		t.Run("pooler="+pooler, func(t *testing.T) {
			ctx := context.Background()
			db, err := database.Open(ctx, url, database.Options{MaxOpenConns: 4, Pooler: pooler})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			storagetest.Install(t, db)
			seen := &texts{}
			storage.AddStatementHook(db, seen.add)

			a := seedOrg(t, db, "a1", "a2", "x3", "a4", "x5")
			b := seedOrg(t, db, "b1", "x2")

			all := func(t *testing.T, db bun.IDB, org tenancy.OrganizationID, conds ...storage.Cond) []string {
				t.Helper()
				var got []string
				p := storage.PageRequest{Limit: 2}
				for range 10 {
					page, err := storage.List[clients.Client](ctx, db, org, p, conds...)
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range page.Items {
						got = append(got, c.Name)
					}
					if !page.HasMore {
						return got
					}
					k := page.Items[len(page.Items)-1].PageKey()
					p.After = &k
				}
				t.Fatal("the list did not end")
				return nil
			}
			tests := []struct {
				name  string
				org   tenancy.OrganizationID
				conds []storage.Cond
				want  string
			}{
				{"all of a", a, nil, "a1 a2 x3 a4 x5"},
				{"all of b", b, nil, "b1 x2"},
				{"parameter", a, []storage.Cond{storage.Where("?TableAlias.name LIKE ?", "x%")}, "x3 x5"},
				{"two parameters", a, []storage.Cond{storage.Where("?TableAlias.name >= ? AND ?TableAlias.name < ?", "a2", "x5")}, "a2 x3 a4"},
				{"planned and parameter", a, []storage.Cond{storage.WherePlanned("?TableAlias.name LIKE ?", "a%"), storage.Where("?TableAlias.name <> ?", "a2")}, "a1 a4"},
				{"parameter of b", b, []storage.Cond{storage.Where("?TableAlias.name LIKE ?", "x%")}, "x2"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if got := strings.Join(all(t, db, tt.org, tt.conds...), " "); got != tt.want {
						t.Errorf("pool: got %q, want %q", got, tt.want)
					}
					err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
						if got := strings.Join(all(t, tx, tt.org, tt.conds...), " "); got != tt.want {
							t.Errorf("transaction: got %q, want %q", got, tt.want)
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				})
			}

			if _, err := storage.List[clients.Client](ctx, db, a, storage.PageRequest{Limit: 1}); err != nil {
				t.Fatal(err)
			}
			textA := seen.last(t)
			if _, err := storage.List[clients.Client](ctx, db, b, storage.PageRequest{Limit: 3}); err != nil {
				t.Fatal(err)
			}
			if textB := seen.last(t); textA != textB || strings.Contains(textA, a.String()) || !strings.Contains(textA, "$1") {
				t.Errorf("list texts differ per organization or carry it:\n%s\n%s", textA, textB)
			}

			// A list with a planned condition is parameterised as well, but
			// never kept prepared, so every call is planned for its values.
			// One connection: the check reads its prepared statements.
			db.DB.SetMaxOpenConns(1)
			// A text no other case sent, run beyond the five custom plans after
			// which PostgreSQL may keep a generic one.
			planned := storage.WherePlanned("?TableAlias.name ILIKE ?", "a%")
			for range 8 {
				for _, conds := range [][]storage.Cond{nil, {planned}} {
					if _, err := storage.List[clients.Client](ctx, db, a, storage.PageRequest{Limit: 1}, conds...); err != nil {
						t.Fatal(err)
					}
				}
			}
			plannedText := seen.last(t)
			if strings.Contains(plannedText, "a%") || !strings.Contains(plannedText, "ILIKE $") {
				t.Errorf("the planned condition's value is not a parameter:\n%s", plannedText)
			}
			var prepared []string
			if err := db.NewRaw(`SELECT statement FROM pg_prepared_statements`).Scan(ctx, &prepared); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(prepared, plannedText) {
				t.Errorf("a list with a planned condition is kept prepared:\n%s", plannedText)
			}
			if pooler != database.PoolerTransaction && !slices.Contains(prepared, textA) {
				t.Errorf("the list without conditions is not prepared; prepared: %q", prepared)
			}
		})
	}
}
