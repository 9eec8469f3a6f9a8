package webhooks

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
)

// fanOutLockID is the transaction-scoped advisory lock that lets one
// process at a time fan out, so a fleet probes each endpoint's feed once
// per pass rather than once per pod.
const fanOutLockID = 0x6576_6177_686b_6f75 // "evawhkou"

// FanOutResult is what one pass of FanOut did.
type FanOutResult struct {
	// Queued is how many deliveries it created.
	Queued int `bun:"queued"`
	// Full is true when some endpoint had more changes than the pass took:
	// run it again at once.
	Full bool `bun:"full"`
}

// FanOut moves every enabled endpoint along its organization's change
// feed, up to perEndpoint changes each: it queues one pending delivery per
// change whose type the endpoint wants and moves the endpoint's cursor past
// every change it read, in one statement. It reads only changes below the
// visibility horizon (docs/changes.md), so a cursor never passes a change
// that commits later: every committed change reaches every endpoint that
// was enabled when it became visible, once (the unique endpoint and change
// pair absorbs a repeat). Only endpoints with new changes are locked (a
// row lock is a write), so an idle pass reads one index probe per enabled
// endpoint and writes nothing. When another process holds the fan-out, the
// pass does nothing.
//
// An endpoint whose row another transaction holds (a PATCH, a DELETE, a
// rotation, a claim or a failure's record) is skipped (SKIP LOCKED) and
// fanned out by the next pass, a poll interval later: its cursor does not
// move, so nothing is lost. A pass that waited for it would hold up every
// other organization's fan-out too: a DELETE of an endpoint with a deep
// backlog, which cascades to its deliveries, can hold the row until the
// request's timeout.
func FanOut(ctx context.Context, db bun.IDB, perEndpoint int) (FanOutResult, error) {
	var out FanOutResult
	err := db.NewRaw(`/* every organization: the webhook fan-out */
		WITH turn AS (
			SELECT pg_try_advisory_xact_lock(?) AS mine
		), endpoint AS (
			SELECT e.id, e.organization_id, e.enabled_events, e.feed_position, e.feed_seq
			FROM webhook_endpoints e, turn
			WHERE turn.mine AND e.status = 'enabled' AND EXISTS (
				SELECT 1 FROM changes c
				WHERE c.organization_id = e.organization_id
				  AND (c.position, c.seq) > (e.feed_position, e.feed_seq)
				  AND c.position < feed_horizon())
			ORDER BY e.id
			FOR NO KEY UPDATE OF e SKIP LOCKED
		), batch AS (
			SELECT e.id AS endpoint_id, e.organization_id, e.enabled_events, c.seq, c.id AS change_id, c.type, c.position,
				row_number() OVER (PARTITION BY e.id ORDER BY c.position DESC, c.seq DESC) AS from_last,
				count(*) OVER (PARTITION BY e.id) AS taken
			FROM endpoint e CROSS JOIN LATERAL (
				SELECT c.seq, c.id, c.type, c.position FROM changes c
				WHERE c.organization_id = e.organization_id
				  AND (c.position, c.seq) > (e.feed_position, e.feed_seq)
				  AND c.position < feed_horizon()
				ORDER BY c.position, c.seq
				LIMIT ?
			) c
		), queued AS (
			INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
			SELECT organization_id, endpoint_id, change_id, seq, type, clock_timestamp() FROM batch
			WHERE enabled_events @> ARRAY['*'] OR enabled_events @> ARRAY[type]
			ORDER BY endpoint_id, position, seq
			ON CONFLICT (endpoint_id, change_seq) DO NOTHING
			RETURNING 1
		), moved AS (
			UPDATE webhook_endpoints e SET feed_position = b.position, feed_seq = b.seq
			FROM batch b
			WHERE b.from_last = 1 AND e.id = b.endpoint_id
		)
		SELECT (SELECT count(*) FROM queued) AS queued,
			EXISTS (SELECT 1 FROM batch WHERE taken >= ?) AS full`,
		int64(fanOutLockID), perEndpoint, perEndpoint).Scan(ctx, &out)
	return out, database.Error(err)
}
