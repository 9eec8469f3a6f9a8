package database

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/uptrace/bun"
)

// FeedOffsetMargin is how far above the greatest stored position a raised
// offset puts the next one. A database dumped while its old server kept
// running (or replicated until a cutover) leaves readers holding cursors
// from changes the copy never got, above every stored position; the
// margin keeps new changes after those too, whenever a raise happens: on
// a move to a cluster whose transaction counter is behind the stored
// positions, and on any move to another cluster that the recorded cluster
// identifier reveals (feedCluster). It is about eleven days of
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
// position the database holds, moved whether the database has changed
// clusters since the last `migrate up` (feedCluster.moved). The offset
// grows so that next becomes stored plus margin when a stored position is
// at or above next (the new cluster's counter is behind), and, on a moved
// database, when next is below stored plus margin (the new counter is past
// the stored positions, but maybe not past the cursors the old server
// handed out after the copy). It never shrinks.
func raisedFeedOffset(offset, next, stored, margin int64, moved bool) (int64, bool, error) {
	if stored < next && !moved {
		return offset, false, nil
	}
	if offset < 0 || next < 0 || stored < 0 || margin < 1 || stored > math.MaxInt64-margin {
		return 0, false, errOffsetOverflow
	}
	target := stored + margin
	if next >= target {
		return offset, false, nil
	}
	delta := target - next
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
// these (a purged change is at most its organization's mark; the head that
// GET /changes?from=now answers is a change's place or the mark too).
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

// raise is the offset p calls for, if any, moved as raisedFeedOffset's.
func (p feedPositions) raise(moved bool) (int64, bool, error) {
	if !p.Stored.Valid {
		return p.Offset, false, nil
	}
	return raisedFeedOffset(p.Offset, p.Next, p.Stored.Int64, FeedOffsetMargin, moved)
}

// feedState is what the detection reads: the feed's positions and its
// cluster. feed is false on a database without the feed's functions (a
// newer or an older schema), where nothing is read or done.
type feedState struct {
	feed      bool
	positions feedPositions
	cluster   feedCluster
}

// raise is the offset s calls for, if any.
func (s feedState) raise() (int64, bool, error) {
	return s.positions.raise(s.cluster.moved())
}

// readFeedState is the first read of MovedFeed and raiseFeedOffset,
// without a lock: the positions, the cluster's identifier and the
// recorded one.
func (m *Migrator) readFeedState(ctx context.Context) (feedState, error) {
	var s feedState
	if err := m.db.NewRaw("SELECT to_regprocedure('feed_position_offset()') IS NOT NULL, to_regclass('feed_cluster') IS NOT NULL").
		Scan(ctx, &s.feed, &s.cluster.table); err != nil {
		return s, fmt.Errorf("read the change feed's positions: %w", err)
	}
	if !s.feed {
		return s, nil
	}
	var err error
	if s.positions, err = readFeedPositions(ctx, m.db); err != nil {
		return s, err
	}
	if s.cluster.current, err = currentCluster(ctx, m.db); err != nil {
		return s, err
	}
	return s, readRecordedCluster(ctx, m.db, &s.cluster, false)
}

// ErrUnmendedMove marks serve's refusal of a moved database that `migrate
// up` has not mended (MovedFeed).
var ErrUnmendedMove = errors.New("the database was moved (dump and restore, logical replication) and `eventapi migrate up` has not mended it")

// MovedFeed judges a moved database before serve answers from it. It
// refuses one (an error wrapping ErrUnmendedMove) that `migrate up` must
// mend first, since serving it breaks at once: a stored position at or
// above the next one (the new cluster's transaction counter is behind:
// new changes would sort before the restored ones, behind every saved
// cursor), or a sequence behind its column (logical replication: every
// write that records a change would fail as a duplicate). A database that
// only changed clusters since `migrate up` last recorded one is served,
// with the warning it returns: a pg_upgrade (a managed service's major
// upgrade) changes the identifier too, and must not stop pods from
// starting, while after a dump the cursors the old server handed out
// later wait for `migrate up`'s raise. The positions are judged only on a
// database with the feed's functions. Reads only, no lock: serve runs it
// once at start.
func (m *Migrator) MovedFeed(ctx context.Context) (warning string, err error) {
	s, err := m.readFeedState(ctx)
	if err != nil {
		return "", err
	}
	var problems []string
	if s.feed {
		if _, raise, err := s.positions.raise(false); err != nil {
			return "", err
		} else if raise {
			problems = append(problems, fmt.Sprintf("the change feed's stored positions reach %d, at or above the next position %d "+
				"(the new cluster's transaction counter is behind), so new changes would sort before them; migrate up raises the feed's position offset",
				s.positions.Stored.Int64, s.positions.Next))
		}
	}
	behind, err := sequencesBehind(ctx, m.db)
	if err != nil {
		return "", err
	}
	for _, q := range behind {
		problems = append(problems, describeSequenceBehind(q))
	}
	if len(problems) > 0 {
		return "", fmt.Errorf("%w: %s; run `eventapi migrate up` against it first (docs/changes.md, \"A moved database\")",
			ErrUnmendedMove, strings.Join(problems, "; "))
	}
	if s.feed && s.cluster.moved() {
		return describeMovedCluster(s.cluster), nil
	}
	return "", nil
}

// raiseFeedOffset keeps the change feed in order on a moved database
// (docs/changes.md, "A moved database"): when a stored position is at or
// above the next one, the new cluster's transaction counter is behind the
// old one's, and when the recorded cluster is not the current one the
// database was copied from another cluster, whose server may have handed
// out cursors above every stored position after the copy was taken. In
// either case it raises the offset every position adds to the transaction
// id, so that every new position is FeedOffsetMargin above every stored
// one and saved cursors, endpoint cursors and each record's order stay
// valid. Then it records the current cluster (also on the first run, where
// nothing is compared). Up runs it under the migration lock, once the
// schema is current; it announces a raise, and a change of clusters,
// through Notify.
//
// A first read takes no lock, so a database that was not moved pays a few
// queries. Before raising, it locks the tables that store positions
// against writes (SHARE): a transaction that wrote a position with the old
// offset commits first and is counted, and one that writes after the
// raise replans its statement with the new constant
// (feed_position_offset() is replaced, and PostgreSQL invalidates the
// plans that inlined it).
func (m *Migrator) raiseFeedOffset(ctx context.Context) error {
	first, err := m.readFeedState(ctx)
	if err != nil || !first.feed {
		return err
	}
	_, raise, err := first.raise()
	if err != nil || !raise && !first.cluster.record() {
		return err
	}
	return m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := liftTimeouts(ctx, tx); err != nil {
			return err
		}
		s := first
		if err := readRecordedCluster(ctx, tx, &s.cluster, true); err != nil {
			return err
		}
		// Without a raise in the first read, only the cluster is recorded:
		// positions read again would count the changes written since, which
		// the current cluster numbered, and on a moved database they are
		// not the margin below the next position.
		if raise {
			if err := m.raiseLocked(ctx, tx, &s); err != nil {
				return err
			}
		}
		if !s.cluster.record() {
			return nil
		}
		if s.cluster.moved() && !raise {
			m.notify(fmt.Sprintf("the database's PostgreSQL cluster changed (system identifier %d, recorded %d: pg_upgrade, a dump and restore, "+
				"logical replication); no stored position is within the margin below the next position %d, so the offset stays; "+
				"recording the new cluster (docs/changes.md, \"A moved database\")",
				s.cluster.current.Int64, s.cluster.recorded.Int64, s.positions.Next))
		}
		return recordCluster(ctx, tx, s.cluster)
	})
}

// raiseLocked locks the tables that store positions against writes, reads
// the positions again into s and raises the offset if they still call for
// it.
func (m *Migrator) raiseLocked(ctx context.Context, tx bun.Tx, s *feedState) error {
	if _, err := tx.ExecContext(ctx, "LOCK TABLE changes, webhook_endpoints, change_retention_marks IN SHARE MODE"); err != nil {
		return fmt.Errorf("lock the change feed: %w", err)
	}
	var err error
	if s.positions, err = readFeedPositions(ctx, tx); err != nil {
		return err
	}
	offset, raise, err := s.raise()
	if err != nil || !raise {
		return err
	}
	return m.replaceFeedOffset(ctx, tx, *s, offset)
}

// replaceFeedOffset replaces feed_position_offset() with one that returns
// offset, in tx, and says why through Notify.
func (m *Migrator) replaceFeedOffset(ctx context.Context, tx bun.Tx, s feedState, offset int64) error {
	// offset is an integer formatted here, never text from elsewhere.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`CREATE OR REPLACE FUNCTION feed_position_offset() RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT %d::bigint
$$`, offset)); err != nil {
		return fmt.Errorf("raise the change feed's position offset: %w", err)
	}
	p := s.positions
	if p.Stored.Int64 >= p.Next {
		m.notify(fmt.Sprintf("the change feed's stored positions reach %d, at or above the next position %d: "+
			"the database was moved to a cluster whose transaction counter is behind (dump and restore, logical replication); "+
			"raising the feed's position offset from %d to %d so that new changes follow every stored one (docs/changes.md, \"A moved database\")",
			p.Stored.Int64, p.Next, p.Offset, offset))
		return nil
	}
	m.notify(fmt.Sprintf("the database's PostgreSQL cluster changed (system identifier %d, recorded %d: a dump and restore, logical replication, pg_upgrade): "+
		"raising the feed's position offset from %d to %d so that new changes follow, by the margin, every stored position (up to %d) "+
		"and the cursors the old server may have handed out after the copy was taken (docs/changes.md, \"A moved database\")",
		s.cluster.current.Int64, s.cluster.recorded.Int64, p.Offset, offset, p.Stored.Int64))
	return nil
}
