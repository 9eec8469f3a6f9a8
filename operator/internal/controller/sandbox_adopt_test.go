package controller_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/operator/internal/controller"
	"github.com/eventapi/eventapi/operator/manager"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
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

// staleStatus is a cache that has not yet seen a SandboxOrganization's own
// status: the reconcile after the one that made its sandbox (queued by that
// reconcile's own writes) can read it so.
type staleStatus struct{ client.Client }

func (c staleStatus) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := c.Client.Get(ctx, key, obj, opts...)
	if sb, ok := obj.(*v1alpha1.SandboxOrganization); ok && err == nil {
		sb.Status = v1alpha1.SandboxOrganizationStatus{}
	}
	return err
}

// notes records the reasons of the events sent.
type notes struct{ reasons []string }

func (n *notes) Eventf(_ runtime.Object, _ runtime.Object, _, reason, _, _ string, _ ...interface{}) {
	n.reasons = append(n.reasons, reason)
}

// TestASandboxIsNotAdoptedByItsOwnResource: a SandboxOrganization reconciled
// through a cache that does not yet show the status it recorded finds its
// own sandbox in the API server's copy: it keeps it as recorded (seeded
// included) and sends no SandboxAdopted, which said it took over a sandbox
// it had just made, and reset seeded to false.
func TestASandboxIsNotAdoptedByItsOwnResource(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent of one")
	h.create(h.newSandbox("own", parent, true))
	before := h.waitSandbox("own", v1alpha1.ReasonSandboxReady)

	rec := reconcileWithStaleStatus(t, h, "own")
	after := h.waitSandbox("own", v1alpha1.ReasonSandboxReady)
	if after.Status.SandboxOrganizationID != before.Status.SandboxOrganizationID || !after.Status.Seeded {
		t.Errorf("status after the stale reconcile: %+v, want %+v", after.Status, before.Status)
	}
	for _, reason := range rec.reasons {
		if reason == "SandboxAdopted" {
			t.Errorf("events %v: the resource adopted its own sandbox", rec.reasons)
		}
	}
}

// TestAFailureIsWarnedOnce: a reconcile whose cache does not yet show the
// failure the previous reconcile recorded (on create, the finalizer patch
// queues one at once) sends no second Warning for it: the API server's copy
// already carries the reason.
func TestAFailureIsWarnedOnce(t *testing.T) {
	h := newHarness(t)
	h.create(h.newSandbox("lost", uuid.New(), false))
	h.waitSandbox("lost", v1alpha1.ReasonOrganizationNotFound)

	rec := reconcileWithStaleStatus(t, h, "lost")
	if len(rec.reasons) != 0 {
		t.Errorf("events %v for a failure the status already records", rec.reasons)
	}
}

// reconcileWithStaleStatus reconciles the SandboxOrganization name once
// through a client whose reads miss the status last written (as a cache
// that has not caught up), and returns the events it sent.
func reconcileWithStaleStatus(t *testing.T, h *harness, name string) *notes {
	t.Helper()
	rec, err := reconcileOnce(t, h, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// reconcileOnce is reconcileWithStaleStatus with the API server reader wrap
// makes of the manager's (nil: as it is), returning the reconcile's error.
func reconcileOnce(t *testing.T, h *harness, name string, wrap func(client.Reader) client.Reader) (*notes, error) {
	t.Helper()
	return reconcileThrough(t, h, h.ctx, staleStatus{h.k8s}, name, wrap)
}

// reconcileThrough is reconcileOnce with the reconcile's context and client.
func reconcileThrough(t *testing.T, h *harness, ctx context.Context, c client.Client, name string, wrap func(client.Reader) client.Reader) (*notes, error) {
	t.Helper()
	mgr, err := ctrl.NewManager(operatorConfig, ctrl.Options{Scheme: h.k8s.Scheme(),
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{h.ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	reader := mgr.GetAPIReader()
	if wrap != nil {
		reader = wrap(reader)
	}
	rec := &notes{}
	r := &controller.SandboxReconciler{Client: c, APIReader: reader,
		Namespaces: []string{h.ns}, DB: h.db, Recorder: rec}
	if err := r.SetupWithManager(mgr); err != nil { // the manager is never started: Reconcile is called here
		t.Fatal(err)
	}
	_, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: h.key(name)})
	return rec, err
}

// TestAnUnrecordedSandboxGoesWithItsResource: a SandboxOrganization deleted
// while its status names no sandbox, though its parent has one that no
// other SandboxOrganization records (the reconcile that made it died before
// recording it; here the parent and its sandbox appear in the database
// while the resource waits for its parent), deletes that sandbox. Cleanup
// deleted only the sandbox named in status, so this one stayed behind, and
// the parent's test keys kept reaching it.
func TestAnUnrecordedSandboxGoesWithItsResource(t *testing.T) {
	h := newHarness(t)
	parent := uuid.New()
	h.create(h.newSandbox("unrecorded", parent, false))
	h.waitSandbox("unrecorded", v1alpha1.ReasonOrganizationNotFound)
	if _, err := h.db.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'Late parent')", parent).Exec(h.ctx); err != nil {
		t.Fatal(err)
	}
	sandbox, err := tenancy.CreateOrganization(h.ctx, h.db, "Made before a crash", &parent)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.k8s.Delete(h.ctx, h.newSandbox("unrecorded", parent, false)); err != nil {
		t.Fatal(err)
	}
	h.eventually("the SandboxOrganization gone", func() error {
		err := h.k8s.Get(h.ctx, h.key("unrecorded"), &v1alpha1.SandboxOrganization{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return errNotYet
	})
	if _, err := tenancy.GetOrganization(h.ctx, h.db, sandbox.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("the sandbox %s is still there (%v)", sandbox.ID, err)
	}
	if _, err := tenancy.GetOrganization(h.ctx, h.db, parent); err != nil {
		t.Fatalf("the parent: %v", err)
	}
}

// failingSandboxList is an API server that fails to list
// SandboxOrganizations (down, or refusing the operator), which cannot be
// arranged on demand against a real one.
type failingSandboxList struct{ client.Reader }

func (r failingSandboxList) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*v1alpha1.SandboxOrganizationList); ok {
		return errors.New("the API server is unavailable")
	}
	return r.Reader.List(ctx, list, opts...)
}

// TestAListThatFailsIsNotAConflict: a reconcile that cannot list the
// SandboxOrganizations that may record the parent's sandbox reports
// APIServerError, not SandboxConflict ("another resource manages this
// sandbox"), which told whoever read the status to look for a resource
// that does not exist.
func TestAListThatFailsIsNotAConflict(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent of a failed list")
	h.create(h.newSandbox("listless", parent, false))
	h.waitSandbox("listless", v1alpha1.ReasonSandboxReady)
	// The stale status makes the reconcile look for the parent's sandbox
	// again, which asks the API server who records it.
	rec, _ := reconcileOnce(t, h, "listless", func(r client.Reader) client.Reader { return failingSandboxList{r} })
	if len(rec.reasons) != 1 || rec.reasons[0] != v1alpha1.ReasonAPIServerError {
		t.Fatalf("events %v, want one %s", rec.reasons, v1alpha1.ReasonAPIServerError)
	}
}
