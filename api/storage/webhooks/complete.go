package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
)

// Outcome is the result of one attempt.
type Outcome struct {
	StartedAt      time.Time
	Duration       time.Duration
	ResponseStatus *int
	// Error is nil on success.
	Error *string
	// RetryIn is the wait before the next attempt after a failure, by the
	// delivery's failed attempts in its current window. GiveUp marks the
	// delivery failed instead.
	RetryIn time.Duration
	GiveUp  bool
	// FreshRetryIn is the wait should Complete find that the attempt
	// belongs to an earlier run of the endpoint: its failure neither gives
	// up nor counts, and the delivery gets the fresh window a re-enable
	// gives, whose schedule starts at its first step.
	FreshRetryIn time.Duration
	// ChangedAt is the delivered change's created_at, which a success
	// compares with its endpoint's troubles (Completed.Waited).
	ChangedAt time.Time
	// RetryFor is the retry window: a delivery given up disables its
	// endpoint only when the endpoint's run of failures (failing_since)
	// began at least RetryFor before this attempt, that is, when the
	// endpoint itself has had no success for the whole window. One message
	// its receiver refuses for good fails alone.
	RetryFor time.Duration
}

// Completed is what Complete did beyond recording the attempt.
type Completed struct {
	// GaveUp: the delivery failed for good.
	GaveUp bool
	// Disabled: and its endpoint was disabled with it.
	Disabled bool
	// LeaseLost: the claim no longer held the delivery (its lease ran out
	// and another claim took it, as when the sending process was paused):
	// the attempt was recorded, since its request was sent, but the
	// delivery did not move and attempt_count did not count it.
	LeaseLost bool
	// Attempts is, for a success recorded on the delivery, its attempts in
	// its life, this one included: 1 when the first attempt succeeded; 0
	// when no success was recorded (the lease lost, the endpoint deleted).
	Attempts int
	// Waited: the recorded success came after its receiver's troubles
	// since the change was written: failed attempts of the delivery, a run
	// of the endpoint's failures that this success ends or that ended after
	// the change (recovered_at), or a disable the endpoint was re-enabled
	// from after it (enabled_at). Such a delivery's delay is the receiver's
	// outage, not the service's (docs/observability.md, the delivery lag's
	// wait label).
	Waited bool
}

// Complete records the attempt of claim c and moves the delivery on:
// succeeded; pending again after o.RetryIn; or failed, disabling the
// endpoint when it has failed for the whole window (Outcome.RetryFor). It
// reports whether it gave up and disabled. The delivery is only moved while
// c still holds it (lease_owner), so a claim that outlived its lease cannot
// overwrite a newer one's result; the attempt is recorded either way, since
// its request was sent (Completed.LeaseLost).
//
// A failure counts against the endpoint only when c was claimed in the
// endpoint's current run: at or after its enabled_at, which a re-enable
// moves (docs/webhooks.md, "Re-enabling while an attempt is in flight"). A
// claim made before the re-enable carries the retry window the delivery had
// then, which the re-enable renewed for every pending delivery but not for
// this one, in flight. Its failure is recorded as the delivery's attempt
// and gives the delivery the same fresh window (first_failed_at cleared,
// window_attempts 0, due again after o.FreshRetryIn, never given up); the
// endpoint's failing_since and status stay as the re-enable left them.
// The endpoint's row is locked first, as a PATCH locks it, so a re-enable
// commits wholly before or after this decision, and the two never lock
// their rows in opposite orders.
func Complete(ctx context.Context, db *bun.DB, c *Claim, o Outcome) (done Completed, err error) {
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if o.Error == nil {
			// A deleted endpoint's deliveries wait for the purge
			// (PurgeDeletedEndpoints): nothing more is written to them.
			var gone bool
			err := tx.NewRaw(`SELECT NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE organization_id = ? AND id = ?)`,
				c.OrganizationID, c.EndpointID).Scan(ctx, &gone)
			if err != nil || gone {
				return err
			}
			done.Attempts, done.Waited, err = succeeded(ctx, tx, c, o)
			done.LeaseLost = err == nil && done.Attempts == 0
			return err
		}
		var current bool
		err := tx.NewRaw(`SELECT enabled_at <= ? FROM webhook_endpoints WHERE organization_id = ? AND id = ? FOR NO KEY UPDATE`,
			c.Now, c.OrganizationID, c.EndpointID).Scan(ctx, &current)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // the endpoint is gone; its deliveries wait for the purge
		}
		if err != nil {
			return err
		}
		done, err = failed(ctx, tx, c, o, current)
		return err
	})
	return done, database.Error(err)
}

// record inserts the attempt of claim c.
func record(ctx context.Context, tx bun.Tx, c *Claim, o Outcome) error {
	_, err := tx.NewRaw(`INSERT INTO webhook_delivery_attempts (organization_id, delivery_id, started_at, response_status, duration_ms, error)
		SELECT organization_id, id, ?, ?, ?, ? FROM webhook_deliveries WHERE organization_id = ? AND id = ?`,
		o.StartedAt, o.ResponseStatus, o.Duration.Milliseconds(), o.Error, c.OrganizationID, c.ID).Exec(ctx)
	return err
}

// succeeded records a successful attempt: the delivery succeeded, and the
// endpoint's run of failures, if any, is over (the endpoint answered, even
// when the claim had lost its lease; recovered_at says when). It returns
// the delivery's attempts in its life, this one included, or 0 when the
// lease was lost, and whether the delivery waited on its receiver
// (Completed.Waited).
func succeeded(ctx context.Context, tx bun.Tx, c *Claim, o Outcome) (attempts int, waited bool, err error) {
	if err := record(ctx, tx, c, o); err != nil {
		return 0, false, err
	}
	org := c.OrganizationID
	err = tx.NewRaw(`UPDATE webhook_deliveries SET status = 'succeeded', attempt_count = attempt_count + 1,
			next_attempt_at = NULL, first_failed_at = NULL, window_attempts = 0, unprepared_since = NULL, leased_until = NULL, lease_owner = NULL,
			updated_at = clock_timestamp()
		WHERE organization_id = ? AND id = ? AND lease_owner = ?
		RETURNING attempt_count`, org, c.ID, c.LeaseOwner).Scan(ctx, &attempts)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, false, err
	}
	// The outer SELECT reads the endpoint as it was before the UPDATE of
	// its WITH (PostgreSQL runs both on one snapshot).
	err = tx.NewRaw(`WITH ended AS (
			UPDATE webhook_endpoints SET failing_since = NULL, recovered_at = clock_timestamp()
			WHERE organization_id = ? AND id = ? AND failing_since IS NOT NULL
			RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM ended) OR EXISTS (SELECT 1 FROM webhook_endpoints
			WHERE organization_id = ? AND id = ? AND (recovered_at > ? OR enabled_at > ?))`,
		org, c.EndpointID, org, c.EndpointID, o.ChangedAt, o.ChangedAt).Scan(ctx, &waited)
	return attempts, waited || attempts > 1, err
}

// failed records a failed attempt, with the endpoint's row locked: the
// delivery is pending again or, when o.GiveUp and the claim is of the
// endpoint's current run, failed, and the endpoint disabled when its run
// of failures has lasted o.RetryFor; only a claim of the current run
// starts or continues the endpoint's failing_since and the delivery's
// window (first_failed_at, and window_attempts, the failures it counts:
// attempt_count counts every attempt of the delivery's life).
func failed(ctx context.Context, tx bun.Tx, c *Claim, o Outcome, current bool) (Completed, error) {
	if err := record(ctx, tx, c, o); err != nil {
		return Completed{}, err
	}
	org := c.OrganizationID
	giveUp := o.GiveUp && current
	status := Pending
	if giveUp {
		status = Failed
	}
	retryIn := o.RetryIn
	if !current {
		retryIn = o.FreshRetryIn
	}
	res, err := tx.NewRaw(`UPDATE webhook_deliveries SET status = ?, attempt_count = attempt_count + 1,
			next_attempt_at = CASE WHEN ? THEN NULL ELSE clock_timestamp() + make_interval(secs => ?) END,
			first_failed_at = CASE WHEN ? THEN coalesce(first_failed_at, ?) END,
			window_attempts = CASE WHEN ? THEN window_attempts + 1 ELSE 0 END,
			unprepared_since = NULL, leased_until = NULL, lease_owner = NULL, updated_at = clock_timestamp()
		WHERE organization_id = ? AND id = ? AND lease_owner = ?`,
		status, giveUp, retryIn.Seconds(), current, o.StartedAt, current, org, c.ID, c.LeaseOwner).Exec(ctx)
	if err != nil {
		return Completed{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 || !current {
		return Completed{LeaseLost: n == 0}, nil
	}
	// The window is measured to the attempt's end, the instant the worker
	// decided to give up at (delivery.complete). In SET, failing_since is
	// the row's value before the update; in RETURNING, after it (the same,
	// coalesced).
	since, cutoff := o.StartedAt, o.StartedAt.Add(o.Duration-o.RetryFor)
	var disabled bool
	err = tx.NewRaw(`UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?),
			status = CASE WHEN ? AND coalesce(failing_since, ?) <= ? THEN 'disabled' ELSE status END,
			updated_at = CASE WHEN ? AND coalesce(failing_since, ?) <= ? THEN clock_timestamp() ELSE updated_at END
		WHERE organization_id = ? AND id = ?
		RETURNING ? AND failing_since <= ?`,
		since, giveUp, since, cutoff, giveUp, since, cutoff, org, c.EndpointID, giveUp, cutoff).Scan(ctx, &disabled)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return Completed{GaveUp: giveUp, Disabled: disabled}, err
}

// handedBackAt is the updated_at of a delivery a claim hands back without
// an attempt of the endpoint's (Release, Unsent): its own when it is stale,
// claimed before the endpoint's latest re-enable, so that it stays stale
// and its next claim gives it the fresh window the re-enable promised
// (ClaimDue); else now. Were it always now, a delivery claimed before a
// re-enable and handed back after it would keep its old window, and the
// first failure after the re-enable would give it up.
const handedBackAt = `CASE WHEN updated_at < (SELECT e.enabled_at FROM webhook_endpoints e
			WHERE e.organization_id = webhook_deliveries.organization_id AND e.id = webhook_deliveries.endpoint_id)
		THEN updated_at ELSE clock_timestamp() END`

// Release hands claim c back without an attempt, due again after after (0:
// at once, when its worker is stopping or its endpoint was disabled
// meanwhile): nothing is recorded, and neither the delivery's attempts nor
// its endpoint's failure window move.
func Release(ctx context.Context, db bun.IDB, c *Claim, after time.Duration) error {
	_, err := db.NewRaw(`UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp() + make_interval(secs => ?),
			leased_until = NULL, lease_owner = NULL, updated_at = `+handedBackAt+`
		WHERE organization_id = ? AND id = ? AND lease_owner = ?`, after.Seconds(), c.OrganizationID, c.ID, c.LeaseOwner).Exec(ctx)
	return database.Error(err)
}
