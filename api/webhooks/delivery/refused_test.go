package delivery

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
	"github.com/eventapi/eventapi/tenancy"
)

// TestRefusedAttemptsAreNotTimed: a worker that allows no private address
// refuses a delivery to an http URL before any request leaves. The attempt
// is counted as a failure and recorded in the deliveries list, and is no
// sample of the attempt-duration histogram, whose quantiles are of
// requests made.
func TestRefusedAttemptsAreNotTimed(t *testing.T) {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	bindInstruments()
	defer func() {
		otel.SetMeterProvider(noop.NewMeterProvider())
		bindInstruments()
	}()

	db := pgtest.Open(t)
	org, err := tenancy.CreateOrganization(ctx, db, "Refused", nil)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	// Registered past the URL checks, as an endpoint registered while
	// private addresses were allowed is.
	ep, err := store.CreateEndpoint(ctx, db, tenancy.Tenant{Org: org.OrgID()}, sealer,
		store.NewEndpoint{URL: "http://127.0.0.1:9/hook", EnabledEvents: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO clients (organization_id, name) VALUES (?, 'Refused')", org.ID); err != nil {
		t.Fatal(err)
	}
	var out logtest.Buffer
	cfg := config.Webhook{Workers: 1, PollInterval: 5 * time.Millisecond, Timeout: time.Second, Lease: 2 * time.Second,
		EndpointConcurrency: 1, BackoffBase: time.Hour, BackoffMax: time.Hour, RetryFor: 72 * time.Hour}
	w := Start(db, sealer, telemetry.NewLogger(&out, "info"), cfg)
	defer w.Stop()

	var failures, timed int64
	eventually(t, 10*time.Millisecond, "the refused attempt counted", func() bool {
		failures, timed = attemptMetrics(t, reader)
		return failures > 0
	})
	if failures != 1 || timed != 0 {
		t.Fatalf("%d failures counted, %d timed; want the one refused attempt counted and not timed", failures, timed)
	}
	var text string
	if err := db.NewRaw(`SELECT a.error FROM webhook_delivery_attempts AS a
		JOIN webhook_deliveries AS d ON d.id = a.delivery_id WHERE d.endpoint_id = ?`, ep.ID).Scan(ctx, &text); err != nil {
		t.Fatal(err)
	}
	if text != "refused: the endpoint URL is not https" {
		t.Fatalf("the attempt is listed with error %q", text)
	}
}

// attemptMetrics collects reader's attempts counted as failures and the
// samples of the attempt-duration histogram.
func attemptMetrics(t *testing.T, reader *sdkmetric.ManualReader) (failures, timed int64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				if m.Name != "eventapi.webhook.attempts" {
					continue
				}
				for _, p := range data.DataPoints {
					if v, _ := p.Attributes.Value(attribute.Key("outcome")); v.AsString() == "failure" {
						failures += p.Value
					}
				}
			case metricdata.Histogram[float64]:
				if m.Name != "eventapi.webhook.attempt.duration" {
					continue
				}
				for _, p := range data.DataPoints {
					timed += int64(p.Count)
				}
			}
		}
	}
	return failures, timed
}
