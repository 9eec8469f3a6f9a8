package database_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// countDeletes counts the DELETE statements run.
type countDeletes struct{ n *int }

func (h countDeletes) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if strings.HasPrefix(strings.TrimSpace(e.Query), "DELETE") {
		*h.n++
	}
	return ctx
}
func (countDeletes) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestDeleteInBatches: the rows are deleted batch at a time, a statement
// each, until a statement deletes fewer than the batch.
func TestDeleteInBatches(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	for _, tc := range []struct{ rows, batch, statements int }{
		{0, 3, 1},
		{2, 3, 1},
		{3, 3, 2},
		{7, 3, 3},
	} {
		t.Run(fmt.Sprintf("%d rows in batches of %d", tc.rows, tc.batch), func(t *testing.T) {
			table := fmt.Sprintf("batch_%d_%d", tc.rows, tc.batch)
			if _, err := db.ExecContext(ctx, fmt.Sprintf(
				"CREATE TABLE %s AS SELECT g AS n, g %% 2 = 0 AS keep FROM generate_series(1, %d) g", table, 2*tc.rows)); err != nil {
				t.Fatal(err)
			}
			statements := 0
			n, err := database.DeleteInBatches(ctx, db.WithQueryHook(countDeletes{&statements}), tc.batch,
				fmt.Sprintf("DELETE FROM %s WHERE ctid IN (SELECT ctid FROM %s WHERE NOT keep LIMIT ?)", table, table))
			if err != nil || n != int64(tc.rows) || statements != tc.statements {
				t.Fatalf("deleted %d in %d statements, %v; want %d in %d", n, statements, err, tc.rows, tc.statements)
			}
			var left int
			if err := db.NewRaw(fmt.Sprintf("SELECT count(*) FROM %s", table)).Scan(ctx, &left); err != nil || left != tc.rows {
				t.Fatalf("%d rows left (%v), want the %d kept", left, err, tc.rows)
			}
		})
	}
}
