package controller_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/operator/internal/controller"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func (h *harness) createOrg(name string) uuid.UUID {
	h.t.Helper()
	org, err := tenancy.CreateOrganization(h.ctx, h.db, name, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return org.ID
}

func (h *harness) newApiKey(name string, org uuid.UUID, mode v1alpha1.KeyMode, scopes ...v1alpha1.Scope) *v1alpha1.ApiKey {
	return &v1alpha1.ApiKey{
		ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: name},
		Spec: v1alpha1.ApiKeySpec{OrganizationID: org.String(), Scopes: scopes, Mode: mode, SecretName: name + "-secret",
			RotationGracePeriod: &metav1.Duration{Duration: 2 * time.Second}},
	}
}

func (h *harness) create(obj client.Object) {
	h.t.Helper()
	if err := h.k8s.Create(h.ctx, obj); err != nil {
		h.t.Fatalf("create %s: %v", obj.GetName(), err)
	}
}

// update re-reads obj, applies change and writes it, retrying on conflicts
// with the operator's own writes.
func update[T client.Object](h *harness, obj T, change func(T)) {
	h.t.Helper()
	h.eventually("update "+obj.GetName(), func() error {
		if err := h.k8s.Get(h.ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change(obj)
		return h.k8s.Update(h.ctx, obj)
	})
}

// waitApiKey waits until the ApiKey's current generation is reconciled with
// the Ready reason wanted, and returns it.
func (h *harness) waitApiKey(name, reason string) *v1alpha1.ApiKey {
	h.t.Helper()
	ak := &v1alpha1.ApiKey{}
	h.eventually("ApiKey "+name+" "+reason, func() error {
		if err := h.k8s.Get(h.ctx, h.key(name), ak); err != nil {
			return err
		}
		c := meta.FindStatusCondition(ak.Status.Conditions, v1alpha1.ConditionReady)
		if c == nil || c.Reason != reason || ak.Status.ObservedGeneration != ak.Generation {
			return fmt.Errorf("status %+v", ak.Status)
		}
		return nil
	})
	return ak
}

// keySecret returns the Secret's data, failing the test when it is missing.
func (h *harness) keySecret(name string) (key, prefix, id string, sec *corev1.Secret) {
	h.t.Helper()
	sec = &corev1.Secret{}
	if err := h.k8s.Get(h.ctx, h.key(name), sec); err != nil {
		h.t.Fatalf("Secret %s: %v", name, err)
	}
	return string(sec.Data["api-key"]), string(sec.Data["prefix"]), string(sec.Data["key-id"]), sec
}

// activeKeys lists the unrevoked keys of org.
func (h *harness) activeKeys(org uuid.UUID) []tenancy.APIKey {
	h.t.Helper()
	ks, err := tenancy.ListKeys(h.ctx, h.db, org)
	if err != nil {
		h.t.Fatal(err)
	}
	return slices.DeleteFunc(ks, func(k tenancy.APIKey) bool { return k.RevokedAt != nil })
}

func (h *harness) wantScopes(key string, want ...string) {
	h.t.Helper()
	h.eventually("scopes "+strings.Join(want, ","), func() error {
		got, err := h.health(key)
		if err != nil {
			return err
		}
		if !slices.Equal(got.Scopes, want) {
			return fmt.Errorf("scopes %v, want %v", got.Scopes, want)
		}
		return nil
	})
}

func (h *harness) wantStatus(key string, want int) {
	h.t.Helper()
	h.eventually(fmt.Sprintf("GET /api/v2/health answers %d", want), func() error {
		got, err := h.status(key)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("status %d", got)
		}
		return nil
	})
}

// assertKeyNotExposed checks that the full key appears in no ApiKey (spec,
// status) and no Event of the namespace.
func (h *harness) assertKeyNotExposed(key string) {
	h.t.Helper()
	var aks v1alpha1.ApiKeyList
	if err := h.k8s.List(h.ctx, &aks, client.InNamespace(h.ns)); err != nil {
		h.t.Fatal(err)
	}
	var evs eventsv1.EventList
	if err := h.k8s.List(h.ctx, &evs, client.InNamespace(h.ns)); err != nil {
		h.t.Fatal(err)
	}
	var core corev1.EventList
	if err := h.k8s.List(h.ctx, &core, client.InNamespace(h.ns)); err != nil {
		h.t.Fatal(err)
	}
	for _, v := range []any{aks, evs, core} {
		raw, _ := json.Marshal(v)
		if strings.Contains(string(raw), key) {
			h.t.Fatalf("the full key leaks into %T", v)
		}
	}
}

func TestApiKeyLifecycle(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Acme Rentals")
	ak := h.newApiKey("loader", org, v1alpha1.KeyModeLive, "events:read", "clients:read")
	h.create(ak)

	// Issued: the Secret holds a key that authenticates with exactly the
	// declared scopes; status names its id and prefix, never the key.
	ak = h.waitApiKey("loader", v1alpha1.ReasonKeyIssued)
	key1, prefix, id1, sec := h.keySecret("loader-secret")
	if _, err := apikey.Parse(key1); err != nil || !strings.HasPrefix(key1, "svc_live_") {
		t.Fatalf("Secret api-key is not a live key (prefix %q)", prefix)
	}
	if ak.Status.KeyID != id1 || ak.Status.Prefix != prefix || prefix != key1[:12] {
		t.Fatalf("status keyId/prefix %s/%s, Secret %s/%s", ak.Status.KeyID, ak.Status.Prefix, id1, prefix)
	}
	if !metav1.IsControlledBy(sec, ak) || sec.Labels["app.kubernetes.io/managed-by"] != "eventapi-operator" {
		t.Fatalf("Secret is not controlled by the ApiKey: %+v", sec.ObjectMeta)
	}
	got, err := h.health(key1)
	if err != nil {
		t.Fatal(err)
	}
	if got.OrganizationID != org.String() || !slices.Equal(got.Scopes, []string{"events:read", "clients:read"}) || got.Sandbox {
		t.Fatalf("health %+v", got)
	}
	if n := len(h.activeKeys(org)); n != 1 {
		t.Fatalf("%d active keys after one issue, want 1", n)
	}

	// Scopes change in place: the same key, new scopes, no new Secret.
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.Scopes = []v1alpha1.Scope{"quotes:write", "events:read"} })
	h.wantScopes(key1, "events:read", "quotes:write")
	h.waitApiKey("loader", v1alpha1.ReasonKeyIssued)
	if k, _, id, _ := h.keySecret("loader-secret"); k != key1 || id != id1 {
		t.Fatal("a scope change replaced the key")
	}

	// Rotation: a new key in the Secret at once; the old one is revoked
	// only once the grace period has passed.
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "2026-11-01" })
	var key2, id2 string
	h.eventually("rotated Secret", func() error {
		key2, _, id2, _ = h.keySecret("loader-secret")
		if id2 == id1 {
			return errNotYet
		}
		return nil
	})
	ak = h.waitApiKey("loader", v1alpha1.ReasonKeyIssued)
	if ak.Status.KeyID != id2 || ak.Status.LastRotationTime == nil {
		t.Fatalf("status after rotation: %+v", ak.Status)
	}
	h.wantScopes(key2, "events:read", "quotes:write")
	if p := ak.Status.PendingRevocation; p != nil && p.KeyID != id1 {
		t.Fatalf("pending revocation of %s, want %s", p.KeyID, id1)
	}
	h.wantStatus(key1, http.StatusUnauthorized)
	old, err := tenancy.GetKey(h.ctx, h.db, uuid.MustParse(id1))
	if err != nil {
		t.Fatal(err)
	}
	// The old key is revoked at lastRotationTime + grace (both at second
	// precision), never earlier.
	if notBefore := ak.Status.LastRotationTime.Add(2 * time.Second); old.RevokedAt == nil || old.RevokedAt.Before(notBefore) {
		t.Fatalf("old key revoked at %v, before the end of its grace period %v", old.RevokedAt, notBefore)
	}
	h.eventually("pending revocation cleared", func() error {
		if err := h.k8s.Get(h.ctx, h.key("loader"), ak); err != nil {
			return err
		}
		if ak.Status.PendingRevocation != nil {
			return errNotYet
		}
		return nil
	})
	if _, err := h.health(key2); err != nil {
		t.Fatalf("new key after the grace period: %v", err)
	}
	if n := len(h.activeKeys(org)); n != 1 {
		t.Fatalf("%d active keys after rotation, want 1", n)
	}
	h.assertKeyNotExposed(key1)
	h.assertKeyNotExposed(key2)

	// Deletion: the finalizer revokes the key and deletes the Secret.
	if err := h.k8s.Delete(h.ctx, ak); err != nil {
		t.Fatal(err)
	}
	h.eventually("ApiKey gone", func() error {
		err := h.k8s.Get(h.ctx, h.key("loader"), &v1alpha1.ApiKey{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
	if err := h.k8s.Get(h.ctx, h.key("loader-secret"), &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("Secret after deletion: %v", err)
	}
	h.wantStatus(key2, http.StatusUnauthorized)
	if n := len(h.activeKeys(org)); n != 0 {
		t.Fatalf("%d active keys after deletion, want 0", n)
	}
}

// TestApiKeyNames: a blank spec.name (the key takes the object's name), a
// name of 150 two-byte characters (the CRD's limit counts characters, as the
// table does) and a long object name with no spec.name are each issued a
// key, and every key of each is revoked by a rotation and then by deletion.
// A blank name stored as the bare marker would match no revocation: the
// keys would outlive their ApiKey.
func TestApiKeyNames(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Names")
	long := strings.Repeat("n", 160)
	for _, c := range []struct{ object, spec string }{
		{"blank", "   "},
		{"accents", strings.Repeat("é", 150)},
		{long, ""},
	} {
		ak := h.newApiKey(c.object, org, v1alpha1.KeyModeLive, "events:read")
		ak.Spec.Name, ak.Spec.SecretName = c.spec, "names-secret"
		ak.Spec.RotationGracePeriod = &metav1.Duration{}
		h.create(ak)
		h.waitApiKey(c.object, v1alpha1.ReasonKeyIssued)
		key1, _, _, _ := h.keySecret("names-secret")
		update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "next" })
		h.eventually("rotated "+c.object[:5], func() error {
			if k, _, _, _ := h.keySecret("names-secret"); k == key1 {
				return errNotYet
			}
			return nil
		})
		key2, _, _, _ := h.keySecret("names-secret")
		h.wantStatus(key1, http.StatusUnauthorized)
		h.wantStatus(key2, http.StatusOK)
		if err := h.k8s.Delete(h.ctx, ak); err != nil {
			t.Fatal(err)
		}
		h.eventually("ApiKey "+c.object[:5]+" gone", func() error {
			if err := h.k8s.Get(h.ctx, h.key(c.object), &v1alpha1.ApiKey{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there: %v", err)
			}
			return nil
		})
		h.wantStatus(key2, http.StatusUnauthorized)
		if ks := h.activeKeys(org); len(ks) != 0 {
			t.Fatalf("%s: %d keys still active after deletion: %q", c.object[:5], len(ks), ks[0].Name)
		}
	}
}

// TestImmutableSecretIssuesNothing: a rotation into a Secret made immutable
// by hand is a SecretConflict, and no key is made or revoked for it (a
// retry that made one would fail to write it and revoke it): the current
// key stays the one that works.
func TestImmutableSecretIssuesNothing(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Frozen")
	ak := h.newApiKey("frozen", org, v1alpha1.KeyModeLive, "events:read")
	h.create(ak)
	h.waitApiKey("frozen", v1alpha1.ReasonKeyIssued)
	key, _, _, sec := h.keySecret("frozen-secret")
	update(h, sec, func(s *corev1.Secret) { s.Immutable = ptr(true) })
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "next" })
	h.waitApiKey("frozen", v1alpha1.ReasonSecretConflict)
	all, err := tenancy.ListKeys(h.ctx, h.db, org)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].RevokedAt != nil {
		t.Fatalf("%d keys after a rotation into an immutable Secret, want the 1 issued, active", len(all))
	}
	h.wantStatus(key, http.StatusOK)
}

func ptr[T any](v T) *T { return &v }

// TestSecretLabelRemovedByHand: the operator puts its managed-by label back
// on the Secret (its cache holds only Secrets carrying it), so it keeps
// seeing the Secret: deleted by hand afterwards, the Secret is written again
// with a new key at once.
func TestSecretLabelRemovedByHand(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Relabelled")
	h.create(h.newApiKey("relabelled", org, v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("relabelled", v1alpha1.ReasonKeyIssued)
	old, _, _, sec := h.keySecret("relabelled-secret")
	update(h, sec, func(s *corev1.Secret) { delete(s.Labels, controller.ManagedByLabel) })
	h.eventually("the managed-by label back on the Secret", func() error {
		var s corev1.Secret
		if err := h.k8s.Get(h.ctx, client.ObjectKeyFromObject(sec), &s); err != nil {
			return err
		}
		if s.Labels[controller.ManagedByLabel] != controller.ManagedByValue {
			return fmt.Errorf("labels %v: %w", s.Labels, errNotYet)
		}
		return nil
	})

	if err := h.k8s.Delete(h.ctx, sec); err != nil {
		t.Fatal(err)
	}
	h.eventually("the Secret written again", func() error {
		var s corev1.Secret
		if err := h.k8s.Get(h.ctx, client.ObjectKeyFromObject(sec), &s); err != nil {
			return err
		}
		if k := string(s.Data[controller.SecretKeyAPIKey]); k == "" || k == old {
			return errNotYet
		}
		return nil
	})
	key, _, _, _ := h.keySecret("relabelled-secret")
	h.wantStatus(key, http.StatusOK)
	h.wantStatus(old, http.StatusUnauthorized)
}
