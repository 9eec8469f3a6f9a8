package changes

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
)

// Retention is how long the feed keeps a change: the purge's age and the
// number of days the 410 cursor_expired message states.
const Retention = 30 * 24 * time.Hour

// PurgeBatch is the most changes one statement of Purge deletes. Each
// change takes its webhook deliveries and their attempts with it (ON DELETE
// CASCADE): up to MaxEndpoints deliveries a change, each with the attempts
// of its 3-day window and its manual retries, so a batch of 1,000 changes
// can be tens of thousands of deliveries and hundreds of thousands of
// attempts. It is sized so that such a batch still ends well within the
// statement timeout (docs/changes.md, "What is recorded").
const PurgeBatch = 1000

// Purge deletes the changes older than Retention, in every organization,
// and returns how many it deleted. It deletes PurgeBatch at a time, each
// batch a statement of its own (its own transaction on a pool): however
// large the backlog, each statement stays far within the statement
// timeout, and none holds a transaction id for long, which would hold back
// the feed's visibility horizon for every reader and the webhook fan-out
// (docs/changes.md).
//
// A batch is taken from the head of the feed's insertion order: the next
// PurgeBatch changes by seq, through the primary key, of which those past
// the retention go. A change's seq and created_at are both taken at its
// insert, so the changes past the retention are that head, and the run ends
// at the first head that holds a younger one (purge says when else). So a
// run reads a bounded part of the table whatever its size, where a
// condition on created_at alone would be a scan of the whole table (an
// index on created_at cannot be used with a cutoff computed per row, and a
// BRIN index on it stops narrowing anything once the purge has freed and
// new changes refilled its pages; docs/changes.md, "What is recorded"). The
// cutoff is the statement's start (statement_timestamp). Pods that purge
// at once take different changes (SKIP LOCKED); one that finds the whole
// head held by another leaves the work to it.
//
// The statement that deletes a batch moves the retention mark of each
// organization it deleted from to the last of its deleted changes in feed
// order, never back (database.FeedMarksCTE); List refuses a cursor before
// it.
func Purge(ctx context.Context, db bun.IDB) (int64, error) { return purge(ctx, db, PurgeBatch) }

// purgeSQL deletes one batch. Its arguments: the retention in seconds, the
// seq the run has passed, and the batch's size. The head is that many
// changes after that seq; of them, those past the retention (before the
// statement's start less the retention) that no other transaction holds go.
// It moves the marks and reports what it deleted and what the head held.
const purgeSQL = `/* every organization: the feed's retention */
WITH head AS (
    SELECT seq, created_at < statement_timestamp() - make_interval(secs => ?) AS old
    FROM changes WHERE seq > ? ORDER BY seq LIMIT ?
), gone AS (
    DELETE FROM changes WHERE seq IN (
        SELECT c.seq FROM changes c WHERE c.seq IN (SELECT seq FROM head WHERE old)
        FOR UPDATE SKIP LOCKED)
    RETURNING organization_id, position, seq
), ` + database.FeedMarksCTE + `
SELECT (SELECT count(*) FROM gone) AS gone, (SELECT count(*) FROM head) AS head,
    (SELECT coalesce(bool_and(old), true) FROM head) AS all_old, (SELECT coalesce(max(seq), 0) FROM head) AS last`

// batchResult is what one statement of purgeSQL reports.
type batchResult struct {
	Gone   int64 `bun:"gone"`
	Head   int   `bun:"head"`
	AllOld bool  `bun:"all_old"`
	Last   int64 `bun:"last"`
}

// purge runs batches until the head it reaches holds a change within the
// retention (the rest is younger), is short of a batch (the end of the
// feed), or yields nothing to this run (another pod's purge holds it and
// goes on). A batch that deleted fewer than the head's old changes because
// another pod took some of them does not end the run: ending at the first
// short batch let two pods that met on the head both stop, leaving the
// backlog for another hour. Each batch starts after the last head, so the
// run never walks again the index entries of what it deleted, which an
// older snapshot anywhere keeps from being marked dead.
func purge(ctx context.Context, db bun.IDB, batch int) (int64, error) {
	var total int64
	var after int64
	for {
		var r batchResult
		if err := db.NewRaw(purgeSQL, Retention.Seconds(), after, batch).Scan(ctx, &r); err != nil {
			return total, database.Error(err)
		}
		total += r.Gone
		if !r.AllOld || r.Head < batch || r.Gone == 0 {
			return total, nil
		}
		after = r.Last
	}
}
