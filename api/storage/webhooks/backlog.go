package webhooks

import (
	"context"

	"github.com/uptrace/bun"
)

// DueCount counts the deliveries of enabled endpoints that are due now and
// not claimed (a claim moves next_attempt_at to its lease's end), up to
// limit: a backlog the workers have not taken. It reads the due index
// (webhook_deliveries_due_idx) and stops at limit, so it stays cheap however
// deep the backlog. A delivery waiting for its endpoint's concurrency cap is
// due too: the count alone says nothing is wrong; with no attempts made
// meanwhile it says delivery has stalled (docs/observability.md, "Alerts").
func DueCount(ctx context.Context, db bun.IDB, limit int) (int, error) {
	var n int
	err := db.NewRaw(`/* every organization: the due backlog */ SELECT count(*) FROM (
			SELECT 1 FROM webhook_deliveries d
			JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.status = 'enabled'
			WHERE d.status = 'pending' AND d.next_attempt_at <= statement_timestamp()
			LIMIT ?) due`, limit).Scan(ctx, &n)
	return n, err
}
