package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/eventapi/eventapi/api/storage/changes"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/webhook"
)

// Payload is the body of every webhook request.
type Payload struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// leaseMargin is kept between an attempt's end and its lease's end, so the
// delivery is never claimed again while a request is still out.
const leaseMargin = time.Second

// errLeaseSpent: preparing a claim used up its lease, a failure of ours
// (unsent).
var errLeaseSpent = errors.New("the lease ran out before the request was sent")

// completeTimeout bounds recording an attempt, which runs even while the
// worker stops.
const completeTimeout = 10 * time.Second

// claimTimes are this process's clock around a claim: asked before the
// database read its clock in the claim (Claim.Now), claimed after the
// claim came back. A lease counted from asked ends no later than the real
// one, however long the claim took; the database's clock reckoned from
// claimed (dbNow) is never ahead of the real one, so an attempt's recorded
// start is never after the receiver got the request, nor after the
// delivery's update that records it.
type claimTimes struct{ asked, claimed time.Time }

// dbNow is the database's clock now, by claim c's reading of it: at most
// the claim's way back early.
func (t claimTimes) dbNow(c *store.Claim) time.Time { return c.Now.Add(time.Since(t.claimed)) }

// deliver sends one claimed delivery and records the outcome.
func (w *Worker) deliver(ctx context.Context, c *store.Claim, at claimTimes) {
	msg, found, err := store.LoadMessage(ctx, w.db, c)
	if err != nil {
		w.unsent(ctx, c, at, err)
		return
	}
	if !found {
		return // the endpoint, the delivery or the change is gone
	}
	if !msg.Subscribed() {
		// The subscription changed after the delivery was made, perhaps
		// with the URL by a key that cannot read this type: it is not sent.
		w.notSubscribed(ctx, c, at, msg.Type)
		return
	}
	body, keys, err := w.prepare(ctx, c, &msg)
	if err != nil {
		w.unsent(ctx, c, at, err)
		return
	}
	// The last look, after every database round trip of the preparation:
	// an endpoint disabled since the claim (a PATCH, or another of its
	// deliveries given up) gets no new attempt; this claim waits, pending,
	// until it is enabled again.
	if ok, err := store.Sendable(ctx, w.db, c); err != nil || !ok {
		if err != nil {
			w.unsent(ctx, c, at, err)
			return
		}
		w.log.Info("webhooks: the endpoint was disabled before the request was sent; the delivery waits for it to be enabled",
			"delivery_id", c.ID.String(), "endpoint_id", c.EndpointID.String())
		w.release(c, 0)
		return
	}
	// The attempt must end before the lease does (less a margin), counted
	// from before the claim: its COMMIT, loading and rendering the message
	// spent part of it,
	// and a request still out when the lease ends would be sent a second
	// time, at once, by whichever worker claims the delivery next. It also
	// ends within the configured timeout.
	budget := min(w.cfg.Timeout, c.LeasedUntil.Sub(c.Now)-leaseMargin-time.Since(at.asked))
	if budget <= 0 {
		w.unsent(ctx, c, at, errLeaseSpent)
		return
	}
	actx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, msg.URL, bytes.NewReader(body))
	if err != nil {
		text := "the endpoint URL cannot be requested"
		w.complete(c, msg.CreatedAt, at, attempt{errText: &text})
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "eventapi-webhooks/1")
	webhook.SetHeaders(req.Header, msg.ChangeID.String(), time.Now(), body, keys...)
	started := time.Now()
	res, err := w.client.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			w.handBack(ctx, c, err)
			return
		}
		text := describe(err, budget)
		w.complete(c, msg.CreatedAt, at, attempt{took: time.Since(started), timed: !refused(err), errText: &text})
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, responseLimit))
	_ = res.Body.Close()
	code := res.StatusCode
	var text *string
	var wait time.Duration
	if code < 200 || code > 299 {
		s := describeStatus(code)
		text = &s
		wait = retryAfter(res.Header.Get("Retry-After"), time.Now())
	}
	w.complete(c, msg.CreatedAt, at, attempt{took: time.Since(started), timed: true, code: &code, errText: text, wait: wait})
}

// attempt is what one attempt of a delivery came to.
type attempt struct {
	took time.Duration // from sending the request to its response or error
	// timed: the attempt is a sample of the attempt-duration histogram;
	// not when the client refused it before a request left (refused), or
	// no request could be made.
	timed   bool
	code    *int    // the response's status; nil when none came
	errText *string // what failed, for the deliveries list; nil: success
	wait    time.Duration
}

// prepare renders the change and signs nothing yet: it returns the body and
// the endpoint's HMAC keys, its secret's and, during a rotation's grace
// period, the previous secret's after it (docs/webhooks.md, "Rotating the
// secret").
func (w *Worker) prepare(ctx context.Context, c *store.Claim, msg *store.Message) ([]byte, [][]byte, error) {
	key, err := w.key(c, msg.SealedSecret)
	if err != nil {
		return nil, nil, err
	}
	keys := [][]byte{key}
	if msg.SealedPreviousSecret != nil {
		// A previous secret that does not open is a failure of ours, as
		// the current one's is: sending without its signature would fail
		// at a receiver that has not rolled over yet.
		previous, err := w.key(c, msg.SealedPreviousSecret)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, previous)
	}
	cs := []changes.Change{{ID: msg.ChangeID, Type: msg.Type, ObjectType: msg.ObjectType, ObjectID: msg.ObjectID,
		Data: msg.Data, CreatedAt: msg.CreatedAt}}
	if err := changes.Render(ctx, w.db, c.Org(), cs); err != nil {
		return nil, nil, err
	}
	body, err := json.Marshal(Payload{Type: msg.Type, Timestamp: msg.CreatedAt.UTC(), Data: cs[0].Data})
	return body, keys, err
}

// key opens a sealed signing secret of the claim's endpoint and returns its
// HMAC key.
func (w *Worker) key(c *store.Claim, sealed []byte) ([]byte, error) {
	secret, err := store.OpenSecret(w.sealer, c.EndpointID, sealed)
	if err != nil {
		return nil, err
	}
	return webhook.SecretKey(secret)
}

// complete records a, an attempt of the claim c, made at (worker clock), of
// the change made at changedAt. A failed attempt is tried again after the
// backoff's wait, or after a.wait (a receiver's Retry-After) when that is
// longer; an answer of 410 Gone fails the delivery and disables its
// endpoint at once, as Standard Webhooks asks (docs/webhooks.md, "Delivery
// and retries").
func (w *Worker) complete(c *store.Claim, changedAt time.Time, at claimTimes, a attempt) {
	took, code, errText, wait := a.took, a.code, a.errText, a.wait
	// The database's clock at the attempt's start (claimTimes.dbNow), so
	// one clock decides the retry window.
	startedDB := at.dbNow(c).Add(-took)
	o := store.Outcome{StartedAt: startedDB, Duration: took, ResponseStatus: code, Error: errText, ChangedAt: changedAt}
	if errText != nil {
		first := startedDB
		if c.FirstFailedAt != nil {
			first = *c.FirstFailedAt
		}
		now := startedDB.Add(took)
		// The backoff's step is the failure's place in the delivery's
		// current window, not in its life: a retry on request or a
		// re-enable opens a fresh window, whose schedule starts again at
		// its first step (docs/webhooks.md, "Delivery and retries").
		n := c.WindowAttempts + 1
		if at, ok := w.backoff.Next(n, first, now); ok {
			o.RetryIn = max(at.Sub(now), wait)
		} else {
			o.GiveUp, o.RetryFor = true, w.backoff.RetryFor
		}
		if code != nil && *code == http.StatusGone {
			// A window of 0: the endpoint's run of failures has lasted
			// it, so giving up disables the endpoint.
			o.GiveUp, o.RetryFor = true, 0
		}
		// The wait should the claim turn out to precede a re-enable of
		// the endpoint (store.Complete): then the delivery has a fresh
		// window, is not given up, and its schedule starts again.
		o.FreshRetryIn = w.backoff.Delay(1, rand.Float64())
	}
	ctx, cancel := context.WithTimeout(telemetry.Untraced(context.Background()), completeTimeout)
	defer cancel()
	done, err := store.Complete(ctx, w.db, c, o)
	if err != nil {
		// The lease runs out and the delivery is sent again: at least once.
		w.log.Warn("webhooks: recording an attempt failed; the delivery will be retried", "delivery_id", c.ID.String(), "error", err.Error())
		return
	}
	sample := took
	if !a.timed {
		sample = 0 // recordAttempt records no duration
	}
	recordAttempt(sample, errText != nil, done, changedAt)
	switch {
	case done.LeaseLost:
		// Another worker may have sent it meanwhile: a receiver sees one
		// webhook-id twice, perhaps at once (docs/webhooks.md, "One in flight").
		w.log.Warn("webhooks: an attempt ended after its lease; another worker may have sent the delivery meanwhile",
			"delivery_id", c.ID.String(), "endpoint_id", c.EndpointID.String(), "took_ms", took.Milliseconds())
	case done.Disabled:
		w.log.Warn("webhooks: a delivery failed for good; its endpoint is disabled", "delivery_id", c.ID.String(), "endpoint_id", c.EndpointID.String())
	case done.GaveUp:
		w.log.Warn("webhooks: a delivery failed for good; its endpoint stays enabled, having succeeded within the retry window",
			"delivery_id", c.ID.String(), "endpoint_id", c.EndpointID.String())
	}
}

// handBack returns a claim unrecorded, due at once: the worker is stopping,
// or dropping the delivery failed (logged).
func (w *Worker) handBack(ctx context.Context, c *store.Claim, err error) {
	if ctx.Err() == nil {
		w.log.Warn("webhooks: a delivery's outcome could not be recorded; handing it back unsent", "delivery_id", c.ID.String(), "error", err.Error())
	}
	w.release(c, 0)
}

// release returns a claim unrecorded, due again after after.
func (w *Worker) release(c *store.Claim, after time.Duration) {
	ctx, cancel := context.WithTimeout(telemetry.Untraced(context.Background()), completeTimeout)
	defer cancel()
	_ = store.Release(ctx, w.db, c, after)
}
