package edge

import (
	"context"
	"errors"
	"net"
)

// Retries returns how many idempotency-record operations r retried after a
// timed-out attempt.
func (r *Redis) Retries() int64 { return r.retries.Load() }

// retried runs op, an idempotency-record operation, under the record bound
// and runs it once more, under a fresh bound, when that attempt timed out
// while the caller's own context is still live. A timeout on a busy pod
// usually means the reply was late, not that Redis is gone; one more attempt
// lets the write proceed instead of refusing it with 503. A refused
// connection or any other error is not retried: an outage is reported at
// once. op learns whether it is the retry, for operations whose retry must
// recognise the effect of a timed-out first attempt (Claim, SetNX).
func (r *Redis) retried(ctx context.Context, op func(ctx context.Context, retry bool) error) error {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		actx, cancel := context.WithTimeout(ctx, r.record)
		err = op(actx, attempt > 0)
		cancel()
		if err == nil || !isTimeout(err) || ctx.Err() != nil || attempt > 0 {
			break
		}
		r.retries.Add(1)
	}
	return r.failed(err)
}

// isTimeout reports whether err is a deadline or socket timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
