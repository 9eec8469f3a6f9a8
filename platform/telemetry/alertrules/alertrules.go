// Package alertrules reads the chart's Prometheus alerting rules
// (charts/eventapi/alerts/eventapi.rules.yaml) as Prometheus loads a rule
// file, and holds each expression to the series a scrape really exports,
// so that a renamed metric or label fails a test instead of silencing an
// alert; its tests also evaluate every rule over synthetic series with
// Prometheus's query engine (TestAlertsFire), and hold the chart's Grafana
// dashboard to the same selectors and to units that fit its queries
// (TestDashboardQueries); DashboardQueries reads the panels' queries so
// that Missing holds them to a scrape too. The rules name their scrape jobs by placeholders (API, Operator)
// that the chart's template fills in; Load fills them with the matchers a
// test gives. docs/observability.md, "Alerts", describes the rules.
package alertrules

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

// The placeholders of the rule file for the label matchers of the API
// pods' and the operator's scrape jobs.
const (
	API      = "__API__"
	Operator = "__OPERATOR__"
)

// ScrapeLabels are the labels Prometheus adds to every series it scrapes
// through a ServiceMonitor (the target's), which no exposition carries.
var ScrapeLabels = []string{"job", "instance", "namespace", "pod", "service", "container", "endpoint"}

// Rule is one alerting rule and what its expression reads.
type Rule struct {
	Alert, Expr string
	// For is how long the expression must hold before the alert fires.
	For time.Duration
	// Target is the placeholder the expression selects by (API or
	// Operator).
	Target string
	// Metrics are the series names the expression selects; Labels the
	// label names it matches on or groups by.
	Metrics, Labels []string
}

// Load reads the rule file at path, fills in each placeholder with its
// matchers (for example API: `job="eventapi-metrics"`; each placeholder's
// must differ, since a rule's Target is told by them), and validates the
// result as Prometheus does (rulefmt: the file's shape, each expression,
// each annotation's template). A placeholder left unfilled is an error.
func Load(path string, matchers map[string]string) ([]Rule, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(raw)
	seen := map[string]string{}
	for placeholder, m := range matchers {
		if other, ok := seen[m]; ok {
			return nil, fmt.Errorf("%s and %s are given the same matchers %s", other, placeholder, m)
		}
		seen[m] = placeholder
		text = strings.ReplaceAll(text, placeholder, m)
	}
	groups, errs := rulefmt.Parse([]byte(text), false, model.UTF8Validation)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", path, errs[0])
	}
	var rules []Rule
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			expr, err := parser.ParseExpr(r.Expr)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", path, r.Alert, err)
			}
			rule := Rule{Alert: r.Alert, Expr: r.Expr, For: time.Duration(r.For)}
			for placeholder, m := range matchers {
				if strings.Contains(r.Expr, m) {
					rule.Target = placeholder
				}
			}
			rule.Metrics, rule.Labels = reads(expr)
			rules = append(rules, rule)
		}
	}
	return rules, nil
}

// reads lists the series names an expression selects and the label names
// it matches on, groups by or joins on.
func reads(expr parser.Expr) (metrics, labels []string) {
	add := func(list *[]string, names ...string) {
		for _, n := range names {
			if n != "" && n != model.MetricNameLabel && !slices.Contains(*list, n) {
				*list = append(*list, n)
			}
		}
	}
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			add(&metrics, n.Name)
			for _, m := range n.LabelMatchers {
				add(&labels, m.Name)
			}
		case *parser.AggregateExpr:
			add(&labels, n.Grouping...)
		case *parser.BinaryExpr:
			if n.VectorMatching != nil {
				add(&labels, n.VectorMatching.MatchingLabels...)
				add(&labels, n.VectorMatching.Include...)
			}
		}
		return nil
	})
	return metrics, labels
}

// Missing returns what the rules of target read that families (one
// scrape's, by family name) do not export: a series name no family
// answers, or a label name that none of the rule's series carries and
// Prometheus does not add (ScrapeLabels). A histogram's series are its
// family's name with _bucket, _count or _sum; "up" is Prometheus's own.
func Missing(rules []Rule, target string, families map[string]*dto.MetricFamily) []string {
	var missing []string
	for _, r := range rules {
		if r.Target != target {
			continue
		}
		have := map[string]bool{}
		for _, l := range ScrapeLabels {
			have[l] = true
		}
		for _, name := range r.Metrics {
			if name == "up" {
				continue
			}
			fam := family(families, name)
			if fam == nil {
				missing = append(missing, fmt.Sprintf("%s: no series %s", r.Alert, name))
				continue
			}
			for _, m := range fam.GetMetric() {
				for _, l := range m.GetLabel() {
					have[l.GetName()] = true
				}
			}
			if fam.GetType() == dto.MetricType_HISTOGRAM {
				have["le"] = true
			}
		}
		for _, l := range r.Labels {
			if !have[l] {
				missing = append(missing, fmt.Sprintf("%s: no label %s on %s", r.Alert, l, strings.Join(r.Metrics, ", ")))
			}
		}
	}
	return missing
}

// family is the family that exports series name: the family of that name,
// or the histogram whose _bucket, _count or _sum series it is.
func family(families map[string]*dto.MetricFamily, name string) *dto.MetricFamily {
	if f := families[name]; f != nil {
		return f
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f := families[base]; f != nil && f.GetType() == dto.MetricType_HISTOGRAM {
				return f
			}
		}
	}
	return nil
}
