package controller_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
)

// conflictGrace is the grace period of the rotations below that end in a
// SecretConflict: long enough that the edit which stops the next reconcile
// from reaching settlePending (the Secret taken over, made immutable) lands
// before the previous key's revokeAt, so that without the fix under test
// that key is never revoked; short enough to wait for.
const conflictGrace = 6 * time.Second

// rotated creates the ApiKey name with the grace period given, waits for its
// key, rotates it once and returns the ApiKey, its organization, the
// previous key (pending revocation) and the current one.
func (h *harness) rotated(name string, grace time.Duration, scopes ...v1alpha1.Scope) (ak *v1alpha1.ApiKey, org uuid.UUID, previous, current string) {
	h.t.Helper()
	org = h.createOrg("Acme " + name)
	ak = h.newApiKey(name, org, v1alpha1.KeyModeLive, scopes...)
	ak.Spec.RotationGracePeriod = &metav1.Duration{Duration: grace}
	h.create(ak)
	h.waitApiKey(name, v1alpha1.ReasonKeyIssued)
	previous, _, id1, _ := h.keySecret(name + "-secret")
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r2" })
	ak = h.waitApiKey(name, v1alpha1.ReasonKeyIssued)
	current, _, id2, _ := h.keySecret(name + "-secret")
	if id2 == id1 || ak.Status.KeyID != id2 || ak.Status.PendingRevocation == nil || ak.Status.PendingRevocation.KeyID != id1 {
		h.t.Fatalf("rotation: Secret key %s (was %s), status %+v; want a new key and %s pending", id2, id1, ak.Status, id1)
	}
	return ak, org, previous, current
}

// TestASecretTakenOverStillRevokesKeys: once the ApiKey no longer controls
// its Secret (its owner reference removed, as kubectl replace, a GitOps
// tool or a restore leaves it), the ApiKey is SecretConflict and nothing is
// issued, but the previous key of a rotation is still revoked at its
// revokeAt (taken from status.pendingRevocation), while the current key,
// which clients may still read from that Secret, keeps working; and an
// expiresAt moved into the past still revokes every key (docs/operator.md,
// SecretConflict). The conflict returned before any of that, and both keys
// stayed active for as long as it lasted.
func TestASecretTakenOverStillRevokesKeys(t *testing.T) {
	h := newHarness(t)
	ak, org, previous, current := h.rotated("taken", conflictGrace, "events:read")
	_, _, _, sec := h.keySecret("taken-secret")
	sec.OwnerReferences = nil
	if err := h.k8s.Update(h.ctx, sec); err != nil {
		t.Fatal(err)
	}
	h.waitApiKey("taken", v1alpha1.ReasonSecretConflict)

	h.wantStatus(previous, http.StatusUnauthorized) // at its revokeAt
	h.eventually("status.pendingRevocation cleared", func() error {
		if got := h.waitApiKey("taken", v1alpha1.ReasonSecretConflict); got.Status.PendingRevocation != nil {
			return fmt.Errorf("pendingRevocation %+v", got.Status.PendingRevocation)
		}
		return nil
	})
	h.wantStatus(current, http.StatusOK)

	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.ExpiresAt = &metav1.Time{Time: time.Now().Add(-time.Hour)} })
	got := h.waitApiKey("taken", v1alpha1.ReasonSecretConflict)
	h.wantStatus(current, http.StatusUnauthorized)
	if n := len(h.activeKeys(org)); n != 0 || got.Status.KeyID != "" {
		t.Errorf("expiresAt in the past while SecretConflict: %d active keys, status.keyId %q; want none", n, got.Status.KeyID)
	}
	// The Secret is not the ApiKey's: it is left as its new owner wrote it.
	if _, _, _, after := h.keySecret("taken-secret"); len(after.OwnerReferences) != 0 {
		t.Errorf("the Secret taken over got owner references %v back", after.OwnerReferences)
	}
}

// TestAnImmutableSecretStillRevokesThePreviousKey: a rotation into a Secret
// made immutable during an earlier rotation's grace period is SecretConflict
// and issues nothing, but the earlier rotation's previous key is still
// revoked at its revokeAt, and its annotations cleared from the Secret (its
// metadata may still change). It stayed active for as long as the Secret
// was immutable.
func TestAnImmutableSecretStillRevokesThePreviousKey(t *testing.T) {
	h := newHarness(t)
	ak, org, previous, current := h.rotated("frozen", conflictGrace, "events:read")
	_, _, _, sec := h.keySecret("frozen-secret")
	update(h, sec, func(s *corev1.Secret) { s.Immutable = ptr(true) })
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r3" })
	h.waitApiKey("frozen", v1alpha1.ReasonSecretConflict)

	h.wantStatus(previous, http.StatusUnauthorized) // at its revokeAt
	h.eventually("the previous key cleared from the Secret and status", func() error {
		if _, _, _, s := h.keySecret("frozen-secret"); s.Annotations["eventapi.io/previous-key-id"] != "" {
			return fmt.Errorf("annotations %v", s.Annotations)
		}
		if got := h.waitApiKey("frozen", v1alpha1.ReasonSecretConflict); got.Status.PendingRevocation != nil {
			return fmt.Errorf("pendingRevocation %+v", got.Status.PendingRevocation)
		}
		return nil
	})
	h.wantStatus(current, http.StatusOK)
	if n := len(h.activeKeys(org)); n != 1 {
		t.Errorf("%d active keys, want only the Secret's: nothing is issued into an immutable Secret", n)
	}
}

// TestNarrowedScopesApplyToThePreviousKey: scopes narrowed during a
// rotation's grace period apply to the previous key too, not only to the
// current one (docs/operator.md, the scopes row). The previous key kept the
// wider scopes until its revokeAt, so a scope removed (after an incident,
// say) stayed usable with it.
func TestNarrowedScopesApplyToThePreviousKey(t *testing.T) {
	h := newHarness(t)
	ak, _, previous, current := h.rotated("narrow", 2*time.Minute, "events:read", "clients:write")
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.Scopes = []v1alpha1.Scope{"events:read"} })
	h.waitApiKey("narrow", v1alpha1.ReasonKeyIssued)
	h.wantScopes(current, "events:read")
	h.wantScopes(previous, "events:read")
}
