package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/uptrace/bun"
)

// FeedOffsetMargin is how far above the greatest stored position a raised
// offset puts the next one. A database dumped while its old server kept
// running (or replicated until a cutover) leaves readers holding cursors
// from changes the copy never got, above every stored position; the
// margin keeps new changes after those too. It is about eleven days of
// transactions at 1,000 a second; positions are 64-bit, so moves can add
// it billions of times.
const FeedOffsetMargin int64 = 1_000_000_000

// errOffsetOverflow refuses an offset past bigint, which no real database
// reaches (transaction ids and the margin are far below it), and positions
// that cannot be (negative).
var errOffsetOverflow = errors.New("the change feed's position offset would pass 2^63 (or a position read is negative)")

// raisedFeedOffset is the detection's arithmetic (docs/changes.md, "A
// moved database"). next is the lowest position a change written from now
// on can take (the next transaction id plus offset), stored the greatest
// position the database holds. While every stored position is below next
// nothing is raised; otherwise the offset grows so that next becomes
// stored plus margin.
func raisedFeedOffset(offset, next, stored, margin int64) (int64, bool, error) {
	if stored < next {
		return offset, false, nil
	}
	if offset < 0 || next < 0 || margin < 1 || stored > math.MaxInt64-margin {
		return 0, false, errOffsetOverflow
	}
	delta := stored + margin - next
	if offset > math.MaxInt64-delta {
		return 0, false, errOffsetOverflow
	}
	return offset + delta, true, nil
}

// feedPositionsSQL reads the offset, the next position and the greatest
// stored position: of the changes (the feed index's last entry in each
// organization, found by skipping from one organization to the next), of
// the webhook endpoints' cursors and of the retention marks. A cursor a
// reader holds is a change's position, so it is at most the greatest of
// these (a purged change is at most its organization's mark).
const feedPositionsSQL = `/* every organization: the feed's stored positions */
WITH RECURSIVE orgs AS (
    (SELECT organization_id AS id FROM changes ORDER BY organization_id LIMIT 1)
    UNION ALL
    SELECT (SELECT c.organization_id FROM changes c WHERE c.organization_id > orgs.id ORDER BY c.organization_id LIMIT 1)
    FROM orgs WHERE orgs.id IS NOT NULL
), stored AS (
    SELECT (SELECT c.position FROM changes c WHERE c.organization_id = orgs.id ORDER BY c.position DESC LIMIT 1) AS position
    FROM orgs WHERE orgs.id IS NOT NULL
    UNION ALL SELECT max(feed_position) FROM webhook_endpoints
    UNION ALL SELECT max(position) FROM change_retention_marks
)
SELECT feed_position_offset() AS "offset",
    pg_snapshot_xmax(pg_current_snapshot())::text::bigint + feed_position_offset() AS next,
    (SELECT max(position)::text::bigint FROM stored) AS stored`

// feedPositions is what feedPositionsSQL reads.
type feedPositions struct {
	Offset int64         `bun:"offset"`
	Next   int64         `bun:"next"`
	Stored sql.NullInt64 `bun:"stored"`
}

func readFeedPositions(ctx context.Context, db bun.IDB) (feedPositions, error) {
	var p feedPositions
	if err := db.NewRaw(feedPositionsSQL).Scan(ctx, &p); err != nil {
		return p, fmt.Errorf("read the change feed's positions: %w", err)
	}
	return p, nil
}

// raise is the offset p calls for, if any.
func (p feedPositions) raise() (int64, bool, error) {
	if !p.Stored.Valid {
		return p.Offset, false, nil
	}
	return raisedFeedOffset(p.Offset, p.Next, p.Stored.Int64, FeedOffsetMargin)
}

// raiseFeedOffset keeps the change feed in order on a moved database
// (docs/changes.md, "A moved database"): when a stored position is at or
// above the next one, the new cluster's transaction counter is behind the
// old one's, and it raises the offset every position adds to the
// transaction id, so that every new position is above every stored one
// and saved cursors, endpoint cursors and each record's order stay valid.
// Up runs it under the migration lock, once the schema is current; it
// announces a raise through Notify.
//
// A first read takes no lock, so a database that was not moved pays one
// query. Before raising, it locks the tables that store positions against
// writes (SHARE): a transaction that wrote a position with the old offset
// commits first and is counted, and one that writes after the raise
// replans its statement with the new constant (feed_position_offset() is
// replaced, and PostgreSQL invalidates the plans that inlined it).
func (m *Migrator) raiseFeedOffset(ctx context.Context) error {
	var exists bool
	if err := m.db.NewRaw("SELECT to_regprocedure('feed_position_offset()') IS NOT NULL").Scan(ctx, &exists); err != nil {
		return fmt.Errorf("read the change feed's positions: %w", err)
	}
	if !exists {
		return nil
	}
	p, err := readFeedPositions(ctx, m.db)
	if err != nil {
		return err
	}
	if _, raise, err := p.raise(); err != nil || !raise {
		return err
	}
	return m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := liftTimeouts(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "LOCK TABLE changes, webhook_endpoints, change_retention_marks IN SHARE MODE"); err != nil {
			return fmt.Errorf("lock the change feed: %w", err)
		}
		p, err := readFeedPositions(ctx, tx)
		if err != nil {
			return err
		}
		offset, raise, err := p.raise()
		if err != nil || !raise {
			return err
		}
		// offset is an integer formatted here, never text from elsewhere.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`CREATE OR REPLACE FUNCTION feed_position_offset() RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT %d::bigint
$$`, offset)); err != nil {
			return fmt.Errorf("raise the change feed's position offset: %w", err)
		}
		m.notify(fmt.Sprintf("the change feed's stored positions reach %d, at or above the next position %d: "+
			"the database was moved to a cluster whose transaction counter is behind (dump and restore, logical replication); "+
			"raising the feed's position offset from %d to %d so that new changes follow every stored one (docs/changes.md, \"A moved database\")",
			p.Stored.Int64, p.Next, p.Offset, offset))
		return nil
	})
}
