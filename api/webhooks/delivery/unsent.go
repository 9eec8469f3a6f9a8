package delivery

import (
	"context"
	"time"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// prepareRetry is how long a delivery that could not be prepared, through
// no fault of its endpoint's, waits before it is tried again.
const prepareRetry = time.Minute

// unsentReason is the error recorded on a delivery failed for failures of
// ours (docs/webhooks.md, "Our failures are not the endpoint's").
const unsentReason = "not sent: eventapi could not prepare the message (our failure, not the endpoint's)"

// unsent handles claim c, made at, that could not be sent for a
// failure of ours, err: its message not loaded or rendered, its endpoint's
// secret not opened, the endpoint's status not read, its lease spent before
// the request. No attempt is recorded and the endpoint's failure window,
// which disables it, does not move. The delivery waits prepareRetry and is
// tried again, until such failures have run for the retry window: then it
// is failed, with unsentReason as an attempt that sent nothing, instead of
// being tried every minute until the feed's purge deletes it. A worker
// that is stopping hands the claim back at once instead.
func (w *Worker) unsent(ctx context.Context, c *store.Claim, at claimTimes, err error) {
	if ctx.Err() != nil {
		w.handBack(ctx, c, err)
		return
	}
	// The database's clock now, as complete reckons an attempt's start, so
	// one clock decides.
	now := at.dbNow(c)
	since := now
	if c.UnpreparedSince != nil {
		since = *c.UnpreparedSince
	}
	retryIn, giveUp := unsentRetry(now, since, w.backoff.RetryFor)
	u := store.Unprepared{At: now, RetryIn: retryIn, Reason: unsentReason, GiveUp: giveUp}
	rctx, cancel := context.WithTimeout(telemetry.Untraced(context.Background()), completeTimeout)
	defer cancel()
	held, rerr := store.Unsent(rctx, w.db, c, u)
	if rerr != nil {
		// The lease runs out and the delivery is tried again.
		w.log.Warn("webhooks: handing back a delivery that could not be prepared failed", "delivery_id", c.ID.String(),
			"error", rerr.Error())
		return
	}
	if !held {
		w.log.Info("webhooks: a delivery that could not be prepared was no longer held (its lease ran out); nothing recorded",
			"delivery_id", c.ID.String(), "error", err.Error())
		return
	}
	if u.GiveUp {
		w.log.Error("webhooks: a delivery could not be prepared for its whole retry window; it failed, and its endpoint stays as it is",
			"delivery_id", c.ID.String(), "endpoint_id", c.EndpointID.String(), "error", err.Error())
		return
	}
	w.log.Error("webhooks: preparing a delivery failed; it will be tried again", "delivery_id", c.ID.String(),
		"retry_in", retryIn.String(), "error", err.Error())
}

// unsentRetry is when a delivery that could not be prepared at now, in a
// run of such failures since since, is tried again: after prepareRetry,
// cut to the end of the retry window retryFor so that the last try falls
// on it (as an endpoint's retries do, platform/webhook's Backoff); or
// never, giveUp, once the window has passed.
func unsentRetry(now, since time.Time, retryFor time.Duration) (retryIn time.Duration, giveUp bool) {
	left := since.Add(retryFor).Sub(now)
	if left <= 0 {
		return 0, true
	}
	return min(prepareRetry, left), false
}

// notSubscribed fails claim c, made at, unsent: its endpoint's
// subscription no longer takes its change's type typ (it changed after the
// delivery was made, perhaps with the URL). The delivery stays in the
// deliveries list, failed, with an attempt that sent nothing saying why,
// so the integrator can see which changes to read from the feed instead; a
// retry needs the type back in the subscription (docs/webhooks.md). Until
// 2.17.2 it was deleted with its attempts, and nothing said so. Neither
// first_failed_at nor the endpoint moves.
func (w *Worker) notSubscribed(ctx context.Context, c *store.Claim, at claimTimes, typ string) {
	u := store.Unprepared{At: at.dbNow(c), GiveUp: true,
		Reason: "not sent: the endpoint no longer subscribes to " + typ}
	rctx, cancel := context.WithTimeout(telemetry.Untraced(context.Background()), completeTimeout)
	defer cancel()
	held, err := store.Unsent(rctx, w.db, c, u)
	if err != nil {
		w.handBack(ctx, c, err)
		return
	}
	if !held {
		return // its lease ran out: whoever holds it now decides
	}
	w.log.Info("webhooks: the endpoint no longer subscribes to a delivery's type; it failed unsent",
		"delivery_id", c.ID.String(), "endpoint_id", c.EndpointID.String(), "type", typ)
}
