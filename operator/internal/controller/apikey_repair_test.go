package controller

import (
	"testing"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
)

// TestALostStatusPatchIsRepaired: the operator stopped after a key's Secret
// write and before the status patch (kill -9, a lost lease), shown here by
// putting the status from before the issue back. The next reconcile names
// the Secret's key in status and sets lastRotationTime from that key's
// created_at, to the second; without the repair it would keep the
// previous rotation's time (or none, when the first issue's patch was lost)
// for good.
func TestALostStatusPatchIsRepaired(t *testing.T) {
	g := newPendingRig(t)
	_, first := g.reconcile(v1alpha1.ReasonKeyIssued)
	g.now = g.now.Add(time.Minute)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r1" })
	_, rotated := g.reconcile(v1alpha1.ReasonKeyIssued)
	if rotated.Status.KeyID == first.Status.KeyID || !rotated.Status.LastRotationTime.Time.Equal(g.now) {
		t.Fatalf("rotation: keyId %s, lastRotationTime %v; want a new key issued at %v", rotated.Status.KeyID, rotated.Status.LastRotationTime, g.now)
	}
	k, err := tenancy.GetKey(g.ctx, g.r.DB, uuid.MustParse(rotated.Status.KeyID))
	if err != nil {
		t.Fatal(err)
	}
	want := k.CreatedAt.Truncate(time.Second)
	for name, lost := range map[string]v1alpha1.ApiKeyStatus{
		"the rotation's patch lost":    first.Status,
		"the first issue's patch lost": {},
	} {
		ak := &v1alpha1.ApiKey{}
		if err := g.c.Get(g.ctx, g.req.NamespacedName, ak); err != nil {
			t.Fatal(err)
		}
		ak.Status = lost
		if err := g.c.Status().Update(g.ctx, ak); err != nil {
			t.Fatal(err)
		}
		_, got := g.reconcile(v1alpha1.ReasonKeyIssued)
		if got.Status.KeyID != rotated.Status.KeyID || got.Status.LastRotationTime == nil || !got.Status.LastRotationTime.Time.Equal(want) {
			t.Errorf("%s: keyId %s, lastRotationTime %v; want %s created at %v", name, got.Status.KeyID, got.Status.LastRotationTime, k.ID, want)
		}
	}
}

// TestAnExpiredApiKeyIssuesNoKey: an ApiKey whose expiresAt has passed and
// whose Secret holds no usable key (deleted by hand) gets no new key:
// Expired, no key made, no Secret written. One was issued each time the
// Secret was deleted, though always refused.
func TestAnExpiredApiKeyIssuesNoKey(t *testing.T) {
	g := newPendingRig(t)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.ExpiresAt = &metav1.Time{Time: g.now.Add(time.Hour)} })
	g.reconcile(v1alpha1.ReasonKeyIssued)
	g.now = g.now.Add(2 * time.Hour)
	g.reconcile(v1alpha1.ReasonExpired)
	keys, err := tenancy.ListKeys(g.ctx, g.r.DB, g.org)
	if err != nil {
		t.Fatal(err)
	}
	secret := client.ObjectKey{Namespace: "ns", Name: "pend-secret"}
	if err := g.c.Delete(g.ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secret.Namespace, Name: secret.Name}}); err != nil {
		t.Fatal(err)
	}
	g.reconcile(v1alpha1.ReasonExpired)
	after, err := tenancy.ListKeys(g.ctx, g.r.DB, g.org)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(keys) {
		t.Errorf("%d keys after the reconcile, %d before: a key was issued for an expired ApiKey", len(after), len(keys))
	}
	if err := g.c.Get(g.ctx, secret, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Errorf("Secret of an expired ApiKey written again: %v", err)
	}
}
