package controller_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
)

// TestSpecIsNeverRewritten: the operator adds its finalizer by a patch of
// the finalizers alone, so the spec stays as the user wrote it ("90s", not
// Go's "1m30s"; a time with its offset), generation stays 1, and a grace
// period the CRD accepts but whose Go spelling it would refuse is issued.
func TestSpecIsNeverRewritten(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Spelled")
	for _, tt := range []struct{ name, value string }{
		{"ninety", "90s"},
		{"long-grace", "99999h99999m99999s"}, // 101693h25m39s in Go's spelling, which the CRD refuses
	} {
		if err := h.createRaw(tt.name, org, tt.value, "spec", "rotationGracePeriod"); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		h.waitApiKey(tt.name, v1alpha1.ReasonKeyIssued)
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("ApiKey"))
		if err := h.k8s.Get(h.ctx, h.key(tt.name), u); err != nil {
			t.Fatal(err)
		}
		got, _, _ := unstructured.NestedString(u.Object, "spec", "rotationGracePeriod")
		if got != tt.value || u.GetGeneration() != 1 {
			t.Errorf("%s: spec.rotationGracePeriod %q at generation %d, want %q at 1", tt.name, got, u.GetGeneration(), tt.value)
		}
		for _, mf := range u.GetManagedFields() {
			if mf.Manager == "eventapi-operator" && mf.Subresource == "" && mf.FieldsV1 != nil &&
				strings.Contains(mf.FieldsV1.GetRawString(), `"f:spec"`) {
				t.Errorf("%s: the operator manages spec fields: %s", tt.name, mf.FieldsV1.GetRawString())
			}
		}
	}
}

// TestAKeyCopiedIntoTheSecretIsNotAdopted: a Secret edited to hold another
// ApiKey's key (or one made with the CLI) gets a new key of its own; the
// copied key keeps its scopes, and the ApiKey's own earlier key is revoked,
// not left active with no Secret holding it.
func TestAKeyCopiedIntoTheSecretIsNotAdopted(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Copied")
	h.create(h.newApiKey("wide", org, v1alpha1.KeyModeLive, "events:read", "clients:read"))
	h.create(h.newApiKey("narrow", org, v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("wide", v1alpha1.ReasonKeyIssued)
	h.waitApiKey("narrow", v1alpha1.ReasonKeyIssued)
	ownKey, _, ownID, _ := h.keySecret("wide-secret")
	narrowKey, _, narrowID, _ := h.keySecret("narrow-secret")

	_, _, _, wideSec := h.keySecret("wide-secret")
	update(h, wideSec, func(s *corev1.Secret) {
		s.Data["api-key"], s.Data["key-id"] = []byte(narrowKey), []byte(narrowID)
	})
	h.eventually("a key of its own in the edited Secret", func() error {
		key, _, id, _ := h.keySecret("wide-secret")
		if key == narrowKey || key == ownKey || id == narrowID || id == ownID {
			return fmt.Errorf("the Secret holds key id %s: %w", id, errNotYet)
		}
		return nil
	})
	key, _, _, _ := h.keySecret("wide-secret")
	h.wantScopes(key, "events:read", "clients:read")
	h.wantScopes(narrowKey, "events:read") // not widened to the editor's ApiKey's scopes
	h.wantStatus(ownKey, http.StatusUnauthorized)
	if got := len(h.activeKeys(org)); got != 2 {
		t.Errorf("%d active keys, want 2 (one per ApiKey)", got)
	}
}

// TestAKeyRevokedOutsideIsReplaced: a key revoked with the CLI raises no
// cluster event; the periodic recheck (KeyRecheck, one second in these
// tests) finds it and issues a new one.
func TestAKeyRevokedOutsideIsReplaced(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Revoked outside")
	h.create(h.newApiKey("outside", org, v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("outside", v1alpha1.ReasonKeyIssued)
	old, _, id, _ := h.keySecret("outside-secret")
	if err := tenancy.RevokeKey(h.ctx, h.db, uuid.MustParse(id)); err != nil {
		t.Fatal(err)
	}
	h.eventually("a new key after the revocation", func() error {
		key, _, _, _ := h.keySecret("outside-secret")
		if key == old {
			return errNotYet
		}
		return nil
	})
	key, _, _, _ := h.keySecret("outside-secret")
	h.wantStatus(key, http.StatusOK)
}

// TestAnUnwritableSecretMintsNoKey: a Secret the API server refuses to
// write (here a ValidatingAdmissionPolicy) is found by a dry run before a
// key is made, so the retries make no keys; before, every retry made a
// key, failed to write it and revoked it.
func TestAnUnwritableSecretMintsNoKey(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Unwritable")
	prefix := "fail-" + h.ns + "-"
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "deny-" + h.ns},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"secrets"}},
				},
			}}},
			Validations: []admissionv1.Validation{{Expression: "!object.metadata.name.startsWith('" + prefix + "')"}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "deny-" + h.ns},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}},
	}
	h.create(policy)
	h.create(binding)
	t.Cleanup(func() { _ = h.k8s.Delete(h.ctx, binding); _ = h.k8s.Delete(h.ctx, policy) })
	// The policy takes effect once the API server has compiled it.
	h.eventually("the policy refusing Secrets", func() error {
		probe := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: prefix + "probe"}}
		if err := h.k8s.Create(h.ctx, probe, client.DryRunAll); err == nil {
			return errNotYet
		}
		return nil
	})

	ak := h.newApiKey("unwritable", org, v1alpha1.KeyModeLive, "events:read")
	ak.Spec.SecretName = prefix + "key"
	h.create(ak)
	h.waitApiKey("unwritable", v1alpha1.ReasonSecretError)
	keys, err := tenancy.ListKeys(h.ctx, h.db, org)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 0 {
		t.Errorf("%d keys made (and revoked) for a Secret that cannot be written, want none", len(keys))
	}
}

// TestAPrefixEditedByHandIsRestored: the Secret's prefix names its key;
// edited by hand, it is written back while the key itself is kept.
func TestAPrefixEditedByHandIsRestored(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Prefixed")
	h.create(h.newApiKey("prefixed", org, v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("prefixed", v1alpha1.ReasonKeyIssued)
	key, prefix, _, sec := h.keySecret("prefixed-secret")
	update(h, sec, func(s *corev1.Secret) { s.Data["prefix"] = []byte("hacked") })
	h.eventually("the prefix written back", func() error {
		k, p, _, _ := h.keySecret("prefixed-secret")
		if p != prefix || k != key {
			return fmt.Errorf("prefix %q (key kept: %v): %w", p, k == key, errNotYet)
		}
		return nil
	})
}
