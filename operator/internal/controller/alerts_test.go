package controller_test

import (
	"testing"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/telemetry/alertrules"
)

// TestAlertRulesReadTheOperatorsSeries: every series and label the chart's
// operator alerts read is exported by the operator's controllers, as
// controller-runtime registers them (the registry its /metrics serves),
// once they have reconciled.
func TestAlertRulesReadTheOperatorsSeries(t *testing.T) {
	h := newHarness(t)
	h.create(h.newSandbox("alerted", h.createOrg("Alerted"), false))
	h.waitSandbox("alerted", v1alpha1.ReasonSandboxReady)
	gathered, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]*dto.MetricFamily{}
	for _, f := range gathered {
		fams[f.GetName()] = f
	}
	rules, err := alertrules.Load("../../../charts/eventapi/alerts/eventapi.rules.yaml", map[string]string{
		alertrules.API: `job="eventapi-metrics"`, alertrules.Operator: `job="eventapi-operator-metrics"`})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range alertrules.Missing(rules, alertrules.Operator, fams) {
		t.Error(m)
	}
}
