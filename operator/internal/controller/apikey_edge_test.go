package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// A key created but never written to its Secret (the operator died in
// between) must not survive: the next issue revokes it. Deleting the Secret
// issues a new key and revokes the lost one. However often that happens, one
// key stays active.
func TestApiKeyNeverLeaksKeys(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Leak Check")
	ak := h.newApiKey("ci", org, v1alpha1.KeyModeLive, "events:read")
	ak.Spec.RotationGracePeriod = &metav1.Duration{} // rotate without grace
	h.create(ak)
	ak = h.waitApiKey("ci", v1alpha1.ReasonKeyIssued)

	for i := range 3 {
		// A stray key named as the operator names its keys, as if the
		// operator had crashed after creating it.
		if _, err := tenancy.CreateKey(h.ctx, h.db, tenancy.NewKey{OrganizationID: org, Name: "ci [k8s:" + string(ak.UID) + "]",
			Scopes: []tenancy.Scope{tenancy.EventsRead}, Mode: apikey.Live}); err != nil {
			t.Fatal(err)
		}
		_, _, before, _ := h.keySecret("ci-secret")
		if i%2 == 0 {
			update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "rotation-" + string(rune('a'+i)) })
		} else if err := h.k8s.Delete(h.ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "ci-secret"}}); err != nil {
			t.Fatal(err)
		}
		h.eventually("a new key", func() error {
			sec := &corev1.Secret{}
			if err := h.k8s.Get(h.ctx, h.key("ci-secret"), sec); err != nil {
				return err
			}
			if string(sec.Data["key-id"]) == before {
				return errNotYet
			}
			return nil
		})
		h.waitApiKey("ci", v1alpha1.ReasonKeyIssued)
		key, _, id, _ := h.keySecret("ci-secret")
		active := h.activeKeys(org)
		if len(active) != 1 || active[0].ID.String() != id {
			t.Fatalf("round %d: %d active keys, want only the Secret's", i, len(active))
		}
		if _, err := h.health(key); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
}

func TestApiKeyRefusals(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Refusals")

	// The CRD schema refuses unknown scopes, bad modes and bad ids.
	for name, mutate := range map[string]func(*v1alpha1.ApiKey){
		"unknown scope": func(a *v1alpha1.ApiKey) { a.Spec.Scopes = []v1alpha1.Scope{"everything:write"} },
		"no scope":      func(a *v1alpha1.ApiKey) { a.Spec.Scopes = nil },
		"legacy mode":   func(a *v1alpha1.ApiKey) { a.Spec.Mode = "legacy" },
		"bad org id":    func(a *v1alpha1.ApiKey) { a.Spec.OrganizationID = "acme" },
		"bad secret":    func(a *v1alpha1.ApiKey) { a.Spec.SecretName = "Not_A_Name" },
		"negative grace": func(a *v1alpha1.ApiKey) {
			a.Spec.RotationGracePeriod = &metav1.Duration{Duration: -time.Minute}
		},
	} {
		ak := h.newApiKey("refused", org, v1alpha1.KeyModeLive, "events:read")
		mutate(ak)
		if err := h.k8s.Create(h.ctx, ak); !apierrors.IsInvalid(err) {
			t.Errorf("%s: create gave %v, want Invalid", name, err)
		}
	}

	// A grace period that is not a Go duration is refused by the API
	// server: the operator's typed cache could not decode it, and one such
	// object stopped the operator for every namespace.
	for _, grace := range []string{"soon", "5 minutes", "1d", "", "9999999999h", "2562048h", "100000h", "1h1h1h1h"} {
		if err := h.createRaw("bad-grace", org, grace, "spec", "rotationGracePeriod"); !apierrors.IsInvalid(err) {
			t.Errorf("rotationGracePeriod %q: create gave %v, want Invalid", grace, err)
		}
	}
	// So is an expiry the operator's RFC 3339 reader refuses (lower-case t
	// and z pass the API server's date-time format).
	for _, at := range []string{"2027-06-30t00:00:00z", "2027-06-30T00:00:00z"} {
		if err := h.createRaw("bad-expiry", org, at, "spec", "expiresAt"); !apierrors.IsInvalid(err) {
			t.Errorf("expiresAt %q: create gave %v, want Invalid", at, err)
		}
	}
	// Durations the rule accepts all decode: 0, µ and μ, three parts.
	for i, grace := range []string{"0", "5µs", "5μs", "99999h59m59s", "1.5h"} {
		name := fmt.Sprintf("good-grace-%d", i)
		if err := h.createRaw(name, org, grace, "spec", "rotationGracePeriod"); err != nil {
			t.Errorf("rotationGracePeriod %q: %v", grace, err)
			continue
		}
		h.waitApiKey(name, v1alpha1.ReasonKeyIssued)
	}

	// organizationId and secretName are immutable.
	ak := h.newApiKey("fixed", org, v1alpha1.KeyModeLive, "events:read")
	h.create(ak)
	h.waitApiKey("fixed", v1alpha1.ReasonKeyIssued)
	for name, mutate := range map[string]func(*v1alpha1.ApiKey){
		"organizationId": func(a *v1alpha1.ApiKey) { a.Spec.OrganizationID = uuid.NewString() },
		"secretName":     func(a *v1alpha1.ApiKey) { a.Spec.SecretName = "elsewhere" },
	} {
		cur := &v1alpha1.ApiKey{}
		if err := h.k8s.Get(h.ctx, h.key("fixed"), cur); err != nil {
			t.Fatal(err)
		}
		mutate(cur)
		err := h.k8s.Update(h.ctx, cur)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("changing %s gave %v, want Invalid (immutable)", name, err)
		}
	}

	// An unknown organization is reported and retried; no Secret appears.
	h.create(h.newApiKey("nowhere", uuid.New(), v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("nowhere", v1alpha1.ReasonOrganizationNotFound)
	if err := h.k8s.Get(h.ctx, h.key("nowhere-secret"), &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("Secret for an unknown organization: %v", err)
	}

	// A Secret the ApiKey does not own is never overwritten.
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "taken-secret"},
		StringData: map[string]string{"api-key": "someone else's"}}
	h.create(foreign)
	h.create(h.newApiKey("taken", org, v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("taken", v1alpha1.ReasonSecretConflict)
	got := &corev1.Secret{}
	if err := h.k8s.Get(h.ctx, h.key("taken-secret"), got); err != nil || string(got.Data["api-key"]) != "someone else's" {
		t.Fatalf("foreign Secret changed: %v", err)
	}

	// A past expiry issues a key that is refused, and says so.
	past := h.newApiKey("expired", org, v1alpha1.KeyModeLive, "events:read")
	past.Spec.ExpiresAt = &metav1.Time{Time: time.Now().Add(-time.Hour)}
	h.create(past)
	h.waitApiKey("expired", v1alpha1.ReasonExpired)
	key, _, _, _ := h.keySecret("expired-secret")
	h.wantStatus(key, 401)
}

// createRaw creates an ApiKey of org whose field at path holds the text
// value as sent, past the typed client's own encoding (as kubectl would).
func (h *harness) createRaw(name string, org uuid.UUID, value string, path ...string) error {
	h.t.Helper()
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(h.newApiKey(name, org, v1alpha1.KeyModeLive, "events:read"))
	if err != nil {
		h.t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: raw}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("ApiKey"))
	if err := unstructured.SetNestedField(u.Object, value, path...); err != nil {
		h.t.Fatal(err)
	}
	return h.k8s.Create(h.ctx, u)
}
