package server

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/changes"
	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// RetentionEvery is the period of the hourly retention pass.
const RetentionEvery = time.Hour

// retentionJob is one job of the hourly retention pass: run deletes what
// is past its retention and says how much.
type retentionJob struct {
	name string // its retention_job label (telemetry.Retention*)
	run  func(context.Context, bun.IDB) (int64, error)
	what string // what it deletes, for its log lines
}

// hourlyRetention are the jobs of the pass, in order: changes older than
// changes.Retention; webhook secrets past their grace period; the
// deliveries of deleted webhook endpoints, in batches. A run that finds
// nothing to delete is one index scan (the secrets: one scan of the
// endpoints, a small table; the deleted endpoints: one read of their
// tombstones, usually none).
var hourlyRetention = []retentionJob{
	{telemetry.RetentionChangeFeed, changes.Purge, "changes past the feed's retention"},
	{telemetry.RetentionWebhookSecrets, webhooks.ForgetExpiredSecrets, "webhook endpoints' previous secrets past their grace period"},
	{telemetry.RetentionDeletedEndpoints, webhooks.PurgeDeletedEndpoints, "deliveries of deleted webhook endpoints"},
}

// startRetention runs hourlyRetention now and every RetentionEvery
// until Close; every pod runs it. Each run is counted
// (telemetry.RecordRetention) and a failure logged, to be retried at the
// next pass (docs/observability.md, "Retention jobs").
func (s *Service) startRetention(ctx context.Context) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopRetention, s.retentionDone = cancel, make(chan struct{})
	go func() {
		defer close(s.retentionDone)
		t := time.NewTicker(RetentionEvery)
		defer t.Stop()
		for {
			for _, job := range hourlyRetention {
				s.runRetention(ctx, job)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// runRetention runs job once, counts and logs it; a run cut short by Close
// is neither.
func (s *Service) runRetention(ctx context.Context, job retentionJob) {
	n, err := job.run(ctx, s.DB)
	if ctx.Err() != nil {
		return
	}
	telemetry.RecordRetention(ctx, job.name, telemetry.RetentionOK, n, err)
	switch {
	case err != nil:
		s.Log.Warn("retention: deleting "+job.what+" failed; retrying later", "retention_job", job.name, "error", err.Error())
	case n > 0:
		s.Log.Info("retention: deleted "+job.what, "retention_job", job.name, "deleted", n)
	}
}
