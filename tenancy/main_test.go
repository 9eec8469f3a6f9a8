package tenancy

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// queryCounter counts the queries a bun.DB runs.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	q.n.Add(1)
	return ctx
}
func (q *queryCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

func openCounted(t *testing.T) (*bun.DB, *queryCounter) {
	db := pgtest.Open(t)
	qc := &queryCounter{}
	db = db.WithQueryHook(qc)
	return db, qc
}
