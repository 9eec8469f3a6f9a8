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
// deletes the RoleBinding and then the ApiKeys, as that deletion may. Each
// ApiKey must still be finalized with its key revoked, by the running
// operator and by one that starts while the namespace forbids it its
// Secrets, which must still serve the other namespace.
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

	gone := func(ns, name string) func() error {
		return func() error {
			var ak v1alpha1.ApiKey
			switch err := h.k8s.Get(h.ctx, client.ObjectKey{Namespace: ns, Name: name}, &ak); {
			case apierrors.IsNotFound(err):
				return nil
			case err != nil:
				return err
			default:
				return fmt.Errorf("still there, finalizers %v, conditions %+v", ak.Finalizers, ak.Status.Conditions)
			}
		}
	}
	deleteKey := func(ns, name string) {
		t.Helper()
		if err := h.k8s.Delete(h.ctx, &v1alpha1.ApiKey{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	wantActive := func(want int, when string) {
		t.Helper()
		if n := active(); n != want {
			t.Fatalf("%d active keys %s, want %d", n, when, want)
		}
	}

	stop := start()
	issue(nsA, "a")
	issue(nsA, "a2")
	wantActive(2, "after the two issues")
	// The namespace's deletion takes its RoleBinding: once the authorizer
	// has it, the operator may not read nsA's Secrets any more.
	if err := h.k8s.Delete(h.ctx, bindings[nsA]); err != nil {
		t.Fatal(err)
	}
	asOperator, err := client.New(opCfg, client.Options{Scheme: h.k8s.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	h.eventually("the operator forbidden nsA's Secrets", func() error {
		err := asOperator.List(h.ctx, &corev1.SecretList{}, client.InNamespace(nsA))
		if apierrors.IsForbidden(err) {
			return nil
		}
		return fmt.Errorf("listing nsA's Secrets as the operator: %v", err)
	})
	deleteKey(nsA, "a")
	h.eventually("the ApiKey finalized without its namespace's Role", gone(nsA, "a"))
	wantActive(1, "once the first ApiKey is gone")
	stop()

	// Deleted while no operator runs; the next one starts with nsA's
	// Secrets forbidden, still finalizes it, and serves nsB.
	deleteKey(nsA, "a2")
	defer start()()
	h.eventually("the ApiKey deleted while the operator was down finalized", gone(nsA, "a2"))
	wantActive(0, "once both ApiKeys are gone")
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
