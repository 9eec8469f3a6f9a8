package webhook

import (
	"math/rand/v2"
	"time"
)

// Backoff is the retry schedule of a failed delivery: exponential backoff
// with full jitter. After the n-th failed attempt (n >= 1) the next attempt
// waits a uniformly random time in [0, Ceiling(n)], where
// Ceiling(n) = min(Base·2^(n−1), Max). Retries go on until RetryFor has
// passed since the delivery's first failure (docs/webhooks.md).
type Backoff struct {
	Base     time.Duration
	Max      time.Duration
	RetryFor time.Duration
}

// DefaultBackoff is the schedule when EVENTAPI_WEBHOOK_BACKOFF_BASE,
// _BACKOFF_MAX and _RETRY_FOR are unset (platform/config reads them with
// these defaults): ceilings 5 s, 10 s, 20 s, … up to 12 h from the 15th
// failure on, for 3 days.
var DefaultBackoff = Backoff{Base: 5 * time.Second, Max: 12 * time.Hour, RetryFor: 72 * time.Hour}

// Ceiling is the longest wait after the n-th failed attempt.
func (b Backoff) Ceiling(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	d := b.Base
	for i := 1; i < n; i++ {
		if d >= b.Max/2 {
			return b.Max
		}
		d *= 2
	}
	return min(d, b.Max)
}

// Delay draws the wait after the n-th failed attempt; r in [0, 1) is the
// random draw (Next draws it).
func (b Backoff) Delay(n int, r float64) time.Duration {
	return time.Duration(r * float64(b.Ceiling(n)))
}

// Next returns when to try again after the n-th failed attempt at now, and
// false when the delivery has failed for good: RetryFor has passed since
// firstFailure. A wait that would end past that deadline is cut to it, so
// the last attempt is made at the deadline: giving up as soon as a drawn
// wait crossed it disabled endpoints up to Max (12 h) before the 3 days
// (docs/webhooks.md, "Delivery").
func (b Backoff) Next(n int, firstFailure, now time.Time) (time.Time, bool) {
	return b.next(n, firstFailure, now, rand.Float64())
}

// next is Next with the random draw r in [0, 1) given.
func (b Backoff) next(n int, firstFailure, now time.Time, r float64) (time.Time, bool) {
	deadline := firstFailure.Add(b.RetryFor)
	if !now.Before(deadline) {
		return time.Time{}, false
	}
	at := now.Add(b.Delay(n, r))
	if at.After(deadline) {
		at = deadline
	}
	return at, true
}
