package server_test

import (
	"testing"

	"github.com/eventapi/eventapi/platform/telemetry/alertrules"
)

// chartRules is the chart's Prometheus rule file (docs/observability.md,
// "Alerts").
const chartRules = "../../charts/eventapi/alerts/eventapi.rules.yaml"

// TestAlertRulesReadExportedSeries: every series and label the chart's API
// alerts read is in a real scrape of a server that has served, delivered
// webhooks and used its pools, so that no alert waits on a series that
// never comes (an alert on a misspelt name is silent forever).
func TestAlertRulesReadExportedSeries(t *testing.T) {
	fams, _ := meteredDeliveries(t)
	rules, err := alertrules.Load(chartRules, map[string]string{
		alertrules.API: `job="eventapi-metrics"`, alertrules.Operator: `job="eventapi-operator-metrics"`})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range alertrules.Missing(rules, alertrules.API, fams) {
		t.Error(m)
	}
}

// chartDashboard is the chart's Grafana dashboard (docs/observability.md).
const chartDashboard = "../../charts/eventapi/dashboards/eventapi.json"

// TestDashboardReadsExportedSeries: every series and label the chart's
// dashboard panels read is in the same real scrape, so that no panel stays
// empty over a name the service does not export.
func TestDashboardReadsExportedSeries(t *testing.T) {
	fams, _ := meteredDeliveries(t)
	panels, err := alertrules.DashboardQueries(chartDashboard, alertrules.API)
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) == 0 {
		t.Fatal("the dashboard has no panel query")
	}
	for _, m := range alertrules.Missing(panels, alertrules.API, fams) {
		t.Error(m)
	}
}
