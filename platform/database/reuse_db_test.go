package database_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestAStatementIsPreparedOnItsSecondUse sends one text twice on a
// one-connection pool: the first time it runs without being prepared (exec
// mode), the second time it goes through pgx's statement cache. Behind a
// transaction-mode pooler nothing is ever prepared.
func TestAStatementIsPreparedOnItsSecondUse(t *testing.T) {
	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewEmptyDatabase(t), database.Options{MaxOpenConns: 1, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	text := "SELECT $1::int + 1 AS probe_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	prepared := func() bool {
		var n int
		if err := db.DB.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE statement = $1", text).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	wantPrepared := []bool{false, pgtest.Pooler() != database.PoolerTransaction, pgtest.Pooler() != database.PoolerTransaction}
	for i, want := range wantPrepared {
		var got int
		if err := db.DB.QueryRowContext(ctx, text, 41).Scan(&got); err != nil || got != 42 {
			t.Fatalf("use %d: %d, %v", i+1, got, err)
		}
		if p := prepared(); p != want {
			t.Fatalf("after use %d: prepared %v, want %v", i+1, p, want)
		}
	}
}
