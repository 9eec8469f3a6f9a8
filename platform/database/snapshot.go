package database

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"
)

// RunInSnapshot runs fn in a read-only REPEATABLE READ transaction, for a
// read whose statements must all see the same committed state (a document
// and its lines, a page and its count, an availability answer's holds and
// overdue units). Inside a caller's transaction (IsTx) fn runs under a
// savepoint at that transaction's isolation: one state only when it is
// REPEATABLE READ or stricter (under READ COMMITTED each statement takes
// its own snapshot).
func RunInSnapshot(ctx context.Context, db bun.IDB, fn func(ctx context.Context, tx bun.Tx) error) error {
	return RunInTxWith(ctx, db, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}, fn)
}
