package changes

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/tenancy"
)

// Head returns the place of org's feed head, where a reader that wants no
// history starts (GET /changes?from=now): a read after it lists every change
// whose transaction had not committed when Head ran, and whatever committed
// since, and passes over everything below the visibility horizon then.
//
// Every change of a transaction still running, or of one that starts
// later, has a position at or above the horizon: its position is at least
// its transaction id plus the offset (docs/changes.md, "Why a reader never
// misses a change"), and the horizon is the oldest running transaction's id
// plus the offset. Everything below the horizon is final, so the head is
// org's last change below it: a read after it finds exactly the changes at
// or above the horizon, the same as a read after (horizon - 1, the largest
// seq) would. It is a stored place, as every other cursor of the feed is,
// which the detection of a moved database relies on (docs/changes.md, "A
// moved database"): a place above every stored position, taken before a
// move to a cluster whose counter lies below it, would pass over the
// changes written after the move. When the purge has deleted every such
// change the head is org's retention mark, and with neither the start of
// the feed.
//
// Changes that committed before Head ran, of transactions newer than the
// oldest write transaction then running on the database server (any
// database's: the horizon is the server's), are listed after it too,
// usually those of the last milliseconds: a reader starting there sees
// each change after it at least once, and none is missed.
func Head(ctx context.Context, db bun.IDB, org tenancy.OrganizationID) (storage.Cursor, error) {
	var at struct {
		Position sql.NullInt64 `bun:"position"`
		Seq      int64         `bun:"seq"`
	}
	// One statement, so the horizon, the last change below it and the mark
	// are read in one snapshot; the greater of the change and the mark.
	err := db.NewRaw(`SELECT position::text::bigint AS position, seq FROM (
		(SELECT c.position, c.seq FROM changes AS c
		 WHERE c.organization_id = ? AND c.position < feed_horizon()
		 ORDER BY c.position DESC, c.seq DESC LIMIT 1)
		UNION ALL
		(SELECT m.position, m.seq FROM change_retention_marks AS m WHERE m.organization_id = ?)
	) AS places ORDER BY position DESC, seq DESC LIMIT 1`, org, org).Scan(ctx, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return keyCursor(0, 0), nil // no change below the horizon, and no mark
	case err != nil:
		return storage.Cursor{}, database.Error(err)
	}
	return keyCursor(at.Position.Int64, at.Seq), nil
}
