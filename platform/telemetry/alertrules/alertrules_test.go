package alertrules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// ChartRules is the chart's rule file, from this package's directory.
const ChartRules = "../../../charts/eventapi/alerts/eventapi.rules.yaml"

var testMatchers = map[string]string{API: `job="api"`, Operator: `job="operator"`}

func TestTheChartsRulesLoad(t *testing.T) {
	rules, err := Load(ChartRules, testMatchers)
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]int{}
	for _, r := range rules {
		if r.Target == "" || len(r.Metrics) == 0 {
			t.Errorf("%s: target %q, metrics %v", r.Alert, r.Target, r.Metrics)
		}
		targets[r.Target]++
	}
	if targets[API] == 0 || targets[Operator] == 0 {
		t.Errorf("rules per target: %v", targets)
	}
}

func writeRules(t *testing.T, expr, summary string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rules.yaml")
	body := "groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: '" + expr + "'\n        annotations:\n          summary: '" + summary + "'\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadRefuses(t *testing.T) {
	for _, tt := range []struct{ name, expr, summary, says string }{
		{"an unfilled placeholder", `up{__NOT_FILLED__} == 0`, "s", "parse error"},
		{"a bad expression", `sum(rate(x[5m]) > 0`, "s", "parse error"},
		{"a bad annotation template", `up{__API__} == 0`, "{{ $labels.pod ", "template"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeRules(t, tt.expr, tt.summary), testMatchers)
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Load = %v, want an error saying %q", err, tt.says)
			}
		})
	}
	if _, err := Load(writeRules(t, `up{__API__} == 0`, "s"), map[string]string{API: `job="x"`, Operator: `job="x"`}); err == nil {
		t.Fatal("Load accepted one matcher for two placeholders")
	}
}

func newFamily(name string, typ dto.MetricType, labels ...string) *dto.MetricFamily {
	m := &dto.Metric{}
	for _, l := range labels {
		m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(l), Value: proto.String("v")})
	}
	return &dto.MetricFamily{Name: proto.String(name), Type: typ.Enum(), Metric: []*dto.Metric{m}}
}

func TestMissing(t *testing.T) {
	families := map[string]*dto.MetricFamily{
		"requests_seconds": newFamily("requests_seconds", dto.MetricType_HISTOGRAM, "route", "status_class"),
		"errors_total":     newFamily("errors_total", dto.MetricType_COUNTER, "reason"),
		"pool_in_use":      newFamily("pool_in_use", dto.MetricType_GAUGE),
		"pool_max":         newFamily("pool_max", dto.MetricType_GAUGE),
	}
	for _, tt := range []struct {
		name, expr string
		missing    []string
	}{
		{"a counter with its label", `sum by (reason) (rate(errors_total{__API__, reason="x"}[5m])) > 0`, nil},
		{"a histogram's series", `histogram_quantile(0.99, sum by (le, route) (rate(requests_seconds_bucket{__API__}[5m]))) > 1 or requests_seconds_count{__API__} > 0`, nil},
		{"Prometheus's up and the scrape labels", `max by (pod, namespace) (up{__API__}) == 0`, nil},
		{"a renamed counter", `rate(errors_count{__API__}[5m]) > 0`, []string{"A: no series errors_count"}},
		{"a counter's suffix is not a histogram's", `rate(errors_total_count{__API__}[5m]) > 0`, []string{"A: no series errors_total_count"}},
		{"a label no series carries", `sum by (code) (rate(errors_total{__API__}[5m])) > 0`, []string{"A: no label code on errors_total"}},
		{"a label in a matcher", `rate(errors_total{__API__, outcome="x"}[5m]) > 0`, []string{"A: no label outcome on errors_total"}},
		{"a join label", `pool_in_use{__API__} / on (db) pool_max{__API__} > 0.9`, []string{"A: no label db on pool_in_use, pool_max"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := Load(writeRules(t, tt.expr, "s"), testMatchers)
			if err != nil {
				t.Fatal(err)
			}
			if got := Missing(rules, API, families); !slices.Equal(got, tt.missing) {
				t.Fatalf("Missing = %q, want %q", got, tt.missing)
			}
			if got := Missing(rules, Operator, families); len(got) != 0 {
				t.Fatalf("Missing for another target = %q, want none", got)
			}
		})
	}
}
