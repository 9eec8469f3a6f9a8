package delivery

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// The delivery instruments (docs/observability.md). They carry the outcome
// only: never an organization, endpoint or URL, so their cardinality stays
// fixed however many customers register endpoints.
var (
	attemptCounter  metric.Int64Counter
	attemptDuration metric.Float64Histogram
	lagHistogram    metric.Float64Histogram
	dueGauge        metric.Int64ObservableGauge
	// meter made the instruments; a callback must be registered with the
	// meter of its instrument.
	meter metric.Meter
)

// dueLimit caps the due backlog the gauge counts (store.DueCount), and
// dueTimeout bounds its query, which runs on every scrape.
const (
	dueLimit   = 10000
	dueTimeout = time.Second
)

// attemptBuckets are the attempt duration's boundaries, in seconds: those
// of the HTTP server's request duration (telemetry.RequestSeconds) up to
// the default EVENTAPI_WEBHOOK_TIMEOUT of 10 s, so a receiver's latency
// compares with the API's own, then 15, 30 and 60 for a raised timeout (an
// attempt cut by the default timeout is in le="15"). Without boundaries the
// SDK's defaults (0, 5, 10, 25, …, 10000, meant for milliseconds) put
// nearly every attempt in le="5".
var attemptBuckets = append(telemetry.RequestSeconds(), 15, 30, 60)

func init() { bindInstruments() }

// bindInstruments creates the instruments on the global meter provider as
// it is now. The global API forwards instruments made before a provider is
// set to the first one set; a test that sets its own calls this again.
func bindInstruments() {
	m := otel.Meter("github.com/eventapi/eventapi/api/webhooks/delivery")
	meter = m
	attemptCounter, _ = m.Int64Counter("eventapi.webhook.attempts",
		metric.WithDescription("Webhook delivery attempts by outcome: success (2xx), failure (retried later) or gave_up (the delivery's last attempt: it failed for good, and its endpoint is disabled too when none of its deliveries succeeded in the retry window, or on a 410)."),
		metric.WithUnit("{attempt}"))
	attemptDuration, _ = m.Float64Histogram("eventapi.webhook.attempt.duration",
		metric.WithDescription("Time from sending a webhook request to its response or error."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(attemptBuckets...))
	lagHistogram, _ = m.Float64Histogram("eventapi.webhook.delivery.lag",
		metric.WithDescription("Time from a change's created_at (its write, inside the writing transaction) to its successful delivery, by what the delay was spent on: service (the first attempt, to an endpoint without troubles since the change) or receiver (failed attempts, its endpoint failing or disabled)."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400))
	dueGauge, _ = m.Int64ObservableGauge("eventapi.webhook.deliveries.due",
		metric.WithDescription("Deliveries of enabled endpoints due now and not claimed, up to 10000, read from PostgreSQL at each collection: the same for every pod."),
		metric.WithUnit("{delivery}"))
}

// meterBacklog reports the due backlog (dueGauge) from db at each
// collection until the returned function unregisters it. A collection whose
// query fails or times out reports nothing rather than a wrong 0.
func meterBacklog(db *bun.DB) (unregister func()) {
	reg, err := meter.RegisterCallback(
		func(ctx context.Context, o metric.Observer) error {
			ctx, cancel := context.WithTimeout(telemetry.Untraced(ctx), dueTimeout)
			defer cancel()
			n, err := store.DueCount(ctx, db, dueLimit)
			if err == nil {
				o.ObserveInt64(dueGauge, int64(n))
			}
			return nil
		}, dueGauge)
	if err != nil {
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}

// outcome names an attempt's result for the attempts counter.
func outcome(failed, gaveUp bool) string {
	switch {
	case gaveUp:
		return "gave_up"
	case failed:
		return "failure"
	}
	return "success"
}

// countNoAttempts puts every outcome's series on /metrics at 0, so that a
// rate() or an alert over failures sees a series before the first failure.
func countNoAttempts() {
	for _, o := range []string{outcome(false, false), outcome(true, false), outcome(true, true)} {
		attemptCounter.Add(context.Background(), 0, metric.WithAttributes(attribute.String("outcome", o)))
	}
}

// lagWait names, for the lag histogram's wait label, what a delivery's
// delay was spent on: "service" when it came at its first attempt to an
// endpoint without troubles since the change was written, so that the delay
// is the service's own (its queue, its workers, PostgreSQL); "receiver"
// when it waited on its receiver (store.Completed.Waited: failed attempts,
// a run of failures or a disable of its endpoint), whose outage the delay
// holds. EventapiWebhookDeliveryLagging reads "service" only
// (docs/observability.md, "Alerts").
func lagWait(waited bool) string {
	if waited {
		return "receiver"
	}
	return "service"
}

// recordAttempt counts one recorded attempt, and the lag of a success
// recorded on its delivery (done.Attempts > 0; a lease lost or an endpoint
// deleted records none): changedAt is its change's write time (created_at).
func recordAttempt(took time.Duration, failed bool, done store.Completed, changedAt time.Time) {
	ctx := context.Background()
	attemptCounter.Add(ctx, 1, metric.WithAttributes(attribute.String("outcome", outcome(failed, done.GaveUp))))
	if took > 0 {
		attemptDuration.Record(ctx, took.Seconds())
	}
	if !failed && done.Attempts > 0 && !changedAt.IsZero() {
		lagHistogram.Record(ctx, time.Since(changedAt).Seconds(),
			metric.WithAttributes(attribute.String("wait", lagWait(done.Waited))))
	}
}
