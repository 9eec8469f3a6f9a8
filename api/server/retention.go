package server

import (
	"context"
	"time"

	"github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/api/storage/webhooks"
)

// FeedPurgeEvery is the period of the change feed's retention purge.
const FeedPurgeEvery = time.Hour

// startFeedRetention deletes changes older than changes.Retention, and
// erases webhook secrets past their grace period
// (webhooks.ForgetExpiredSecrets), now and every FeedPurgeEvery until
// Close; every pod runs it, and a purge that finds nothing to delete is one
// index scan (the secrets: one scan of the endpoints, a small table).
func (s *Service) startFeedRetention(ctx context.Context) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopRetention, s.retentionDone = cancel, make(chan struct{})
	go func() {
		defer close(s.retentionDone)
		t := time.NewTicker(FeedPurgeEvery)
		defer t.Stop()
		for {
			if n, err := changes.Purge(ctx, s.DB); err != nil && ctx.Err() == nil {
				s.Log.Warn("change feed: retention purge failed; retrying later", "error", err.Error())
			} else if n > 0 {
				s.Log.Info("change feed: purged changes past retention", "deleted", n)
			}
			if n, err := webhooks.ForgetExpiredSecrets(ctx, s.DB); err != nil && ctx.Err() == nil {
				s.Log.Warn("webhooks: erasing expired previous secrets failed; retrying later", "error", err.Error())
			} else if n > 0 {
				s.Log.Info("webhooks: erased previous secrets past their grace period", "endpoints", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}
