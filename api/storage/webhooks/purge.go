package webhooks

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
)

// PurgeBatch is the most deliveries of a deleted endpoint one statement of
// PurgeDeletedEndpoints deletes, with their attempts (ON DELETE CASCADE):
// a few thousand rows and index probes, far within the statement timeout.
const PurgeBatch = 5000

// PurgeDeletedEndpoints deletes the deliveries of deleted endpoints, in
// every organization, and returns how many. A DELETE of an endpoint removes
// its row only and leaves a tombstone (DeleteEndpoint); here, each
// tombstone's deliveries go PurgeBatch at a time, each batch a statement
// of its own (its own transaction on a pool), walking the endpoint's
// (endpoint_id, change_seq) index from where the last batch stopped, and
// the tombstone goes once no delivery of the endpoint is left. No delivery
// is added to a deleted endpoint (every insert is made with the endpoint's
// row locked, and its DELETE waits for that lock), so what the walk passes
// stays gone. A batch skips the deliveries another transaction holds (SKIP
// LOCKED: a purge of another pod, a worker recording an attempt): the
// tombstone then stays, and the next pass takes them. Run by every pod's
// hourly retention pass (api/server).
func PurgeDeletedEndpoints(ctx context.Context, db bun.IDB) (int64, error) {
	return purgeDeleted(ctx, db, PurgeBatch)
}

type tombstone struct {
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid"`
	EndpointID     uuid.UUID `bun:"endpoint_id,type:uuid"`
}

func purgeDeleted(ctx context.Context, db bun.IDB, batch int) (int64, error) {
	var ts []tombstone
	if err := db.NewRaw(`/* every organization: deleted webhook endpoints */
		SELECT organization_id, endpoint_id FROM webhook_endpoint_tombstones ORDER BY deleted_at, endpoint_id`).Scan(ctx, &ts); err != nil {
		return 0, database.Error(err)
	}
	var total int64
	for _, t := range ts {
		n, err := purgeEndpoint(ctx, db, t, batch)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// purgeEndpoint deletes the deliveries of one deleted endpoint, batch at a
// time, then its tombstone when none is left.
func purgeEndpoint(ctx context.Context, db bun.IDB, t tombstone, batch int) (int64, error) {
	var total int64
	for after := int64(0); ; {
		var r struct {
			Taken int64 `bun:"taken"`
			Gone  int64 `bun:"gone"`
			Last  int64 `bun:"last"`
		}
		err := db.NewRaw(`/* every organization: a deleted webhook endpoint's deliveries, in batches */
			WITH doomed AS (
				SELECT d.id, d.change_seq FROM webhook_deliveries d
				WHERE d.endpoint_id = ? AND d.change_seq > ? AND d.organization_id = ?
				  AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = ?)
				ORDER BY d.change_seq
				LIMIT ?
				FOR UPDATE SKIP LOCKED
			), gone AS (
				DELETE FROM webhook_deliveries d USING doomed WHERE d.id = doomed.id
				RETURNING 1
			)
			SELECT (SELECT count(*) FROM doomed) AS taken, (SELECT count(*) FROM gone) AS gone,
				coalesce((SELECT max(change_seq) FROM doomed), 0) AS last`,
			t.EndpointID, after, t.OrganizationID, t.EndpointID, batch).Scan(ctx, &r)
		if err != nil {
			return total, database.Error(err)
		}
		total += r.Gone
		if r.Taken < int64(batch) {
			break
		}
		after = r.Last
	}
	_, err := db.NewRaw(`/* every organization: a deleted webhook endpoint's tombstone, once its deliveries are gone */
		DELETE FROM webhook_endpoint_tombstones t
		WHERE t.endpoint_id = ?
		  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = t.endpoint_id)
		  AND NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = t.endpoint_id)`, t.EndpointID).Exec(ctx)
	return total, database.Error(err)
}
