package database_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// countingHook counts the statements it sees.
type countingHook struct{ n atomic.Int64 }

func (h *countingHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	h.n.Add(1)
	return ctx
}

func (h *countingHook) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestUntracedSkipsTheHooks: a statement on Untraced(db) runs on db's pool
// and passes none of db's query hooks (the spans of bunotel among them);
// one on db passes them.
func TestUntracedSkipsTheHooks(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	hook := &countingHook{}
	db.AddQueryHook(hook)
	quiet := database.Untraced(db)
	var one int
	if err := quiet.NewSelect().ColumnExpr("1").Scan(ctx, &one); err != nil || one != 1 {
		t.Fatalf("untraced select: %d, %v", one, err)
	}
	if n := hook.n.Load(); n != 0 {
		t.Errorf("the hook saw %d untraced statements", n)
	}
	if err := db.NewSelect().ColumnExpr("1").Scan(ctx, &one); err != nil {
		t.Fatal(err)
	}
	if n := hook.n.Load(); n != 1 {
		t.Errorf("the hook saw %d statements on db, want 1", n)
	}
	if quiet.DB != db.DB {
		t.Error("Untraced opened another pool")
	}
}
