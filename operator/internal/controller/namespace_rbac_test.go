package controller_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/operator/manager"
	"github.com/eventapi/eventapi/tenancy"
)

// TestAWatchedNamespaceLosesItsRole: with operator.watchNamespaces the
// chart grants the operator's own resources cluster-wide and Secrets and
// events by a Role in each namespace (docs/helm.md, "Watched namespaces").
// Deleting a watched namespace deletes its RoleBinding in no order against
// the ApiKeys' finalizers; envtest runs no namespace controller, so the test
// deletes the RoleBinding and then the ApiKey, as that deletion may. The
// ApiKey must still be finalized with its key revoked, and an operator
// started afterwards must serve the namespaces it still may.
func TestAWatchedNamespaceLosesItsRole(t *testing.T) {
	h := newHarness(t)
	user := "ns-operator-" + randomHex(3)
	nsA, nsB := "wa-"+randomHex(3), "wb-"+randomHex(3)
	bindings := bindAsTheChartDoes(t, h, user, nsA, nsB)
	opCfg := rest.CopyConfig(restConfig)
	opCfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	start := func() (stop func()) {
		ctx, cancel := context.WithCancel(h.ctx)
		mgr, err := manager.New(opCfg, manager.Options{DB: h.db, Namespaces: []string{nsA, nsB},
			MetricsAddr: "0", ProbeAddr: "0", SkipNameValidation: true, KeyRecheck: time.Second})
		if err != nil {
			cancel()
			t.Fatalf("manager.New: %v", err)
		}
		done := make(chan error, 1)
		go func() { done <- mgr.Start(ctx) }()
		return func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("manager: %v", err)
			}
		}
	}

	org, err := tenancy.CreateOrganization(h.ctx, h.db, "Watched namespaces", nil)
	if err != nil {
		t.Fatal(err)
	}
	active := func() int {
		ks, err := tenancy.ListKeys(h.ctx, h.db, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(slices.DeleteFunc(ks, func(k tenancy.APIKey) bool { return k.RevokedAt != nil }))
	}
	issue := func(ns, name string) {
		t.Helper()
		ak := &v1alpha1.ApiKey{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: v1alpha1.ApiKeySpec{OrganizationID: org.ID.String(), Scopes: []v1alpha1.Scope{"events:read"}, SecretName: name + "-secret"}}
		if err := h.k8s.Create(h.ctx, ak); err != nil {
			t.Fatal(err)
		}
		h.eventually("the Secret of "+ns+"/"+name, func() error {
			return h.k8s.Get(h.ctx, client.ObjectKey{Namespace: ns, Name: name + "-secret"}, &corev1.Secret{})
		})
	}

	stop := start()
	issue(nsA, "a")
	if n := active(); n != 1 {
		t.Fatalf("%d active keys after the first issue, want 1", n)
	}
	if err := h.k8s.Delete(h.ctx, bindings[nsA]); err != nil {
		t.Fatal(err)
	}
	if err := h.k8s.Delete(h.ctx, &v1alpha1.ApiKey{ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: "a"}}); err != nil {
		t.Fatal(err)
	}
	h.eventually("the ApiKey finalized without its namespace's Role", func() error {
		var ak v1alpha1.ApiKey
		switch err := h.k8s.Get(h.ctx, client.ObjectKey{Namespace: nsA, Name: "a"}, &ak); {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		default:
			return fmt.Errorf("still there, finalizers %v, conditions %+v", ak.Finalizers, ak.Status.Conditions)
		}
	})
	if n := active(); n != 0 {
		t.Fatalf("%d active keys once the ApiKey is gone, want 0", n)
	}
	stop()

	// A start now: nsA's Secrets are forbidden, nsB's are not.
	defer start()()
	issue(nsB, "b")
}

// bindAsTheChartDoes grants user the rules of operator/config/rbac/role.yaml
// as the chart does with operator.watchNamespaces: the eventapi.io rules by a
// ClusterRole, the others by a Role in each namespace. It returns each
// namespace's RoleBinding.
func bindAsTheChartDoes(t *testing.T, h *harness, user string, namespaces ...string) map[string]*rbacv1.RoleBinding {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var generated rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(raw, &generated); err != nil {
		t.Fatal(err)
	}
	var own, namespaced []rbacv1.PolicyRule
	for _, r := range generated.Rules {
		if slices.Equal(r.APIGroups, []string{v1alpha1.GroupVersion.Group}) {
			own = append(own, r)
		} else {
			namespaced = append(namespaced, r)
		}
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	create := func(o client.Object) {
		t.Helper()
		if err := h.k8s.Create(h.ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	create(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: own})
	create(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user}})
	bindings := map[string]*rbacv1.RoleBinding{}
	for _, ns := range namespaces {
		create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		create(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "operator"}, Rules: namespaced})
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "operator"}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "operator"}}
		create(rb)
		bindings[ns] = rb
	}
	return bindings
}
