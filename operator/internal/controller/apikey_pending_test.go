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
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// pendingRig is an ApiKeyReconciler on controller-runtime's fake client, a
// fake clock and a real PostgreSQL: it steps through a grace period in
// reconciles, without waiting for it.
type pendingRig struct {
	t   *testing.T
	ctx context.Context
	c   client.Client
	r   *ApiKeyReconciler
	ev  *events.FakeRecorder
	org uuid.UUID
	now time.Time
	req ctrl.Request
}

func newPendingRig(t *testing.T) *pendingRig {
	t.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewDatabase(t), database.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	org, err := tenancy.CreateOrganization(ctx, db, "Pending", nil)
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ak := &v1alpha1.ApiKey{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pend", UID: "11111111-2222-3333-4444-555555555555", Generation: 1},
		Spec: v1alpha1.ApiKeySpec{OrganizationID: org.ID.String(), Scopes: []v1alpha1.Scope{"events:read"}, Mode: v1alpha1.KeyModeLive,
			SecretName: "pend-secret", RotationGracePeriod: &metav1.Duration{Duration: 5 * time.Minute}},
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ak).WithStatusSubresource(ak).Build()
	g := &pendingRig{t: t, ctx: ctx, c: c, ev: events.NewFakeRecorder(100), org: org.ID,
		now: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC), req: ctrl.Request{NamespacedName: client.ObjectKeyFromObject(ak)}}
	g.r = &ApiKeyReconciler{Client: c, APIReader: c, Scheme: scheme, DB: db, Recorder: g.ev, Now: func() time.Time { return g.now }}
	g.r.fin = finalizer[*v1alpha1.ApiKey]{client: c, name: v1alpha1.Finalizer, cleanup: g.r.cleanup}
	return g
}

// reconcile runs one Reconcile and returns its requeue and the ApiKey after it.
func (g *pendingRig) reconcile(wantReason string) (time.Duration, *v1alpha1.ApiKey) {
	g.t.Helper()
	res, err := g.r.Reconcile(g.ctx, g.req)
	if err != nil {
		g.t.Fatalf("reconcile: %v", err)
	}
	ak := &v1alpha1.ApiKey{}
	if err := g.c.Get(g.ctx, g.req.NamespacedName, ak); err != nil {
		g.t.Fatal(err)
	}
	if c := meta.FindStatusCondition(ak.Status.Conditions, v1alpha1.ConditionReady); c == nil || c.Reason != wantReason {
		g.t.Fatalf("Ready = %+v, want reason %s", c, wantReason)
	}
	return res.RequeueAfter, ak
}

// edit changes the spec as a user would (a new generation).
func (g *pendingRig) edit(change func(*v1alpha1.ApiKey)) {
	g.t.Helper()
	ak := &v1alpha1.ApiKey{}
	if err := g.c.Get(g.ctx, g.req.NamespacedName, ak); err != nil {
		g.t.Fatal(err)
	}
	change(ak)
	ak.Generation++
	if err := g.c.Update(g.ctx, ak); err != nil {
		g.t.Fatal(err)
	}
}

// active lists the ids of the organization's unrevoked keys.
func (g *pendingRig) active() map[uuid.UUID]bool {
	g.t.Helper()
	keys, err := tenancy.ListKeys(g.ctx, g.r.DB, g.org)
	if err != nil {
		g.t.Fatal(err)
	}
	out := map[uuid.UUID]bool{}
	for _, k := range keys {
		if k.RevokedAt == nil {
			out[k.ID] = true
		}
	}
	return out
}

// A spec that turns invalid during a rotation's grace period (a name
// tenancy refuses) issues nothing, but still requeues at revokeAt and
// revokes the previous key then, and revokes a stray, keeping the Secret's
// key (docs/operator.md, Lifecycle step 3 and InvalidSpec). It used to
// return InvalidSpec before reaching the revocation, leaving the
// rotated-out key active for good.
func TestAnInvalidSpecStillRevokesThePreviousKey(t *testing.T) {
	g := newPendingRig(t)
	g.reconcile(v1alpha1.ReasonKeyIssued)
	_, ak := g.reconcile(v1alpha1.ReasonKeyIssued)
	old := uuid.MustParse(ak.Status.KeyID)

	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r1" })
	after, ak := g.reconcile(v1alpha1.ReasonKeyIssued)
	cur := uuid.MustParse(ak.Status.KeyID)
	if after != 5*time.Minute || ak.Status.PendingRevocation == nil || ak.Status.PendingRevocation.KeyID != old.String() {
		t.Fatalf("rotation: requeue %s, pending %+v; want 5m and %s", after, ak.Status.PendingRevocation, old)
	}

	g.now = g.now.Add(time.Minute)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.Name = "Planner\tv2" })
	after, ak = g.reconcile(v1alpha1.ReasonInvalidSpec)
	if after != 4*time.Minute || ak.Status.PendingRevocation == nil {
		t.Fatalf("invalid within the grace period: requeue %s, pending %+v; want 4m (at revokeAt), still pending", after, ak.Status.PendingRevocation)
	}
	if a := g.active(); len(a) != 2 || !a[old] || !a[cur] {
		t.Fatalf("within the grace period: active keys %v, want the old %s and the current %s", a, old, cur)
	}

	// A stray of this ApiKey (its marker), as an interrupted issue leaves.
	stray, err := tenancy.CreateKey(g.ctx, g.r.DB, tenancy.NewKey{OrganizationID: g.org, Name: "pend" + keyMarker(ak),
		Scopes: []tenancy.Scope{tenancy.EventsRead}, Mode: apikey.Live})
	if err != nil {
		t.Fatal(err)
	}
	g.now = g.now.Add(4 * time.Minute) // revokeAt
	after, ak = g.reconcile(v1alpha1.ReasonInvalidSpec)
	if after != 0 || ak.Status.PendingRevocation != nil || ak.Status.KeyID != cur.String() {
		t.Fatalf("at revokeAt: requeue %s, pending %+v, keyId %s; want none, none, %s", after, ak.Status.PendingRevocation, ak.Status.KeyID, cur)
	}
	if a := g.active(); len(a) != 1 || !a[cur] {
		t.Fatalf("at revokeAt: active keys %v, want only the Secret's %s (old %s, stray %s revoked)", a, cur, old, stray.ID)
	}
	sec := &corev1.Secret{}
	if err := g.c.Get(g.ctx, client.ObjectKey{Namespace: "ns", Name: "pend-secret"}, sec); err != nil {
		t.Fatal(err)
	}
	if _, ok := sec.Annotations[previousKeyAnnotation]; ok || string(sec.Data[SecretKeyID]) != cur.String() {
		t.Fatalf("Secret: annotations %v, key-id %s; want no previous key, %s", sec.Annotations, sec.Data[SecretKeyID], cur)
	}
	g.wantEvent("PreviousKeyRevoked " + "previous key " + old.String())
}

// wantEvent checks that an event starting with prefix (after its type) was
// recorded.
func (g *pendingRig) wantEvent(prefix string) {
	g.t.Helper()
	for {
		select {
		case e := <-g.ev.Events:
			if strings.HasPrefix(e, corev1.EventTypeNormal+" "+prefix) {
				return
			}
		default:
			g.t.Fatalf("no event %q", prefix)
		}
	}
}

// TestASecretConflictRequeuesAtTheRevokeAt: while the Secret is not
// controlled by the ApiKey (SecretConflict), the reconcile requeues at the
// pending previous key's revokeAt, from status.pendingRevocation, when that
// comes before the conflict's own minute, and revokes that key then, while
// the current key stays active; an expiresAt moved into the past then
// revokes it too (docs/operator.md, SecretConflict). The conflict returned
// first, requeued every minute and revoked nothing.
func TestASecretConflictRequeuesAtTheRevokeAt(t *testing.T) {
	g := newPendingRig(t)
	g.reconcile(v1alpha1.ReasonKeyIssued)
	_, ak := g.reconcile(v1alpha1.ReasonKeyIssued)
	old := uuid.MustParse(ak.Status.KeyID)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r1" })
	_, ak = g.reconcile(v1alpha1.ReasonKeyIssued)
	cur := uuid.MustParse(ak.Status.KeyID)

	sec := &corev1.Secret{}
	if err := g.c.Get(g.ctx, client.ObjectKey{Namespace: "ns", Name: "pend-secret"}, sec); err != nil {
		t.Fatal(err)
	}
	sec.OwnerReferences = nil // taken over
	if err := g.c.Update(g.ctx, sec); err != nil {
		t.Fatal(err)
	}
	g.now = g.now.Add(4*time.Minute + 30*time.Second)
	after, ak := g.reconcile(v1alpha1.ReasonSecretConflict)
	if after != 30*time.Second || ak.Status.PendingRevocation == nil || ak.Status.PendingRevocation.KeyID != old.String() {
		t.Fatalf("conflict within the grace period: requeue %s, pending %+v; want 30s (at revokeAt), %s pending", after, ak.Status.PendingRevocation, old)
	}
	if a := g.active(); len(a) != 2 || !a[old] || !a[cur] {
		t.Fatalf("within the grace period: active keys %v, want the old %s and the current %s", a, old, cur)
	}

	g.now = g.now.Add(30 * time.Second) // revokeAt
	after, ak = g.reconcile(v1alpha1.ReasonSecretConflict)
	if after != time.Minute || ak.Status.PendingRevocation != nil || ak.Status.KeyID != cur.String() {
		t.Fatalf("at revokeAt: requeue %s, pending %+v, keyId %s; want 1m, none, %s", after, ak.Status.PendingRevocation, ak.Status.KeyID, cur)
	}
	if a := g.active(); len(a) != 1 || !a[cur] {
		t.Fatalf("at revokeAt: active keys %v, want only the current %s (the Secret may still hold it)", a, cur)
	}
	g.wantEvent("PreviousKeyRevoked previous key " + old.String())

	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.ExpiresAt = &metav1.Time{Time: g.now.Add(-time.Second)} })
	_, ak = g.reconcile(v1alpha1.ReasonSecretConflict)
	if a := g.active(); len(a) != 0 || ak.Status.KeyID != "" {
		t.Errorf("expiresAt in the past while SecretConflict: active keys %v, keyId %q; want none", a, ak.Status.KeyID)
	}
	if c := meta.FindStatusCondition(ak.Status.Conditions, v1alpha1.ConditionReady); !strings.Contains(c.Message, "every key of this ApiKey is revoked") {
		t.Errorf("SecretConflict message %q, want it to say the keys are revoked", c.Message)
	}
	g.wantEvent("KeysRevoked spec.expiresAt")
}

// TestAnInvalidSpecWithASecretConflictStillRevokesThePreviousKey: a spec
// refused (InvalidSpec) while the Secret is taken over still revokes the
// pending previous key at its revokeAt, through the same path as a valid
// spec's conflict (settleConflict); the conflict is the reason reported.
func TestAnInvalidSpecWithASecretConflictStillRevokesThePreviousKey(t *testing.T) {
	g := newPendingRig(t)
	g.reconcile(v1alpha1.ReasonKeyIssued)
	_, ak := g.reconcile(v1alpha1.ReasonKeyIssued)
	old := uuid.MustParse(ak.Status.KeyID)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r1" })
	_, ak = g.reconcile(v1alpha1.ReasonKeyIssued)
	cur := uuid.MustParse(ak.Status.KeyID)
	sec := &corev1.Secret{}
	if err := g.c.Get(g.ctx, client.ObjectKey{Namespace: "ns", Name: "pend-secret"}, sec); err != nil {
		t.Fatal(err)
	}
	sec.OwnerReferences = nil
	if err := g.c.Update(g.ctx, sec); err != nil {
		t.Fatal(err)
	}
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.Name = "Planner\tv2" })
	g.now = g.now.Add(4*time.Minute + 20*time.Second)
	if after, _ := g.reconcile(v1alpha1.ReasonSecretConflict); after != 40*time.Second {
		t.Fatalf("within the grace period: requeue %s, want 40s (at revokeAt)", after)
	}
	g.now = g.now.Add(40 * time.Second)
	g.reconcile(v1alpha1.ReasonSecretConflict)
	if a := g.active(); len(a) != 1 || !a[cur] {
		t.Fatalf("at revokeAt: active keys %v, want only the current %s (old %s revoked)", a, cur, old)
	}
}

// TestARotationThatNarrowsScopesNarrowsThePreviousKey: scopes narrowed in
// the same edit as a rotation apply to the previous key for its grace
// period too, as a narrowing during the grace period does (docs/operator.md,
// the scopes row): the previous key never keeps scopes the spec dropped.
func TestARotationThatNarrowsScopesNarrowsThePreviousKey(t *testing.T) {
	g := newPendingRig(t)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.Scopes = []v1alpha1.Scope{"events:read", "clients:write"} })
	g.reconcile(v1alpha1.ReasonKeyIssued)
	_, ak := g.reconcile(v1alpha1.ReasonKeyIssued)
	old := uuid.MustParse(ak.Status.KeyID)
	g.edit(func(a *v1alpha1.ApiKey) {
		a.Spec.RotationToken = "r1"
		a.Spec.Scopes = []v1alpha1.Scope{"events:read"}
	})
	_, ak = g.reconcile(v1alpha1.ReasonKeyIssued)
	if ak.Status.PendingRevocation == nil || ak.Status.PendingRevocation.KeyID != old.String() {
		t.Fatalf("rotation: pending %+v, want %s", ak.Status.PendingRevocation, old)
	}
	for _, id := range []uuid.UUID{old, uuid.MustParse(ak.Status.KeyID)} {
		k, err := tenancy.GetKey(g.ctx, g.r.DB, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(k.Scopes) != 1 || k.Scopes[0] != "events:read" {
			t.Errorf("key %s has scopes %v, want [events:read]", id, k.Scopes)
		}
	}
	g.wantEvent("ScopesUpdated previous key")
}
