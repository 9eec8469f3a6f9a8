package idempotency

import (
	"context"
	"time"

	"github.com/eventapi/eventapi/platform/telemetry"
)

// purgeBatch is how many expired rows one statement of the purge deletes.
const purgeBatch = 10_000

// maybePurge deletes expired rows in the background at most once per
// PurgeEvery in this process.
func (m *middleware) maybePurge() {
	now := time.Now().UnixNano()
	next := m.nextPurge.Load()
	if now < next || !m.nextPurge.CompareAndSwap(next, now+m.PurgeEvery.Nanoseconds()) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		n, err := purge(ctx, m.DB, m.Retention, purgeBatch)
		telemetry.RecordRetention(ctx, telemetry.RetentionIdempotencyKeys, telemetry.RetentionOK, n, err)
		if err != nil {
			m.Log.Warn("idempotency: purge of expired keys failed", "error", err.Error())
			return
		}
		if n > 0 {
			m.Log.Info("idempotency: purged expired keys", "rows", n)
		}
	}()
}
