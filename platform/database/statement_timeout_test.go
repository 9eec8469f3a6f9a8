package database_test

import (
	"context"
	"testing"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestNoStatementTimeout: a direct connection runs with the timeout the
// service sends at connect; behind the test suite's PgBouncer, where none
// is sent and the role has none (scripts/pgbouncer.sh), the sessions run
// without one, which is what serve warns about at start.
func TestNoStatementTimeout(t *testing.T) {
	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewEmptyDatabase(t), database.Options{MaxOpenConns: 1, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	none, err := database.NoStatementTimeout(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if want := pgtest.Pooler() == database.PoolerTransaction; none != want {
		t.Fatalf("NoStatementTimeout = %v with pooler %q, want %v", none, pgtest.Pooler(), want)
	}
}
