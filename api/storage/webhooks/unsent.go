package webhooks

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
)

// Unprepared is a failure of ours to prepare a claimed delivery: its
// message not loaded or rendered, its endpoint's secret not opened, its
// lease spent before the request could start.
type Unprepared struct {
	// At is the database's clock at the failure.
	At time.Time
	// RetryIn is the wait before the delivery is tried again. GiveUp fails
	// it instead, with Reason recorded as an attempt that sent nothing.
	RetryIn time.Duration
	GiveUp  bool
	Reason  string
}

// Unsent hands claim c back after a failure of ours (docs/webhooks.md,
// "Our failures are not the endpoint's"): pending again after u.RetryIn,
// its run of such failures starting at u.At unless one is running; or, when
// u.GiveUp, failed, with u.Reason recorded as an attempt at u.At that sent
// nothing (no response status, no duration), so the deliveries list says
// why. Neither first_failed_at nor the endpoint moves: the endpoint is
// never failing nor disabled for a fault of ours. Only while c holds the
// delivery: held says whether it did (a claim whose lease ran out and was
// taken over changes nothing).
func Unsent(ctx context.Context, db bun.IDB, c *Claim, u Unprepared) (held bool, err error) {
	var moved int
	err = db.NewRaw(`WITH moved AS (
			UPDATE webhook_deliveries SET status = CASE WHEN ? THEN 'failed' ELSE 'pending' END,
				attempt_count = attempt_count + CASE WHEN ? THEN 1 ELSE 0 END,
				next_attempt_at = CASE WHEN ? THEN NULL ELSE clock_timestamp() + make_interval(secs => ?) END,
				unprepared_since = CASE WHEN ? THEN NULL ELSE coalesce(unprepared_since, ?) END,
				leased_until = NULL, lease_owner = NULL, updated_at = `+handedBackAt+`
			WHERE organization_id = ? AND id = ? AND lease_owner = ?
			RETURNING organization_id, id
		), attempt AS (
			INSERT INTO webhook_delivery_attempts (organization_id, delivery_id, started_at, response_status, duration_ms, error)
			SELECT organization_id, id, ?, NULL, 0, ? FROM moved WHERE ?
		)
		SELECT count(*) FROM moved`,
		u.GiveUp, u.GiveUp, u.GiveUp, u.RetryIn.Seconds(), u.GiveUp, u.At,
		c.OrganizationID, c.ID, c.LeaseOwner,
		u.At, u.Reason, u.GiveUp).Scan(ctx, &moved)
	return moved > 0, database.Error(err)
}
