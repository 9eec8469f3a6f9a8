package pgtest

import (
	"context"
	"strings"
	"testing"

	"github.com/uptrace/bun"
)

// PlanWithoutSeqScans returns PostgreSQL's plan of query (EXPLAIN, so
// nothing runs, not even a DELETE) with sequential scans priced out
// (enable_seqscan off, set in a transaction of its own). A plan that
// still holds "Seq Scan on <table>" has no index it can use for that table:
// on a test's small tables the planner would otherwise prefer a scan
// whatever the indexes, so this is how a test shows that a statement can be
// served by an index at any size.
func PlanWithoutSeqScans(tb testing.TB, db bun.IDB, query string) string {
	tb.Helper()
	ctx := context.Background()
	var lines []string
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		return tx.NewRaw("EXPLAIN "+query).Scan(ctx, &lines)
	})
	if err != nil {
		tb.Fatalf("pgtest: EXPLAIN %s: %v", query, err)
	}
	return strings.Join(lines, "\n")
}

// Statements is a query hook that keeps the statements holding marker, as
// bun sent them (arguments formatted in), for a test to look at after the
// code under test ran. It is not safe for concurrent statements.
type Statements struct {
	Marker string
	Sent   []string
}

// BeforeQuery implements bun.QueryHook.
func (s *Statements) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if strings.Contains(e.Query, s.Marker) {
		s.Sent = append(s.Sent, e.Query)
	}
	return ctx
}

// AfterQuery implements bun.QueryHook.
func (*Statements) AfterQuery(context.Context, *bun.QueryEvent) {}
