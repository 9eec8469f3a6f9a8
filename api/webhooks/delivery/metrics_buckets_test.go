package delivery

import (
	"context"
	"math"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric/noop"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// TestAttemptDurationHasSecondsBuckets scrapes /metrics, served as serve
// serves it (telemetry.SetupPrometheusMetrics, ServeMetrics), after two
// attempts of 0.3 s and 12 s: the attempt-duration histogram has boundaries
// in seconds up to a minute, the 0.3 s attempt in le="0.5" and not in
// le="0.25", the 12 s one (past the default 10 s timeout) only from
// le="15". The SDK's default boundaries (0, 5, 10, 25, … 10000, meant for
// milliseconds) would put both in le="10" and below.
func TestAttemptDurationHasSecondsBuckets(t *testing.T) {
	// The package's instruments are made again on this test's provider,
	// and again on a no-op one at its end, so the test holds however often
	// it runs (-count) and whatever set a provider before it.
	m, err := telemetry.SetupPrometheusMetrics(context.Background(), "delivery-test")
	if err != nil {
		t.Fatal(err)
	}
	bindInstruments()
	defer func() {
		otel.SetMeterProvider(noop.NewMeterProvider())
		bindInstruments()
	}()
	defer m.Shutdown(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { _ = telemetry.ServeMetrics(ctx, ln, m.Handler) }()

	recordAttempt(300*time.Millisecond, false, store.Completed{Attempts: 1}, time.Time{})
	recordAttempt(12*time.Second, true, store.Completed{}, time.Time{})

	res, err := http.Get("http://" + ln.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text: %v", err)
	}
	const name = "eventapi_webhook_attempt_duration_seconds"
	fam := fams[name]
	if fam == nil || len(fam.GetMetric()) != 1 {
		t.Fatalf("%s: %v", name, fam)
	}
	h := fam.GetMetric()[0].GetHistogram()
	cumulative := map[float64]uint64{}
	var bounds []float64
	for _, b := range h.GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
		cumulative[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	want := []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 15, 30, 60, math.Inf(1)}
	if len(bounds) != len(want) {
		t.Fatalf("%s le boundaries %v, want %v", name, bounds, want)
	}
	for i := range want {
		if bounds[i] != want[i] {
			t.Fatalf("%s le boundaries %v, want %v", name, bounds, want)
		}
	}
	for le, n := range map[float64]uint64{0.25: 0, 0.5: 1, 10: 1, 15: 2, 60: 2} {
		if cumulative[le] != n {
			t.Errorf(`%s{le="%v"} = %d, want %d`, name, le, cumulative[le], n)
		}
	}
	if h.GetSampleCount() != 2 {
		t.Errorf("%s_count = %d, want 2", name, h.GetSampleCount())
	}
}
