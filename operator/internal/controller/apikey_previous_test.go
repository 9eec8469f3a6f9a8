package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
)

// scopesOf returns the stored scopes of key id.
func (g *pendingRig) scopesOf(id uuid.UUID) []string {
	g.t.Helper()
	k, err := tenancy.GetKey(g.ctx, g.r.DB, id)
	if err != nil {
		g.t.Fatal(err)
	}
	return k.Scopes
}

// events takes the events recorded since the last call.
func (g *pendingRig) events() []string {
	var out []string
	for {
		select {
		case e := <-g.ev.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// secret reads the rig's ApiKey's Secret.
func (g *pendingRig) secret() *corev1.Secret {
	g.t.Helper()
	sec := &corev1.Secret{}
	if err := g.c.Get(g.ctx, client.ObjectKey{Namespace: "ns", Name: "pend-secret"}, sec); err != nil {
		g.t.Fatal(err)
	}
	return sec
}

// rotated issues the rig's key with scopes from, then rotates it with
// spec.scopes set to to in the same edit, and returns the previous key's
// id, the new key's and the ApiKey as the rotating reconcile left it.
func (g *pendingRig) rotated(from, to []v1alpha1.Scope) (previous, current uuid.UUID, ak *v1alpha1.ApiKey) {
	g.t.Helper()
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.Scopes = from })
	g.reconcile(v1alpha1.ReasonKeyIssued)
	_, ak = g.reconcile(v1alpha1.ReasonKeyIssued)
	previous = uuid.MustParse(ak.Status.KeyID)
	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.RotationToken, a.Spec.Scopes = "r1", to })
	_, ak = g.reconcile(v1alpha1.ReasonKeyIssued)
	return previous, uuid.MustParse(ak.Status.KeyID), ak
}

// TestThePreviousKeyIsNeverWidened: a rotation that adds a scope in the
// same edit gives the new key the spec's scopes, and leaves the previous
// key, perhaps rotated out because it leaked, with its own: narrowed,
// never widened. It gained clients:write.
func TestThePreviousKeyIsNeverWidened(t *testing.T) {
	g := newPendingRig(t)
	previous, current, _ := g.rotated([]v1alpha1.Scope{"events:read"}, []v1alpha1.Scope{"events:read", "clients:write"})
	if s := g.scopesOf(previous); strings.Join(s, ",") != "events:read" {
		t.Errorf("the previous key has scopes %v, want only its own [events:read]", s)
	}
	if s := g.scopesOf(current); len(s) != 2 {
		t.Errorf("the new key has scopes %v, want both", s)
	}
	for _, e := range g.events() {
		if strings.Contains(e, "previous key") && strings.Contains(e, "ScopesUpdated") {
			t.Errorf("event %q: nothing of the previous key's changed", e)
		}
	}
}

// TestAPreviousKeyWithNoScopeLeftIsRevoked: a spec that grants none of the
// previous key's scopes revokes it at once, before its revokeAt, and clears
// its marker: a key cannot be left with no scope.
func TestAPreviousKeyWithNoScopeLeftIsRevoked(t *testing.T) {
	g := newPendingRig(t)
	previous, current, ak := g.rotated([]v1alpha1.Scope{"clients:write"}, []v1alpha1.Scope{"events:read"})
	if active := g.active(); active[previous] || !active[current] {
		t.Fatalf("active %v: want the previous key %s revoked and the new %s active", active, previous, current)
	}
	if ak.Status.PendingRevocation != nil { // in the reconcile that revoked it
		t.Errorf("status still names a pending key: %+v", ak.Status.PendingRevocation)
	}
	if _, ok := g.secret().Annotations[previousKeyAnnotation]; ok {
		t.Error("the Secret still names the revoked previous key")
	}
	g.wantEvent("PreviousKeyRevoked previous key")
}

// TestThePreviousKeyIsNarrowedOnce: a narrowed previous key is written and
// announced once, not at every recheck of its grace period.
func TestThePreviousKeyIsNarrowedOnce(t *testing.T) {
	g := newPendingRig(t)
	previous, _, _ := g.rotated([]v1alpha1.Scope{"events:read", "clients:write"}, []v1alpha1.Scope{"events:read"})
	if s := g.scopesOf(previous); strings.Join(s, ",") != "events:read" {
		t.Fatalf("the previous key has scopes %v, want [events:read]", s)
	}
	g.events()
	for range 3 {
		g.now = g.now.Add(30 * time.Second)
		g.reconcile(v1alpha1.ReasonKeyIssued)
	}
	for _, e := range g.events() {
		if strings.Contains(e, "ScopesUpdated") {
			t.Errorf("a recheck announced %q again", e)
		}
	}
}

// TestAnotherApiKeysKeyIsLeftAlone: a pending key named by the Secret's
// annotation or by status.pendingRevocation that is not this ApiKey's
// (another ApiKey's marker in the same organization, or this ApiKey's
// marker in another organization) is neither narrowed nor revoked.
func TestAnotherApiKeysKeyIsLeftAlone(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  func(g *pendingRig) tenancy.NewKey
	}{
		{"another ApiKey's, same organization", func(g *pendingRig) tenancy.NewKey {
			return tenancy.NewKey{OrganizationID: g.org, Name: "other [k8s:99999999-2222-3333-4444-555555555555]"}
		}},
		{"this ApiKey's marker, another organization", func(g *pendingRig) tenancy.NewKey {
			o, err := tenancy.CreateOrganization(g.ctx, g.r.DB, "Other", nil)
			if err != nil {
				g.t.Fatal(err)
			}
			return tenancy.NewKey{OrganizationID: o.ID, Name: "pend [k8s:11111111-2222-3333-4444-555555555555]"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { anotherKeyIsLeftAlone(t, tc.key) })
	}
}

// anotherKeyIsLeftAlone runs TestAnotherApiKeysKeyIsLeftAlone with the key
// newKey describes (its scopes and mode set here).
func anotherKeyIsLeftAlone(t *testing.T, newKey func(g *pendingRig) tenancy.NewKey) {
	g := newPendingRig(t)
	g.reconcile(v1alpha1.ReasonKeyIssued)
	g.reconcile(v1alpha1.ReasonKeyIssued)
	nk := newKey(g)
	nk.Scopes, nk.Mode = []tenancy.Scope{tenancy.EventsRead, tenancy.ClientsWrite}, "live"
	foreign, err := tenancy.CreateKey(g.ctx, g.r.DB, nk)
	if err != nil {
		t.Fatal(err)
	}
	sec := g.secret()
	sec.Annotations[previousKeyAnnotation] = foreign.ID.String()
	sec.Annotations[revokePreviousAnnotation] = g.now.Add(time.Hour).UTC().Format(time.RFC3339)
	if err := g.c.Update(g.ctx, sec); err != nil {
		t.Fatal(err)
	}
	g.reconcile(v1alpha1.ReasonKeyIssued)
	if s := g.scopesOf(foreign.ID); len(s) != 2 {
		t.Errorf("another ApiKey's key was narrowed to %v", s)
	}
	sec = g.secret()
	sec.OwnerReferences = nil
	if err := g.c.Update(g.ctx, sec); err != nil {
		t.Fatal(err)
	}
	_, ak := g.reconcile(v1alpha1.ReasonSecretConflict)
	ak.Status.PendingRevocation = &v1alpha1.PendingRevocation{KeyID: foreign.ID.String(), RevokeAt: metav1.NewTime(g.now.Add(-time.Hour))}
	if err := g.c.Status().Update(g.ctx, ak); err != nil {
		t.Fatal(err)
	}
	g.reconcile(v1alpha1.ReasonSecretConflict)
	if k, err := tenancy.GetKey(g.ctx, g.r.DB, foreign.ID); err != nil || k.RevokedAt != nil {
		t.Errorf("another ApiKey's key was revoked through status.pendingRevocation (%v)", err)
	}
}

// TestAConflictNeverRevokesTheCurrentKey: while the Secret is not this
// ApiKey's, a status.pendingRevocation that names the current key (edited,
// or left by an earlier sequence) does not revoke it: the key last issued
// stays active through a conflict.
func TestAConflictNeverRevokesTheCurrentKey(t *testing.T) {
	g := newPendingRig(t)
	g.reconcile(v1alpha1.ReasonKeyIssued)
	_, ak := g.reconcile(v1alpha1.ReasonKeyIssued)
	cur := uuid.MustParse(ak.Status.KeyID)
	sec := g.secret()
	sec.OwnerReferences = nil
	if err := g.c.Update(g.ctx, sec); err != nil {
		t.Fatal(err)
	}
	_, ak = g.reconcile(v1alpha1.ReasonSecretConflict)
	ak.Status.PendingRevocation = &v1alpha1.PendingRevocation{KeyID: cur.String(), RevokeAt: metav1.NewTime(g.now.Add(-time.Hour))}
	if err := g.c.Status().Update(g.ctx, ak); err != nil {
		t.Fatal(err)
	}
	g.reconcile(v1alpha1.ReasonSecretConflict)
	if !g.active()[cur] {
		t.Error("the current key was revoked as the pending one")
	}
}
