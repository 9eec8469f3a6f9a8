package telemetry

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The retention jobs every pod runs in the background, as the
// retention_job label of their series (docs/observability.md, "Retention
// jobs").
const (
	RetentionChangeFeed      = "change_feed"
	RetentionIdempotencyKeys = "idempotency_keys"
	RetentionRequestLog      = "request_log_partitions"
	RetentionWebhookSecrets  = "webhook_secrets"
	// RetentionDeletedEndpoints deletes the deliveries of deleted webhook
	// endpoints.
	RetentionDeletedEndpoints = "webhook_deleted_endpoints"
)

// RetentionJobs are the jobs whose series StartRetentionMetrics exports.
var RetentionJobs = []string{RetentionChangeFeed, RetentionIdempotencyKeys, RetentionRequestLog, RetentionWebhookSecrets,
	RetentionDeletedEndpoints}

// The outcomes of a run: done, failed (to be retried at the next), or
// skipped because another pod held the job's lock and did the work.
const (
	RetentionOK      = "ok"
	RetentionFailed  = "failed"
	RetentionSkipped = "skipped"
)

var (
	retentionOnce    sync.Once
	retentionRuns    metric.Int64Counter
	retentionDeleted metric.Int64Counter
)

func retentionInstruments() {
	retentionOnce.Do(func() {
		m := otel.Meter("github.com/eventapi/eventapi/platform/telemetry")
		retentionRuns, _ = m.Int64Counter("eventapi.retention.runs",
			metric.WithDescription("Runs of the background retention jobs, by job and outcome (ok, failed, skipped: another pod did it)."),
			metric.WithUnit("{run}"))
		retentionDeleted, _ = m.Int64Counter("eventapi.retention.deleted",
			metric.WithDescription("What the retention jobs deleted: rows, partitions for request_log_partitions, endpoints' previous secrets for webhook_secrets."),
			metric.WithUnit("{item}"))
	})
}

// StartRetentionMetrics puts every job's series on /metrics at 0, so that a
// rate() or an alert over them sees the jobs before their first run. Call
// it once the process's meter provider is installed.
func StartRetentionMetrics(ctx context.Context) {
	retentionInstruments()
	for _, job := range RetentionJobs {
		for _, outcome := range []string{RetentionOK, RetentionFailed, RetentionSkipped} {
			retentionRuns.Add(ctx, 0, metric.WithAttributes(attribute.String("retention_job", job), attribute.String("outcome", outcome)))
		}
		retentionDeleted.Add(ctx, 0, metric.WithAttributes(attribute.String("retention_job", job)))
	}
}

// RecordRetention counts one run of job: failed when err is set, else
// outcome (RetentionOK or RetentionSkipped), and what it deleted.
func RecordRetention(ctx context.Context, job, outcome string, deleted int64, err error) {
	retentionInstruments()
	if err != nil {
		outcome = RetentionFailed
	}
	retentionRuns.Add(ctx, 1, metric.WithAttributes(attribute.String("retention_job", job), attribute.String("outcome", outcome)))
	if deleted > 0 {
		retentionDeleted.Add(ctx, deleted, metric.WithAttributes(attribute.String("retention_job", job)))
	}
}
