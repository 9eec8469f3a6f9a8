package controller

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// Every key the operator issues is named "<spec name> [k8s:<ApiKey uid>]".
// The marker ties a key to its ApiKey in the database itself, so a key whose
// Secret was never written (a crash between the two) is found and revoked
// before the next one is issued: keys never leak, however often that happens.

func keyMarker(ak *v1alpha1.ApiKey) string { return " [k8s:" + string(ak.UID) + "]" }

// markedFor reports whether a stored key name carries ak's marker. A key
// issued for a blank spec.name before displayName existed was stored as
// the marker alone, trimmed of its leading space; it is ak's too, so that
// the next reconcile revokes it. tenancy.ListActiveKeysMarked applies the
// same rule in the database.
func markedFor(name string, ak *v1alpha1.ApiKey) bool {
	m := keyMarker(ak)
	return strings.HasSuffix(name, m) || name == strings.TrimSpace(m)
}

// keyName is the stored name: the display name (never blank, never ending
// in a space) and the marker, which revocations find the keys by.
func keyName(ak *v1alpha1.ApiKey, spec keySpec) string {
	return spec.name + keyMarker(ak)
}

// currentKey returns the stored key the Secret holds, or nil when the Secret
// holds none that is usable: missing, unknown id, another organization,
// revoked, a key text that does not hash to the stored key, or a key that is
// not this ApiKey's (no marker: another ApiKey's key, or one made with the
// CLI, copied into the Secret). Such a key is left as it is: adopting it
// would rescope a key the ApiKey does not own and leave its own key
// active with no Secret holding it, and deleting the ApiKey would not
// revoke it.
func (r *ApiKeyReconciler) currentKey(ctx context.Context, ak *v1alpha1.ApiKey, org uuid.UUID, sec keySecret) (*tenancy.APIKey, error) {
	id, ok := sec.keyID()
	if !ok {
		return nil, nil
	}
	k, err := tenancy.GetKey(ctx, r.DB, id)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h := apikey.Hash(sec.data(SecretKeyAPIKey))
	if k.OrganizationID != org || k.RevokedAt != nil || !markedFor(k.Name, ak) || subtle.ConstantTimeCompare(h[:], k.Hash) != 1 {
		return nil, nil
	}
	return k, nil
}

// revokeStray revokes every active key of this ApiKey (by its marker) except
// those in keep. With no keep it revokes them all (deletion).
func (r *ApiKeyReconciler) revokeStray(ctx context.Context, ak *v1alpha1.ApiKey, org uuid.UUID, keep ...uuid.UUID) (int, error) {
	keys, err := tenancy.ListActiveKeysMarked(ctx, r.DB, org, keyMarker(ak))
	if err != nil {
		return 0, err
	}
	n := 0
outer:
	for _, k := range keys {
		for _, id := range keep {
			if k.ID == id {
				continue outer
			}
		}
		if err := tenancy.RevokeKey(ctx, r.DB, k.ID); err != nil && !errs.Is(err, errs.NotFound) {
			return n, err
		}
		r.nameEndpoints(ctx, ak, org, k.ID)
		n++
	}
	return n, nil
}

// ownedKey returns the active key id of this ApiKey in org, or nil when
// there is none: an unknown or revoked key, or a key of another
// organization or another ApiKey. The id comes from a Secret annotation or
// from status, which are not trusted with other keys.
func (r *ApiKeyReconciler) ownedKey(ctx context.Context, ak *v1alpha1.ApiKey, org, id uuid.UUID) (*tenancy.APIKey, error) {
	k, err := tenancy.GetKey(ctx, r.DB, id)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if k.OrganizationID != org || !markedFor(k.Name, ak) || k.RevokedAt != nil {
		return nil, nil
	}
	return k, nil
}

// revokeOwned revokes one key of this ApiKey and reports whether it did; a
// key ownedKey does not return is left alone.
func (r *ApiKeyReconciler) revokeOwned(ctx context.Context, ak *v1alpha1.ApiKey, org, id uuid.UUID) (bool, error) {
	if k, err := r.ownedKey(ctx, ak, org, id); k == nil || err != nil {
		return false, err
	}
	if err := tenancy.RevokeKey(ctx, r.DB, id); err != nil {
		if errs.Is(err, errs.NotFound) { // revoked meanwhile
			return false, nil
		}
		return false, err
	}
	r.nameEndpoints(ctx, ak, org, id)
	return true, nil
}

// maxNamedEndpoints bounds the endpoints an EndpointsOutliveKey event names
// by id (an event's message is cut at 1 KiB); the count is always whole.
const maxNamedEndpoints = 10

// nameEndpoints records a Warning event EndpointsOutliveKey on ak when the
// key id it just revoked had registered webhook endpoints, in org or its
// sandbox: they outlive the key and go on receiving the organization's
// changes until deleted (docs/webhooks.md, "Endpoints API"), which
// `eventapi keys revoke` says too. A failed lookup is logged and
// changes nothing: the key is revoked either way.
func (r *ApiKeyReconciler) nameEndpoints(ctx context.Context, ak *v1alpha1.ApiKey, org, id uuid.UUID) {
	es, err := webhooks.EndpointsOfKey(ctx, r.DB, tenancy.OrganizationID{UUID: org}, id)
	if err != nil {
		log.FromContext(ctx).Error(err, "listing the webhook endpoints of a revoked key", "key", id)
		return
	}
	if len(es) == 0 {
		return
	}
	ids := make([]string, 0, min(len(es), maxNamedEndpoints))
	for _, e := range es[:min(len(es), maxNamedEndpoints)] {
		ids = append(ids, e.ID.String())
	}
	more := ""
	if len(es) > maxNamedEndpoints {
		more = fmt.Sprintf(" and %d more", len(es)-maxNamedEndpoints)
	}
	r.Recorder.Eventf(ak, nil, corev1.EventTypeWarning, "EndpointsOutliveKey", "Revoke",
		"key %s revoked; the %d webhook endpoint(s) it registered go on receiving changes until deleted: %s%s",
		id, len(es), strings.Join(ids, ", "), more)
}

// rescopePending narrows the pending previous key of a rotation to the
// spec's scopes while its grace period lasts (docs/operator.md, the scopes
// row of the spec table): it keeps those of its scopes the spec still
// grants and never gains one, since a rotation is often for a key feared
// leaked, and the grace period is for consumers to move to the new key, not
// to keep, or widen, what the old one may do. A previous key the spec
// grants none of its scopes is revoked at once and its marker cleared from
// the Secret, which is returned. Before, narrowing spec.scopes during the
// grace period left the previous key with the wider scopes until its
// revokeAt. A key ownedKey does not return (another organization's,
// another ApiKey's, revoked) is left alone; one past its revokeAt is
// settlePending's to revoke.
func (r *ApiKeyReconciler) rescopePending(ctx context.Context, ak *v1alpha1.ApiKey, org uuid.UUID, sec keySecret, scopes []tenancy.Scope, now time.Time) (keySecret, *failure) {
	p := sec.pending()
	if p == nil || !now.Before(p.revokeAt) {
		return sec, nil
	}
	k, err := r.ownedKey(ctx, ak, org, p.id)
	if err != nil {
		return sec, classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	if k == nil {
		return sec, nil
	}
	granted := tenancy.NewScopeSet(scopes...)
	var kept []tenancy.Scope
	for _, s := range toScopes(k.Scopes) {
		if granted.Has(s) {
			kept = append(kept, s)
		}
	}
	switch {
	case len(kept) == len(k.Scopes):
		return sec, nil // within the spec already
	case len(kept) == 0:
		revoked, err := r.revokeOwned(ctx, ak, org, k.ID) // names its webhook endpoints, as every revocation does
		if err != nil {
			return sec, classify(err, v1alpha1.ReasonOrganizationNotFound)
		}
		if sec, err = r.clearPending(ctx, sec); err != nil {
			return sec, &failure{reason: v1alpha1.ReasonSecretError, message: "updating the Secret failed", err: err}
		}
		if revoked {
			r.Recorder.Eventf(ak, nil, corev1.EventTypeNormal, "PreviousKeyRevoked", "Revoke",
				"previous key %s revoked before its revokeAt: spec.scopes grants none of its scopes", k.Prefix)
		}
		return sec, nil
	}
	if err := tenancy.SetKeyScopes(ctx, r.DB, k.ID, kept); err != nil {
		if errs.Is(err, errs.NotFound) { // revoked meanwhile
			return sec, nil
		}
		return sec, classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	r.Recorder.Eventf(ak, nil, corev1.EventTypeNormal, "ScopesUpdated", "UpdateScopes",
		"previous key %s now has scopes %s until it is revoked", k.Prefix, tenancy.JoinScopes(kept))
	return sec, nil
}
