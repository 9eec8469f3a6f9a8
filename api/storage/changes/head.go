package changes

import (
	"context"
	"math"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
)

// Head returns the place of the feed's head, where a reader that wants no
// history starts (GET /changes?from=now): a read after it lists every change
// whose transaction had not committed when Head ran, and whatever committed
// since, and passes over everything below the visibility horizon then.
//
// Every change of a transaction still running, or of one that starts
// later, has a position at or above the horizon: its position is at least
// its transaction id plus the offset (docs/changes.md, "Why a reader never
// misses a change"), and the horizon is the oldest running transaction's id
// plus the offset. So the head is "after every change below the horizon":
// (horizon - 1, the largest seq). Changes that committed before Head ran,
// of transactions newer than the oldest write transaction then running on
// the database server (any database's: the horizon is the server's), are
// listed after it too, usually those of the last milliseconds: a reader
// starting there sees each change after it at least once, and none is
// missed. Its organization's retention mark is always below it (the purge
// deletes changes 30 days old).
func Head(ctx context.Context, db bun.IDB) (storage.Cursor, error) {
	var horizon int64
	if err := db.NewSelect().ColumnExpr("feed_horizon()::text::bigint").Scan(ctx, &horizon); err != nil {
		return storage.Cursor{}, database.Error(err)
	}
	return keyCursor(horizon-1, math.MaxInt64), nil
}
