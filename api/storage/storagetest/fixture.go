package storagetest

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// Fixture is what a storage package's own tests start from: the package's
// test database and two fresh organizations, A and B.
type Fixture struct {
	DB   *bun.DB
	A, B tenancy.OrganizationID
}

var shared struct {
	once  sync.Once
	db    *bun.DB
	guard *Guard
	err   error
}

// NewFixture returns two new organizations on the test package's database
// (created and migrated on first use, dropped by pgtest.Main) and fails tb
// when a query it runs on a tenant table lacks the organization filter.
// Tests of one package share the database; each gets organizations of its
// own, so they never see each other's rows.
func NewFixture(tb testing.TB) *Fixture {
	tb.Helper()
	ctx := context.Background()
	shared.once.Do(func() {
		shared.db, shared.err = database.Open(ctx, pgtest.NewDatabase(tb),
			database.Options{MaxOpenConns: 10, Pooler: pgtest.Pooler()})
		if shared.err == nil {
			shared.guard, shared.err = New(ctx, shared.db)
			shared.db = shared.db.WithQueryHook(shared.guard)
		}
	})
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	f := &Fixture{DB: shared.db}
	f.A, f.B = f.Org(tb), f.Org(tb)
	seen := len(shared.guard.Violations())
	tb.Cleanup(func() {
		for _, q := range shared.guard.Violations()[seen:] {
			tb.Errorf("query on a tenant table without organization_id filter:\n%s", q)
		}
	})
	return f
}

// Org creates another organization.
func (f *Fixture) Org(tb testing.TB) tenancy.OrganizationID {
	tb.Helper()
	org, err := tenancy.CreateOrganization(context.Background(), shared.db, "storage test", nil)
	if err != nil {
		tb.Fatal(err)
	}
	return org.OrgID()
}

// Insert adds a row to table for org with the given columns (organization_id
// is set here) and returns its id.
func (f *Fixture) Insert(tb testing.TB, table string, org tenancy.OrganizationID, cols map[string]any) uuid.UUID {
	tb.Helper()
	names := slices.Sorted(maps.Keys(cols))
	args := []any{bun.Ident(table), bun.Ident("organization_id")}
	for _, n := range names {
		args = append(args, bun.Ident(n))
	}
	args = append(args, org)
	for _, n := range names {
		args = append(args, cols[n])
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(names)+1), ", ")
	var id uuid.UUID
	if err := f.DB.NewRaw("INSERT INTO ? ("+marks+") VALUES ("+marks+") RETURNING id", args...).
		Scan(context.Background(), &id); err != nil {
		tb.Fatalf("insert into %s: %v", table, err)
	}
	return id
}
