package alertrules

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"
)

// The synthetic hour each scenario's series cover, scraped every 30 s as the
// chart's ServiceMonitor does; alerts are judged at its end (or at the end of
// the last series, for a scenario that runs longer).
const (
	scrape = 30 * time.Second
	hour   = time.Hour
)

// point is one float sample.
type point struct {
	t int64
	f float64
}

func (p point) T() int64                    { return p.t }
func (p point) F() float64                  { return p.f }
func (point) H() *histogram.Histogram       { return nil }
func (point) FH() *histogram.FloatHistogram { return nil }
func (point) Type() chunkenc.ValueType      { return chunkenc.ValFloat }
func (p point) Copy() chunks.Sample         { return p }
func ms(d time.Duration) int64              { return d.Milliseconds() }
func labelsOf(name string, kv ...string) labels.Labels {
	return labels.FromStrings(append([]string{model.MetricNameLabel, name}, kv...)...)
}

// series is one synthetic series: value(t) at every scrape of the hour
// from start until end (a series that stops, as a pod's when it goes).
type series struct {
	labels     labels.Labels
	value      func(t time.Duration) float64
	start, end time.Duration
}

// counter grows by perSecond from the start of the hour.
func counter(perSecond float64, name string, kv ...string) series {
	return series{labels: labelsOf(name, kv...), value: func(t time.Duration) float64 { return perSecond * t.Seconds() }, end: hour}
}

// gauge holds v all hour.
func gauge(v float64, name string, kv ...string) series {
	return series{labels: labelsOf(name, kv...), value: func(time.Duration) float64 { return v }, end: hour}
}

// histogramOf is a classic histogram receiving perSecond observations, all
// of them of about value seconds: its _bucket series at the boundaries, its
// _count and its _sum.
func histogramOf(perSecond, value float64, name string, kv ...string) []series {
	return histogramBetween(perSecond, value, 0, hour, name, kv...)
}

// histogramBetween is histogramOf receiving its observations from start to
// end of the hour only.
func histogramBetween(perSecond, value float64, start, end time.Duration, name string, kv ...string) []series {
	var out []series
	for _, le := range []float64{0.5, 1, 2.5, 5, 10, 60, 300, math.Inf(1)} {
		rate := 0.0
		if value <= le {
			rate = perSecond
		}
		out = append(out, burst(rate, start, end, name+"_bucket", append(slices.Clone(kv), "le", fmt.Sprint(le))...))
	}
	out = append(out, burst(perSecond, start, end, name+"_count", kv...), burst(perSecond*value, start, end, name+"_sum", kv...))
	return out
}

// burst is a counter that grows by perSecond from start to end of the hour
// and is flat before and after: trouble that came and went.
func burst(perSecond float64, start, end time.Duration, name string, kv ...string) series {
	return series{labels: labelsOf(name, kv...), end: hour, value: func(t time.Duration) float64 {
		return perSecond * (min(max(t, start), end) - start).Seconds()
	}}
}

// between keeps s only from start to end of the hour.
func between(start, end time.Duration, s series) series { s.start, s.end = start, end; return s }

// storageOf serves the scenario's series to the engine.
func storageOf(all []series) storage.Queryable {
	return storage.QueryableFunc(func(mint, maxt int64) (storage.Querier, error) {
		return &storage.MockQuerier{SelectMockFunction: func(_ bool, _ *storage.SelectHints, matchers ...*labels.Matcher) storage.SeriesSet {
			var set []storage.Series
			for _, s := range all {
				if !matches(s.labels, matchers) {
					continue
				}
				var samples []chunks.Sample
				for t := s.start; t <= s.end; t += scrape {
					if ms(t) >= mint && ms(t) <= maxt {
						samples = append(samples, point{ms(t), s.value(t)})
					}
				}
				set = append(set, storage.NewListSeries(s.labels, samples))
			}
			return &listSet{series: set, i: -1}
		}}, nil
	})
}

func matches(ls labels.Labels, matchers []*labels.Matcher) bool {
	for _, m := range matchers {
		if !m.Matches(ls.Get(m.Name)) {
			return false
		}
	}
	return true
}

// listSet is a storage.SeriesSet over a slice.
type listSet struct {
	series []storage.Series
	i      int
}

func (l *listSet) Next() bool                      { l.i++; return l.i < len(l.series) }
func (l *listSet) At() storage.Series              { return l.series[l.i] }
func (*listSet) Err() error                        { return nil }
func (*listSet) Warnings() annotations.Annotations { return nil }

// firing reports whether rule fires at the end of the scenario (the hour,
// or the last series' end if later): its expression returned a result at
// every evaluation (one a minute) of the last For.
func firing(t *testing.T, rule Rule, all []series) bool {
	t.Helper()
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 1e6, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	q := storageOf(all)
	end := hour
	for _, s := range all {
		end = max(end, s.end)
	}
	for at := end - rule.For; at <= end; at += time.Minute {
		query, err := engine.NewInstantQuery(context.Background(), q, nil, rule.Expr, time.UnixMilli(ms(at)))
		if err != nil {
			t.Fatalf("%s: %v", rule.Alert, err)
		}
		res := query.Exec(context.Background())
		if res.Err != nil {
			t.Fatalf("%s at %s: %v", rule.Alert, at, res.Err)
		}
		if v, ok := res.Value.(promql.Vector); !ok || len(v) == 0 {
			return false
		}
	}
	return true
}

// The series names and labels below are the ones a scrape of the service
// has (TestAlertRulesReadExportedSeries holds the rules to those); api and
// op are the scrape jobs testMatchers selects.
var (
	api = []string{"job", "api", "namespace", "eventapi"}
	op  = []string{"job", "operator", "namespace", "eventapi"}
)

func with(base []string, kv ...string) []string { return append(slices.Clone(base), kv...) }

// requests is the request histogram's count for one route and status.
func requests(perSecond float64, route, status string) series {
	return counter(perSecond, "http_server_request_duration_seconds_count",
		with(api, "http_route", route, "http_response_status_code", status, "http_response_status_class", status[:1]+"xx")...)
}

func concat(lists ...[]series) []series { return slices.Concat(lists...) }

// runs is one pod's count of a retention job's runs of one outcome: a run
// at each of at, scraped from the pod's start until end. A pod runs its
// jobs at start, before its first scrape, so a run at start is in the
// series' first sample.
func runs(job, outcome, pod string, start, end time.Duration, at ...time.Duration) series {
	return series{labels: labelsOf("eventapi_retention_runs_total", with(api, "pod", pod, "retention_job", job, "outcome", outcome)...),
		start: start, end: end, value: func(t time.Duration) float64 {
			n := 0
			for _, a := range at {
				if a <= t {
					n++
				}
			}
			return float64(n)
		}}
}

// edgeStoreUp is one pod's eventapi_edge_store_up: 0 (its check of Redis
// fails) from down until back, 1 before and after.
func edgeStoreUp(pod string, down, back time.Duration) series {
	return series{labels: labelsOf("eventapi_edge_store_up", with(api, "pod", pod)...), end: hour,
		value: func(t time.Duration) float64 { return boolFloat(t < down || t >= back) }}
}

// databaseUp is one pod's eventapi_database_up: 0 (its check of
// PostgreSQL fails) from down until back, 1 before and after.
func databaseUp(pod string, down, back time.Duration) series {
	return series{labels: labelsOf("eventapi_database_up", with(api, "pod", pod)...), end: hour,
		value: func(t time.Duration) float64 { return boolFloat(t < down || t >= back) }}
}

// TestAlertsFire: each of the chart's alerts fires on the trouble it names,
// once it has lasted its For, and stays quiet on a healthy hour, on a short
// blip, and during what a fleet does every day (a drain's 503s on /readyz,
// one pod of several restarting, a Redis failover). A blip ends late in the
// hour, where firing looks, so that a rule with a shorter For or a longer
// rate window than the file's would fire on it. Every alert of the file has
// a case that fires and one that does not.
func TestAlertsFire(t *testing.T) {
	rules, err := Load(ChartRules, testMatchers)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Rule{}
	for _, r := range rules {
		byName[r.Alert] = r
	}
	up := func(v float64, pod string, job []string) series { return gauge(v, "up", with(job, "pod", pod)...) }
	ok := requests(50, "/api/v2/clients", "200")
	tests := []struct {
		name, alert string
		series      []series
		fires       bool
	}{
		{"every pod down", "EventapiDown", []series{up(0, "a", api), up(0, "b", api)}, true},
		{"no pod scraped at all", "EventapiDown", nil, true},
		{"one pod of two down", "EventapiDown", []series{up(1, "a", api), up(0, "b", api)}, false},
		{"a pod down", "EventapiPodNotScraped", []series{up(1, "a", api), up(0, "b", api)}, true},
		{"a pod restarting for seven minutes", "EventapiPodNotScraped", []series{up(1, "a", api), {labels: labelsOf("up", with(api, "pod", "b")...),
			end: hour, value: func(t time.Duration) float64 { return boolFloat(t < 53*time.Minute) }}}, false},
		{"10% of requests 5xx", "EventapiServerErrors", []series{ok, requests(5.5, "/api/v2/clients", "500")}, true},
		{"1% of requests 5xx", "EventapiServerErrors", []series{ok, requests(0.5, "/api/v2/clients", "503")}, false},
		{"a drain: /readyz answers 503", "EventapiServerErrors", []series{ok, requests(50, "/readyz", "503")}, false},
		{"5xx for the last five minutes", "EventapiServerErrors",
			[]series{ok, between(55*time.Minute, hour, requests(50, "/api/v2/clients", "500"))}, false},
		{"requests take 4 s", "EventapiSlowResponses",
			histogramOf(20, 4, "http_server_request_duration_seconds", with(api, "http_route", "/api/v2/pick_lists/{id}")...), true},
		{"requests take 40 ms", "EventapiSlowResponses",
			histogramOf(20, 0.04, "http_server_request_duration_seconds", with(api, "http_route", "/api/v2/pick_lists/{id}")...), false},
		{"stalled clients' 408s (no route) are slow, requests are not", "EventapiSlowResponses", concat(
			histogramOf(1, 0.04, "http_server_request_duration_seconds", with(api, "http_route", "/api/v2/clients")...),
			histogramOf(0.05, 30, "http_server_request_duration_seconds", with(api, "http_response_status_code", "408")...)), false},
		{"probes are slow, requests are not", "EventapiSlowResponses", concat(
			histogramOf(20, 0.04, "http_server_request_duration_seconds", with(api, "http_route", "/api/v2/clients")...),
			histogramOf(20, 8, "http_server_request_duration_seconds", with(api, "http_route", "/readyz")...)), false},
		{"the limiter fails open", "EventapiRateLimiterFailingOpen", []series{counter(3, "eventapi_ratelimit_fail_open_total", api...)}, true},
		{"the limiter failed open earlier", "EventapiRateLimiterFailingOpen", []series{gauge(120, "eventapi_ratelimit_fail_open_total", api...)}, false},
		{"a Redis failover of 90 s, over", "EventapiRateLimiterFailingOpen",
			[]series{burst(3, 54*time.Minute+30*time.Second, 56*time.Minute, "eventapi_ratelimit_fail_open_total", api...)}, false},
		{"keyed writes refused", "EventapiIdempotencyStoreUnavailable", []series{counter(1, "eventapi_idempotency_unavailable_total", api...)}, true},
		{"no keyed write refused", "EventapiIdempotencyStoreUnavailable", []series{gauge(0, "eventapi_idempotency_unavailable_total", api...)}, false},
		{"a Redis failover of 90 s, over", "EventapiIdempotencyStoreUnavailable",
			[]series{burst(1, 54*time.Minute+30*time.Second, 56*time.Minute, "eventapi_idempotency_unavailable_total", api...)}, false},
		{"Redis down all along for one pod of two", "EventapiRedisUnavailable",
			[]series{edgeStoreUp("a", 0, 0), edgeStoreUp("b", 0, 2*hour)}, true},
		{"Redis down for the last 4 minutes", "EventapiRedisUnavailable", []series{edgeStoreUp("a", 56*time.Minute, 2*hour)}, true},
		{"a Redis failover of 90 s, over", "EventapiRedisUnavailable",
			[]series{edgeStoreUp("a", 54*time.Minute+30*time.Second, 56*time.Minute)}, false},
		{"a Redis failover 150 s in", "EventapiRedisUnavailable",
			[]series{edgeStoreUp("a", 57*time.Minute+30*time.Second, 2*hour)}, false},
		{"Redis up", "EventapiRedisUnavailable", []series{edgeStoreUp("a", 0, 0), edgeStoreUp("b", 0, 0)}, false},
		// Once every pod is out of rotation only the probes reach them: no
		// request alert can fire (a 40-minute outage in a review fired none).
		{"PostgreSQL down for every pod for the last 40 minutes, only probes arriving", "EventapiDatabaseUnavailable", concat(
			[]series{databaseUp("a", 20*time.Minute, 2*hour), databaseUp("b", 20*time.Minute, 2*hour)},
			[]series{between(0, 20*time.Minute, requests(20, "/api/v2/clients", "200"))},
			[]series{requests(0.2, "/readyz", "503")}), true},
		{"the same outage, the request alerts", "EventapiServerErrors", concat(
			[]series{between(0, 20*time.Minute, requests(20, "/api/v2/clients", "200"))},
			[]series{requests(0.2, "/readyz", "503")}), false},
		{"PostgreSQL down for one pod for the last 3 minutes", "EventapiDatabaseUnavailable",
			[]series{databaseUp("a", 57*time.Minute, 2*hour), databaseUp("b", 0, 0)}, true},
		{"a PostgreSQL failover of 60 s, over", "EventapiDatabaseUnavailable",
			[]series{databaseUp("a", 55*time.Minute, 56*time.Minute), databaseUp("b", 55*time.Minute, 56*time.Minute)}, false},
		{"a PostgreSQL failover 90 s in", "EventapiDatabaseUnavailable",
			[]series{databaseUp("a", 58*time.Minute+30*time.Second, 2*hour)}, false},
		{"PostgreSQL up, one pod draining", "EventapiDatabaseUnavailable", concat(
			[]series{databaseUp("a", 0, 0), databaseUp("b", 0, 0)},
			[]series{between(55*time.Minute, 56*time.Minute, requests(0.2, "/readyz", "503"))}), false},
		{"records dropped", "EventapiRequestLogDropping", []series{counter(40, "eventapi_request_log_dropped_total", with(api, "reason", "buffer_full")...)}, true},
		{"no record dropped", "EventapiRequestLogDropping", []series{gauge(0, "eventapi_request_log_dropped_total", with(api, "reason", "buffer_full")...)}, false},
		{"drops for 90 s, over", "EventapiRequestLogDropping",
			[]series{burst(40, 49*time.Minute+30*time.Second, 51*time.Minute, "eventapi_request_log_dropped_total", with(api, "reason", "buffer_full")...)}, false},
		{"a retention job failing all along", "EventapiRetentionFailing", []series{
			counter(1.0/600, "eventapi_retention_runs_total", with(api, "retention_job", "change_feed", "outcome", "failed")...),
			gauge(0, "eventapi_retention_runs_total", with(api, "retention_job", "change_feed", "outcome", "ok")...)}, true},
		{"another pod skipping while the lock holder fails", "EventapiRetentionFailing", []series{
			counter(1.0/1200, "eventapi_retention_runs_total", with(api, "pod", "a", "retention_job", "request_log_partitions", "outcome", "failed")...),
			counter(1.0/1200, "eventapi_retention_runs_total", with(api, "pod", "b", "retention_job", "request_log_partitions", "outcome", "skipped")...)}, true},
		{"a retention job failing once, then done", "EventapiRetentionFailing", []series{
			burst(1.0/60, 10*time.Minute, 11*time.Minute, "eventapi_retention_runs_total", with(api, "retention_job", "change_feed", "outcome", "failed")...),
			burst(1.0/60, 40*time.Minute, 41*time.Minute, "eventapi_retention_runs_total", with(api, "retention_job", "change_feed", "outcome", "ok")...)}, false},
		{"retention jobs done", "EventapiRetentionFailing", []series{
			counter(1.0/600, "eventapi_retention_runs_total", with(api, "retention_job", "idempotency_keys", "outcome", "ok")...),
			gauge(0, "eventapi_retention_runs_total", with(api, "retention_job", "idempotency_keys", "outcome", "failed")...)}, false},
		// A pod's runs at start are in its series' first sample (runs), which
		// increase() alone never counted: these run past the hour, to the
		// time the alert should (or should not yet) fire.
		{"a job broken at deploy: the pod's first run and the next failed, 75 min on", "EventapiRetentionFailing", []series{
			runs("change_feed", "failed", "a", 0, 75*time.Minute, 0, hour),
			runs("change_feed", "ok", "a", 0, 75*time.Minute)}, true},
		{"a job broken at deploy: the pod's first run and the next failed, 74 min on", "EventapiRetentionFailing", []series{
			runs("change_feed", "failed", "a", 0, 74*time.Minute, 0, hour),
			runs("change_feed", "ok", "a", 0, 74*time.Minute)}, false},
		{"pods replaced before their second run, each one's first run failing", "EventapiRetentionFailing", []series{
			runs("change_feed", "failed", "a", 0, 40*time.Minute, 0), runs("change_feed", "ok", "a", 0, 40*time.Minute),
			runs("change_feed", "failed", "b", 40*time.Minute, 70*time.Minute, 40*time.Minute),
			runs("change_feed", "ok", "b", 40*time.Minute, 70*time.Minute)}, true},
		{"a rollout onto a broken job, 15 min after the replaced pod's last completed run left the 150 min", "EventapiRetentionFailing", []series{
			runs("change_feed", "ok", "a", 0, 70*time.Minute, 0, hour), runs("change_feed", "failed", "a", 0, 70*time.Minute),
			runs("change_feed", "failed", "b", 70*time.Minute, 225*time.Minute, 70*time.Minute, 130*time.Minute, 190*time.Minute),
			runs("change_feed", "ok", "b", 70*time.Minute, 225*time.Minute)}, true},
		{"a rollout onto a broken job while the replaced pod's completed run is in the 150 min", "EventapiRetentionFailing", []series{
			runs("change_feed", "ok", "a", 0, 70*time.Minute, 0, hour), runs("change_feed", "failed", "a", 0, 70*time.Minute),
			runs("change_feed", "failed", "b", 70*time.Minute, 205*time.Minute, 70*time.Minute, 130*time.Minute, 190*time.Minute),
			runs("change_feed", "ok", "b", 70*time.Minute, 205*time.Minute)}, false},
		{"failing hourly from the pod's first run, one completed between", "EventapiRetentionFailing", []series{
			runs("change_feed", "failed", "a", 0, 195*time.Minute, 0, 2*hour, 3*hour),
			runs("change_feed", "ok", "a", 0, 195*time.Minute, hour)}, false},
		{"a failing pod replaced by one whose first run completed", "EventapiRetentionFailing", []series{
			runs("change_feed", "failed", "a", 0, 50*time.Minute, 0, 30*time.Minute), runs("change_feed", "ok", "a", 0, 50*time.Minute),
			runs("change_feed", "failed", "b", 50*time.Minute, 75*time.Minute), runs("change_feed", "ok", "b", 50*time.Minute, 75*time.Minute, 50*time.Minute)}, false},
		{"each pod's run failed once (PostgreSQL down for 10 minutes), their runs before completed", "EventapiRetentionFailing", []series{
			runs("change_feed", "ok", "a", 0, 178*time.Minute, 0, hour), runs("change_feed", "failed", "a", 0, 178*time.Minute, 2*hour),
			runs("change_feed", "ok", "b", 10*time.Minute, 178*time.Minute, 10*time.Minute, 70*time.Minute),
			runs("change_feed", "failed", "b", 10*time.Minute, 178*time.Minute, 130*time.Minute)}, false},
		{"two failures long ago, only skipped runs since", "EventapiRetentionFailing", []series{
			runs("request_log_partitions", "failed", "a", 0, 4*hour, 0, hour),
			runs("request_log_partitions", "skipped", "a", 0, 4*hour, 2*hour, 3*hour, 4*hour),
			runs("request_log_partitions", "ok", "a", 0, 4*hour)}, false},
		{"19 of 20 connections in use", "EventapiDatabasePoolExhausted", []series{
			gauge(19, "go_sql_connections_in_use", with(api, "pod", "a", "db_system", "postgresql")...),
			gauge(20, "go_sql_connections_max_open", with(api, "pod", "a", "db_system", "postgresql")...)}, true},
		{"5 of 20 connections in use", "EventapiDatabasePoolExhausted", []series{
			gauge(5, "go_sql_connections_in_use", with(api, "pod", "a", "db_system", "postgresql")...),
			gauge(20, "go_sql_connections_max_open", with(api, "pod", "a", "db_system", "postgresql")...)}, false},
		{"large reads wait", "EventapiLargeReadsQueueing", []series{gauge(3, "eventapi_large_reads_waiting", with(api, "pod", "a")...)}, true},
		{"no large read waits", "EventapiLargeReadsQueueing", []series{gauge(0, "eventapi_large_reads_waiting", with(api, "pod", "a")...)}, false},
		{"writes wait", "EventapiWritesQueueing", []series{gauge(2, "eventapi_writes_waiting", with(api, "pod", "a")...)}, true},
		{"no write waits", "EventapiWritesQueueing", []series{gauge(0, "eventapi_writes_waiting", with(api, "pod", "a")...)}, false},
		{"webhooks arrive after two minutes", "EventapiWebhookDeliveryLagging",
			histogramOf(5, 120, "eventapi_webhook_delivery_lag_seconds", with(api, "wait", "service")...), true},
		{"webhooks arrive within a second", "EventapiWebhookDeliveryLagging",
			histogramOf(5, 0.3, "eventapi_webhook_delivery_lag_seconds", with(api, "wait", "service")...), false},
		{"a few webhooks late: the median is not", "EventapiWebhookDeliveryLagging", concat(
			histogramOf(5, 0.3, "eventapi_webhook_delivery_lag_seconds", with(api, "pod", "a", "wait", "service")...),
			histogramOf(1, 250, "eventapi_webhook_delivery_lag_seconds", with(api, "pod", "b", "wait", "service")...)), false},
		// The median is over deliveries that did not wait on their
		// receiver: one customer's endpoint that comes back after an
		// outage and drains its backlog (2 a minute, each 10 minutes late)
		// does not move it, even where the others' deliveries are fewer.
		{"one endpoint drains its backlog after an outage on a quiet installation (1 delivery a minute)", "EventapiWebhookDeliveryLagging", concat(
			histogramOf(1.0/60, 0.3, "eventapi_webhook_delivery_lag_seconds", with(api, "pod", "a", "wait", "service")...),
			histogramBetween(2.0/60, 600, 35*time.Minute, hour, "eventapi_webhook_delivery_lag_seconds", with(api, "pod", "b", "wait", "receiver")...)), false},
		{"deliveries that waited on their receivers only, all late", "EventapiWebhookDeliveryLagging",
			histogramOf(5, 600, "eventapi_webhook_delivery_lag_seconds", with(api, "wait", "receiver")...), false},
		// A slow endpoint holds its first attempts behind its concurrency
		// cap: on a quiet installation they are the median.
		{"first attempts held back on a quiet installation (1 delivery a minute)", "EventapiWebhookDeliveryLagging", concat(
			histogramOf(1.0/60, 0.3, "eventapi_webhook_delivery_lag_seconds", with(api, "pod", "a", "wait", "service")...),
			histogramBetween(2.0/60, 600, 35*time.Minute, hour, "eventapi_webhook_delivery_lag_seconds", with(api, "pod", "b", "wait", "service")...)), true},
		{"first attempts held back among 1 delivery a second", "EventapiWebhookDeliveryLagging", concat(
			histogramOf(1, 0.3, "eventapi_webhook_delivery_lag_seconds", with(api, "pod", "a", "wait", "service")...),
			histogramBetween(2.0/60, 600, 35*time.Minute, hour, "eventapi_webhook_delivery_lag_seconds", with(api, "pod", "b", "wait", "service")...)), false},
		{"deliveries due, none attempted", "EventapiWebhookDeliveryStalled", []series{
			gauge(12, "eventapi_webhook_deliveries_due", with(api, "pod", "a")...),
			gauge(40, "eventapi_webhook_attempts_total", with(api, "pod", "a", "outcome", "success")...)}, true},
		{"deliveries due, no pod delivering at all", "EventapiWebhookDeliveryStalled",
			[]series{gauge(12, "eventapi_webhook_deliveries_due", with(api, "pod", "a")...)}, true},
		{"deliveries due while attempts go on (an endpoint at its cap)", "EventapiWebhookDeliveryStalled", []series{
			gauge(12, "eventapi_webhook_deliveries_due", with(api, "pod", "a")...),
			counter(2, "eventapi_webhook_attempts_total", with(api, "pod", "a", "outcome", "success")...)}, false},
		{"nothing due, nothing attempted", "EventapiWebhookDeliveryStalled", []series{
			gauge(0, "eventapi_webhook_deliveries_due", with(api, "pod", "a")...),
			gauge(40, "eventapi_webhook_attempts_total", with(api, "pod", "a", "outcome", "success")...)}, false},
		{"the operator not scraped", "EventapiOperatorDown", nil, true},
		{"the operator up", "EventapiOperatorDown", []series{up(1, "o", op)}, false},
		{"an ApiKey not ready for the hour", "EventapiOperatorResourcesNotReady",
			[]series{gauge(1, "eventapi_operator_resources", with(op, "kind", "ApiKey", "ready", "false", "reason", "SecretConflict")...)}, true},
		{"every resource ready", "EventapiOperatorResourcesNotReady",
			[]series{gauge(3, "eventapi_operator_resources", with(op, "kind", "ApiKey", "ready", "true", "reason", "KeyIssued")...)}, false},
		{"an ApiKey not ready for 20 minutes (the database restarting)", "EventapiOperatorResourcesNotReady",
			[]series{between(40*time.Minute, hour, gauge(1, "eventapi_operator_resources", with(op, "kind", "ApiKey", "ready", "false", "reason", "DatabaseError")...))}, false},
		{"an ApiKey expired, as its spec said", "EventapiOperatorResourcesNotReady",
			[]series{gauge(1, "eventapi_operator_resources", with(op, "kind", "ApiKey", "ready", "false", "reason", "Expired")...)}, false},
		{"reconciles failing", "EventapiOperatorReconcileErrors",
			[]series{counter(0.2, "controller_runtime_reconcile_errors_total", with(op, "controller", "apikey")...)}, true},
		{"no reconcile failing", "EventapiOperatorReconcileErrors",
			[]series{gauge(2, "controller_runtime_reconcile_errors_total", with(op, "controller", "apikey")...)}, false},
		{"one reconcile failed, its retry mended it", "EventapiOperatorReconcileErrors",
			[]series{burst(1, 41*time.Minute, 41*time.Minute+time.Second, "controller_runtime_reconcile_errors_total", with(op, "controller", "apikey")...)}, false},
	}
	covered := map[string][2]bool{}
	for _, tt := range tests {
		t.Run(tt.alert+"/"+tt.name, func(t *testing.T) {
			rule, ok := byName[tt.alert]
			if !ok {
				t.Fatalf("no alert %s in %s", tt.alert, ChartRules)
			}
			if got := firing(t, rule, tt.series); got != tt.fires {
				t.Fatalf("fires = %v, want %v\n%s", got, tt.fires, rule.Expr)
			}
		})
		c := covered[tt.alert]
		c[boolIndex(tt.fires)] = true
		covered[tt.alert] = c
	}
	for _, r := range rules {
		if c := covered[r.Alert]; !c[0] || !c[1] {
			t.Errorf("%s: no case where it fires and one where it does not (%v)", r.Alert, c)
		}
	}
}

func boolFloat(b bool) float64 { return float64(boolIndex(b)) }

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
