package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
)

// TestAnExpiryMovedIntoThePastRevokesTheKeys: spec.expiresAt set to a time
// already past on an ApiKey with a working key and a rotated-out key still
// in its grace period issues no key and revokes both at once
// (docs/operator.md, Expired). It issued an already-expired key into the
// Secret, and the working key was then kept as the pending previous key for
// the grace period. A later expiresAt issues a new key.
func TestAnExpiryMovedIntoThePastRevokesTheKeys(t *testing.T) {
	g := newPendingRig(t)
	_, first := g.reconcile(v1alpha1.ReasonKeyIssued)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r1" })
	_, rotated := g.reconcile(v1alpha1.ReasonKeyIssued)
	working := uuid.MustParse(rotated.Status.KeyID)
	if a := g.active(); len(a) != 2 || !a[uuid.MustParse(first.Status.KeyID)] || !a[working] {
		t.Fatalf("after the rotation: active keys %v, want the first and the working key", a)
	}
	before := g.keyCount()

	g.now = g.now.Add(time.Minute)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.ExpiresAt = &metav1.Time{Time: g.now.Add(-time.Second)} })
	after, ak := g.reconcile(v1alpha1.ReasonExpired)
	if a := g.active(); len(a) != 0 {
		t.Errorf("expiresAt in the past: active keys %v, want none", a)
	}
	if n := g.keyCount(); n != before {
		t.Errorf("%d keys, %d before: a key was issued for an expiry already past", n, before)
	}
	if after != 0 || ak.Status.PendingRevocation != nil || ak.Status.KeyID != "" || ak.Status.Prefix != "" {
		t.Errorf("requeue %s, pending %+v, keyId %q, prefix %q; want none of them", after, ak.Status.PendingRevocation, ak.Status.KeyID, ak.Status.Prefix)
	}
	if c := meta.FindStatusCondition(ak.Status.Conditions, v1alpha1.ConditionReady); !strings.Contains(c.Message, "no key is issued") {
		t.Errorf("Expired message %q, want it to say no key is issued", c.Message)
	}
	sec := &corev1.Secret{}
	if err := g.c.Get(g.ctx, client.ObjectKey{Namespace: "ns", Name: "pend-secret"}, sec); err != nil {
		t.Fatal(err)
	}
	if _, ok := sec.Annotations[previousKeyAnnotation]; ok || string(sec.Data[SecretKeyID]) != working.String() {
		t.Errorf("Secret: annotations %v, key-id %s; want no previous key and the revoked %s left as it was", sec.Annotations, sec.Data[SecretKeyID], working)
	}
	g.wantEvent("KeysRevoked spec.expiresAt")

	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.ExpiresAt = &metav1.Time{Time: g.now.Add(time.Hour)} })
	_, renewed := g.reconcile(v1alpha1.ReasonKeyIssued)
	if a := g.active(); len(a) != 1 || !a[uuid.MustParse(renewed.Status.KeyID)] {
		t.Errorf("a later expiresAt: active keys %v, want only the new key %s", a, renewed.Status.KeyID)
	}
}

// TestAnInvalidSpecStillExpiresTheKeys: expiresAt moved into the past in
// the same edit as a value the operator refuses (a name tenancy refuses)
// still revokes the keys: InvalidSpec, and none active. The refused spec
// returned first and left the working key valid.
func TestAnInvalidSpecStillExpiresTheKeys(t *testing.T) {
	g := newPendingRig(t)
	g.reconcile(v1alpha1.ReasonKeyIssued)
	g.edit(func(a *v1alpha1.ApiKey) {
		a.Spec.Name = "Planner\tv2"
		a.Spec.ExpiresAt = &metav1.Time{Time: g.now.Add(-time.Second)}
	})
	_, ak := g.reconcile(v1alpha1.ReasonInvalidSpec)
	if a := g.active(); len(a) != 0 || ak.Status.KeyID != "" {
		t.Errorf("invalid and expired: active keys %v, keyId %q; want none", a, ak.Status.KeyID)
	}
}

// TestAStoppingManagerReportsNothing: a reconcile whose context the manager
// cancelled (a SIGTERM, a lost lease) while it was issuing a key returns
// without an error, a Warning or a status change. It reported the
// cancelled database call as DatabaseError, with a Warning, on every
// rolling update of the operator that met a reconcile in flight.
func TestAStoppingManagerReportsNothing(t *testing.T) {
	g := newPendingRig(t)
	_, before := g.reconcile(v1alpha1.ReasonKeyIssued)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r1" })
	ctx, cancel := context.WithCancel(g.ctx)
	cancel() // the fake client ignores it; the database call does not
	if _, err := g.r.Reconcile(ctx, g.req); err != nil {
		t.Errorf("reconcile cut short by the manager: %v, want no error", err)
	}
	ak := &v1alpha1.ApiKey{}
	if err := g.c.Get(g.ctx, g.req.NamespacedName, ak); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(ak.Status.Conditions, v1alpha1.ConditionReady); c == nil || c.Reason != v1alpha1.ReasonKeyIssued || ak.Status.KeyID != before.Status.KeyID {
		t.Errorf("status after the cut-short reconcile: Ready %+v, keyId %s; want KeyIssued and %s as before", c, ak.Status.KeyID, before.Status.KeyID)
	}
	for len(g.ev.Events) > 0 {
		if e := <-g.ev.Events; strings.HasPrefix(e, corev1.EventTypeWarning) {
			t.Errorf("event %q for a reconcile the manager cut short", e)
		}
	}
	if _, next := g.reconcile(v1alpha1.ReasonKeyIssued); next.Status.KeyID == before.Status.KeyID {
		t.Errorf("the next reconcile kept key %s, want the rotation done", next.Status.KeyID)
	}
}

// keyCount is the number of the organization's keys, revoked ones included.
func (g *pendingRig) keyCount() int {
	g.t.Helper()
	keys, err := tenancy.ListKeys(g.ctx, g.r.DB, g.org)
	if err != nil {
		g.t.Fatal(err)
	}
	return len(keys)
}
