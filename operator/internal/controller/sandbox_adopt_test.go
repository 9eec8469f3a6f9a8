package controller_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/operator/internal/controller"
	"github.com/eventapi/eventapi/operator/manager"
)

// staleSandboxes is a cache that has not yet seen any SandboxOrganization's
// status: its lists of them are empty. A real cache is like this for a
// moment after another SandboxOrganization recorded its sandbox, which
// cannot be arranged on purpose against a real API server.
type staleSandboxes struct{ client.Client }

func (c staleSandboxes) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*v1alpha1.SandboxOrganizationList); ok {
		return nil
	}
	return c.Client.List(ctx, list, opts...)
}

// TestSandboxAdoptionAsksTheAPIServer: a second SandboxOrganization of one
// parent, reconciled while the cache does not yet show that the first one
// recorded the parent's sandbox, reports the conflict instead of adopting
// that sandbox (it would delete it under the first one when deleted).
func TestSandboxAdoptionAsksTheAPIServer(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent")
	h.create(h.newSandbox("first", parent, false))
	first := h.waitSandbox("first", v1alpha1.ReasonSandboxReady)

	// A second operator, watching a namespace of its own through a stale
	// cache, reconciles the second SandboxOrganization.
	other := "t-" + randomHex(4)
	h.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}})
	scheme, err := manager.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(operatorConfig, ctrl.Options{Scheme: scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{other: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	r := &controller.SandboxReconciler{Client: staleSandboxes{mgr.GetClient()}, APIReader: mgr.GetAPIReader(),
		Namespaces: []string{h.ns, other}, DB: h.db, Recorder: mgr.GetEventRecorder("eventapi-operator")}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("second manager: %v", err)
		}
	})

	second := h.newSandbox("second", parent, false)
	second.Namespace = other
	h.create(second)
	got := h.waitSandboxAt(client.ObjectKeyFromObject(second), v1alpha1.ReasonSandboxConflict)
	if got.Status.SandboxOrganizationID != "" {
		t.Fatalf("the second SandboxOrganization adopted %s, the first one's sandbox %s",
			got.Status.SandboxOrganizationID, first.Status.SandboxOrganizationID)
	}
}
