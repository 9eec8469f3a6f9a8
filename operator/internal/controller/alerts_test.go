package controller_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/google/uuid"

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

// TestTheResourcesMetricCountsReadiness: eventapi_operator_resources counts
// the watched resources by kind and Ready condition, as the cache holds them
// at the scrape: a working ApiKey as ready, one whose organization is gone
// as not ready with that reason (EventapiOperatorResourcesNotReady).
func TestTheResourcesMetricCountsReadiness(t *testing.T) {
	h := newHarness(t)
	h.create(h.newApiKey("works", h.createOrg("Counted"), v1alpha1.KeyModeLive, "events:read"))
	h.create(h.newApiKey("orphan", uuid.New(), v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("works", v1alpha1.ReasonKeyIssued)
	h.waitApiKey("orphan", v1alpha1.ReasonOrganizationNotFound)
	want := map[string]float64{"true/" + v1alpha1.ReasonKeyIssued: 1, "false/" + v1alpha1.ReasonOrganizationNotFound: 1}
	h.eventually("eventapi_operator_resources as the cache catches up", func() error {
		got := map[string]float64{}
		gathered, err := metrics.Registry.Gather()
		if err != nil {
			return err
		}
		for _, f := range gathered {
			if f.GetName() != "eventapi_operator_resources" {
				continue
			}
			for _, m := range f.GetMetric() {
				l := map[string]string{}
				for _, p := range m.GetLabel() {
					l[p.GetName()] = p.GetValue()
				}
				if l["kind"] == "ApiKey" {
					got[l["ready"]+"/"+l["reason"]] = m.GetGauge().GetValue()
				}
			}
		}
		if !maps.Equal(got, want) {
			return fmt.Errorf("ApiKeys counted %v, want %v", got, want)
		}
		return nil
	})
}
