package manager

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
)

// resourcesDesc is eventapi_operator_resources: the ApiKeys and
// SandboxOrganizations the operator watches, by kind and by their Ready
// condition's status and reason, counted from its cache at each scrape. The
// alert EventapiOperatorResourcesNotReady reads it: most stuck states (an
// organization that is gone, a Secret the operator may not write, an
// invalid spec) are retried without an error, so the reconcile-error alert
// never sees them (docs/observability.md, "Alerts").
var resourcesDesc = prometheus.NewDesc("eventapi_operator_resources",
	"ApiKeys and SandboxOrganizations watched, by kind and Ready condition (status: true, false or unknown; reason).",
	[]string{"kind", "ready", "reason"}, nil)

// resourcesListTimeout bounds a scrape's reads of the cache.
const resourcesListTimeout = 5 * time.Second

// resourcesCollector counts from the cache of the latest manager New built:
// a process runs one, and tests that build several read the latest.
type resourcesCollector struct{ cache atomic.Pointer[client.Reader] }

var (
	resources         resourcesCollector
	registerResources sync.Once
)

// countResources makes eventapi_operator_resources count reader's objects,
// registering it with controller-runtime's registry (served on /metrics)
// once per process.
func countResources(reader client.Reader) {
	resources.cache.Store(&reader)
	registerResources.Do(func() { metrics.Registry.MustRegister(&resources) })
}

func (c *resourcesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- resourcesDesc }

func (c *resourcesCollector) Collect(ch chan<- prometheus.Metric) {
	reader := c.cache.Load()
	if reader == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), resourcesListTimeout)
	defer cancel()
	counts := map[[3]string]int{}
	count := func(kind string, conditions []metav1.Condition) {
		ready, reason := "unknown", ""
		if cond := meta.FindStatusCondition(conditions, v1alpha1.ConditionReady); cond != nil {
			ready, reason = readyValue(cond.Status), cond.Reason
		}
		counts[[3]string{kind, ready, reason}]++
	}
	var keys v1alpha1.ApiKeyList
	if err := (*reader).List(ctx, &keys); err != nil {
		ctrl.Log.WithName("metrics").Error(err, "counting ApiKeys for eventapi_operator_resources")
	}
	for i := range keys.Items {
		count("ApiKey", keys.Items[i].Status.Conditions)
	}
	var sandboxes v1alpha1.SandboxOrganizationList
	if err := (*reader).List(ctx, &sandboxes); err != nil {
		ctrl.Log.WithName("metrics").Error(err, "counting SandboxOrganizations for eventapi_operator_resources")
	}
	for i := range sandboxes.Items {
		count("SandboxOrganization", sandboxes.Items[i].Status.Conditions)
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(resourcesDesc, prometheus.GaugeValue, float64(n), k[0], k[1], k[2])
	}
}

// readyValue is a condition status as the metric's ready label says it.
func readyValue(s metav1.ConditionStatus) string {
	switch s {
	case metav1.ConditionTrue:
		return "true"
	case metav1.ConditionFalse:
		return "false"
	}
	return "unknown"
}
