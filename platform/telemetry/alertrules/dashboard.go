package alertrules

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/prometheus/prometheus/promql/parser"
)

// DashboardQueries reads the Grafana dashboard at path and returns each
// panel query as a Rule of target (named "<panel title> <refId>"), as
// Prometheus parses it once Grafana has filled in its interval and
// variables, so that Missing holds the panels to a real scrape as it holds
// the alerts: a panel over a series no pod exports draws nothing, and
// nothing says so.
func DashboardQueries(path, target string) ([]Rule, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d struct{ Panels []panel }
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	filled := strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")
	var rules []Rule
	for _, p := range allPanels(d.Panels) {
		for _, t := range p.Targets {
			expr, err := parser.ParseExpr(filled.Replace(t.Expr))
			if err != nil {
				return nil, fmt.Errorf("%s: %s %s: %w", path, p.Title, t.RefID, err)
			}
			r := Rule{Alert: p.Title + " " + t.RefID, Expr: t.Expr, Target: target}
			r.Metrics, r.Labels = reads(expr)
			rules = append(rules, r)
		}
	}
	return rules, nil
}

// panel is what DashboardQueries reads of a Grafana panel; a collapsed
// row holds its panels in its own Panels.
type panel struct {
	Title   string
	Targets []struct{ RefID, Expr string }
	Panels  []panel
}

// allPanels lists ps and the panels inside their rows, depth first.
func allPanels(ps []panel) []panel {
	var out []panel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, allPanels(p.Panels)...)
	}
	return out
}
