package idempotency

import (
	"context"
	"time"

	keys "github.com/eventapi/eventapi/api/storage/idempotency"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// purgeBatch is how many expired rows one statement of the purge deletes.
const purgeBatch = 10_000

// purgeTimeout bounds one purge.
const purgeTimeout = time.Minute

// maybePurge deletes expired rows in the background at most once per
// PurgeEvery in this process. A purge cut short by Close is neither
// counted nor logged.
func (m *Middleware) maybePurge() {
	now := time.Now().UnixNano()
	next := m.nextPurge.Load()
	if now < next || !m.nextPurge.CompareAndSwap(next, now+m.PurgeEvery.Nanoseconds()) {
		return
	}
	m.background.start(func(closing context.Context) {
		ctx, cancel := context.WithTimeout(closing, purgeTimeout)
		defer cancel()
		n, err := keys.Purge(ctx, m.DB, m.Retention, purgeBatch)
		if closing.Err() != nil {
			return
		}
		telemetry.RecordRetention(ctx, telemetry.RetentionIdempotencyKeys, telemetry.RetentionOK, n, err)
		if err != nil {
			m.Log.Warn("idempotency: purge of expired keys failed", "error", err.Error())
			return
		}
		if n > 0 {
			m.Log.Info("idempotency: purged expired keys", "rows", n)
		}
	})
}
