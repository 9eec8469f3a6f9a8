package alertrules

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// ChartDashboard is the chart's Grafana dashboard, from this package's
// directory.
const ChartDashboard = "../../../charts/eventapi/dashboards/eventapi.json"

// dashboard is what the tests read of a Grafana dashboard.
type dashboard struct {
	Templating struct {
		List []struct {
			Name, Type, Query string
			Multi, IncludeAll bool
			AllValue          *string `json:"allValue"`
		}
	}
	Panels []struct {
		Title       string
		FieldConfig struct {
			Defaults struct {
				Unit string
			}
			Overrides []struct {
				Matcher struct {
					ID      string
					Options string
				}
				Properties []struct {
					ID    string
					Value any
				}
			}
		}
		Targets []struct {
			RefID string
			Expr  string
		}
	}
}

func loadDashboard(t *testing.T) dashboard {
	t.Helper()
	raw, err := os.ReadFile(ChartDashboard)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// parseTarget parses a panel query as Prometheus will once Grafana has
// put in its interval.
func parseTarget(t *testing.T, expr string) parser.Expr {
	t.Helper()
	e, err := parser.ParseExpr(strings.ReplaceAll(expr, "$__rate_interval", "5m"))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return e
}

func selectors(e parser.Expr) []*parser.VectorSelector {
	var out []*parser.VectorSelector
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			out = append(out, vs)
		}
		return nil
	})
	return out
}

func matcher(vs *parser.VectorSelector, name string) *labels.Matcher {
	for _, m := range vs.LabelMatchers {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// TestDashboardVariables: the namespace variable lists the namespaces of
// the release's service, the job variable the jobs of the chosen
// namespaces; All is the listed values, never every series (docs/helm.md,
// "Several releases": releases of one name in several namespaces share
// their job name).
func TestDashboardVariables(t *testing.T) {
	vars := map[string]string{}
	for _, v := range loadDashboard(t).Templating.List {
		if v.Type != "query" {
			continue
		}
		vars[v.Name] = v.Query
		if !v.Multi || !v.IncludeAll || v.AllValue != nil {
			t.Errorf("variable %s: multi %v, includeAll %v, allValue %v; want multi, All as the listed values", v.Name, v.Multi, v.IncludeAll, v.AllValue)
		}
	}
	for name, want := range map[string]string{
		"namespace": `label_values(target_info{service_name="__EVENTAPI_SERVICE_NAME__"}, namespace)`,
		"job":       `label_values(target_info{service_name="__EVENTAPI_SERVICE_NAME__", namespace=~"$namespace"}, job)`,
	} {
		if vars[name] != want {
			t.Errorf("variable %s: query %q, want %q", name, vars[name], want)
		}
	}
}

// TestDashboardQueries holds every panel query to the dashboard's
// variables and to the alerts: each series it selects is matched by job
// and namespace (without the namespace, same-named releases of several
// namespaces are summed together), and the request-duration quantiles
// leave out what EventapiSlowResponses leaves out (requests refused before
// routing, the probes), so the panel an alert points at shows what fired.
func TestDashboardQueries(t *testing.T) {
	rules, err := Load(ChartRules, testMatchers)
	if err != nil {
		t.Fatal(err)
	}
	var slowRoutes *labels.Matcher
	for _, r := range rules {
		if r.Alert == "EventapiSlowResponses" {
			e, err := parser.ParseExpr(r.Expr)
			if err != nil {
				t.Fatal(err)
			}
			slowRoutes = matcher(selectors(e)[0], "http_route")
		}
	}
	if slowRoutes == nil {
		t.Fatal("EventapiSlowResponses selects no http_route")
	}
	n := 0
	for _, p := range loadDashboard(t).Panels {
		for _, target := range p.Targets {
			for _, vs := range selectors(parseTarget(t, target.Expr)) {
				n++
				for name, want := range map[string]string{"job": "$job", "namespace": "$namespace"} {
					if m := matcher(vs, name); m == nil || m.Type != labels.MatchRegexp || m.Value != want {
						t.Errorf("%s %s: %s lacks %s=~%q", p.Title, target.RefID, vs, name, want)
					}
				}
				if vs.Name == "http_server_request_duration_seconds_bucket" {
					if m := matcher(vs, "http_route"); m == nil || m.String() != slowRoutes.String() {
						t.Errorf("%s %s: %s, want %s as EventapiSlowResponses", p.Title, target.RefID, vs, slowRoutes)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no panel query")
	}
}

// The units a kind of query may be drawn in.
var unitsOf = map[string][]string{
	"duration": {"s"},
	"ratio":    {"percentunit"},
	"rate":     {"reqps", "ops", "recps", "cps"},
	"count":    {"short", "none"},
}

// kindOf says what a panel query returns: a quantile of a histogram in
// seconds, a ratio of two series, a per-second rate, or a count.
func kindOf(e parser.Expr) string {
	if c, ok := e.(*parser.Call); ok && c.Func.Name == "histogram_quantile" {
		return "duration"
	}
	if b, ok := e.(*parser.BinaryExpr); ok && b.Op == parser.DIV {
		return "ratio"
	}
	kind := "count"
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if c, ok := n.(*parser.Call); ok && slices.Contains([]string{"rate", "irate", "deriv"}, c.Func.Name) {
			kind = "rate"
		}
		return nil
	})
	return kind
}

// TestDashboardUnits: each query is drawn in a unit of what it returns (a
// ratio in percent, a rate per second), and queries of different units in
// one panel are on different axes, so no ratio reads as requests per
// second, no rate as a percentage.
func TestDashboardUnits(t *testing.T) {
	for _, p := range loadDashboard(t).Panels {
		axes := map[string]string{} // axis placement: unit
		for _, target := range p.Targets {
			unit, axis := p.FieldConfig.Defaults.Unit, "auto"
			for _, o := range p.FieldConfig.Overrides {
				if o.Matcher.ID != "byFrameRefID" || o.Matcher.Options != target.RefID {
					continue
				}
				for _, prop := range o.Properties {
					switch prop.ID {
					case "unit":
						unit, _ = prop.Value.(string)
					case "custom.axisPlacement":
						axis, _ = prop.Value.(string)
					}
				}
			}
			kind := kindOf(parseTarget(t, target.Expr))
			if !slices.Contains(unitsOf[kind], unit) {
				t.Errorf("%s %s: a %s drawn in %q, want one of %v", p.Title, target.RefID, kind, unit, unitsOf[kind])
			}
			if other, ok := axes[axis]; ok && other != unit {
				t.Errorf("%s %s: %q on the %s axis with %q", p.Title, target.RefID, unit, axis, other)
			}
			axes[axis] = unit
		}
	}
}
