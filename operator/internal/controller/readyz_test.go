package controller_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/operator/manager"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// sandboxCRD is the SandboxOrganization CRD as the suite installs it.
var sandboxCRD = filepath.Join("..", "..", "config", "crd", "bases", "eventapi.io_sandboxorganizations.yaml")

// TestReadyzFailsWhileTheCacheCannotListAndWatch deletes the
// SandboxOrganization CRD under a running operator: its informer can no
// longer list or watch, nothing is reconciled, and /readyz must say so
// (while PostgreSQL still answers), then be ready again once the CRD is back.
//
// The suite's tests do not run in parallel and share one API server: the CRD
// is put back (and waited for) before the test returns, whatever happens.
func TestReadyzFailsWhileTheCacheCannotListAndWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := database.Open(ctx, pgtest.NewDatabase(t), database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	scheme, err := manager.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	admin, err := client.New(restConfig, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	crds, err := apiextensions.NewForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	name := "sandboxorganizations." + v1alpha1.GroupVersion.Group
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{}); err != nil {
		t.Fatalf("the suite's CRD %s: %v", name, err)
	}
	// Registered first, so it runs last: after the manager stopped.
	t.Cleanup(func() { restoreCRD(t, admin, crds, name) })

	ns := "t-" + randomHex(4)
	probe := freeAddr(t)
	mgr, err := manager.New(operatorConfig, manager.Options{DB: db, Namespaces: []string{ns},
		MetricsAddr: "0", ProbeAddr: probe, SkipNameValidation: true, CacheErrorWindow: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mgrCtx, stop := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-mgrDone; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	readyz := "http://" + probe + "/readyz"

	// Ready once started and the caches synced.
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the cache never synced")
	}
	status, body := pollReadyz(t, readyz, time.Minute, func(status int) bool { return status == http.StatusOK })
	t.Logf("before: %d %q", status, body)

	// Delete the CRD for real.
	if err := crds.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCRDGone(t, admin, crds, name)

	status, body = pollReadyz(t, readyz, time.Minute, func(status int) bool { return status != http.StatusOK })
	if status != http.StatusInternalServerError || !strings.Contains(body, "[-]cache failed") || !strings.Contains(body, "[+]database ok") {
		t.Errorf("/readyz = %d %q, want 500 naming the failing cache check and the database ok", status, body)
	}
	if status, body := get(t, readyz+"?verbose"); !strings.Contains(body, "[-]cache failed") {
		t.Errorf("/readyz?verbose = %d %q, want it to name the failing cache check", status, body)
	}
	// controller-runtime withholds the reason in /readyz; the check's own
	// endpoint tells it.
	if status, body := get(t, readyz+"/cache"); status != http.StatusInternalServerError || !strings.Contains(body, "SandboxOrganization") {
		t.Errorf("/readyz/cache = %d %q, want 500 naming the SandboxOrganization informer", status, body)
	} else {
		t.Logf("/readyz/cache: %q", body)
	}

	// Put the CRD back as the suite installs it: ready again once no error
	// came for the window (the reflector's next retry lists again).
	installCRD(t)
	status, body = pollReadyz(t, readyz, 2*time.Minute, func(status int) bool { return status == http.StatusOK })
	t.Logf("after: %d %q", status, body)
}

// pollReadyz polls url every 100 ms until done(status) holds and returns that
// answer; the test fails with the last answer once within has passed.
func pollReadyz(t *testing.T, url string, within time.Duration, done func(status int) bool) (int, string) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var status int
	var body string
	for {
		status, body = get(t, url)
		if status != 0 && done(status) {
			return status, body
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: still %d %q after %s", url, status, body, within)
		}
		<-tick.C
	}
}

// get returns the status and body of GET url (status 0 and the error when
// nothing answered).
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err.Error()
	}
	return resp.StatusCode, string(b)
}

// freeAddr returns a loopback address no one listens on (the manager cannot
// say which port it bound for ":0").
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// waitCRDGone waits until the CRD name no longer exists. Its objects are
// deleted with it; those that earlier tests left behind still carry the
// operator's finalizer and no operator of theirs is running any more, so
// that finalizer is taken off them, as an administrator would, or the CRD
// would never go.
func waitCRDGone(t *testing.T, admin client.Client, crds apiextensions.Interface, name string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if err != nil {
			t.Fatalf("CRD %s: %v", name, err)
		}
		var left v1alpha1.SandboxOrganizationList
		if err := admin.List(ctx, &left); err == nil {
			for i := range left.Items {
				sb := &left.Items[i]
				if sb.DeletionTimestamp.IsZero() || !controllerutil.ContainsFinalizer(sb, v1alpha1.Finalizer) {
					continue
				}
				base := sb.DeepCopy()
				controllerutil.RemoveFinalizer(sb, v1alpha1.Finalizer)
				err := admin.Patch(ctx, sb, client.MergeFrom(base))
				t.Logf("finalizer of the leftover %s/%s removed: %v", sb.Namespace, sb.Name, err)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("CRD %s not gone after a minute: %+v", name, crd.Status.Conditions)
		}
		<-tick.C
	}
}

// installCRD creates the SandboxOrganization CRD from operator/config/crd, as
// envtest installs the suite's, and waits until the API server serves it.
func installCRD(t *testing.T) {
	t.Helper()
	if _, err := envtest.InstallCRDs(restConfig, envtest.CRDInstallOptions{Paths: []string{sandboxCRD},
		ErrorIfPathMissing: true, MaxTime: time.Minute}); err != nil {
		t.Fatalf("installing %s: %v", sandboxCRD, err)
	}
}

// restoreCRD leaves the CRD name as the suite installed it for the tests
// that follow, whatever state the test stopped in.
func restoreCRD(t *testing.T, admin client.Client, crds apiextensions.Interface, name string) {
	crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), name, metav1.GetOptions{})
	switch {
	case err == nil && crd.DeletionTimestamp.IsZero() && established(crd):
		return
	case err == nil && !crd.DeletionTimestamp.IsZero():
		waitCRDGone(t, admin, crds, name)
	case err != nil && !apierrors.IsNotFound(err):
		t.Fatalf("CRD %s: %v", name, err)
	}
	installCRD(t)
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
