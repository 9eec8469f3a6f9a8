package controller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
)

// ApiKeyReconciler issues, rescopes, rotates and revokes the key of each
// ApiKey. The Secret is the durable record of the current key (and of the
// previous one during a rotation's grace period), and is always read from the
// API server, never from the cache.
type ApiKeyReconciler struct {
	Client    client.Client
	APIReader client.Reader
	Scheme    *runtime.Scheme
	DB        bun.IDB
	Recorder  events.EventRecorder
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Recheck is how often a ready ApiKey checks that its key is still
	// active and its organization still there (DefaultKeyRecheck when zero):
	// a key revoked with the CLI, or an organization deleted, raises no
	// cluster event.
	Recheck time.Duration

	fin finalizer[*v1alpha1.ApiKey]
}

// +kubebuilder:rbac:groups=eventapi.io,resources=apikeys,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=eventapi.io,resources=apikeys/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=eventapi.io,resources=apikeys/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// SetupWithManager registers the controller: ApiKeys and the Secrets they own.
func (r *ApiKeyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.fin = finalizer[*v1alpha1.ApiKey]{client: r.Client, name: v1alpha1.Finalizer, cleanup: r.cleanup}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.ApiKey{}).
		Owns(&corev1.Secret{}).
		Named("apikey").
		Complete(r)
}

func (r *ApiKeyReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// DefaultKeyRecheck is ApiKeyReconciler.Recheck's default
// (docs/operator.md).
const DefaultKeyRecheck = 5 * time.Minute

// Reconcile brings one ApiKey to its declared state and reports it in status.
func (r *ApiKeyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ak := &v1alpha1.ApiKey{}
	if err := r.Client.Get(ctx, req.NamespacedName, ak); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	deleting, f, err := r.fin.reconcile(ctx, ak)
	if stopping(ctx) {
		return ctrl.Result{}, nil
	}
	if err != nil || (deleting && f == nil) {
		return ctrl.Result{}, err
	}
	original := ak.DeepCopy()
	var result ctrl.Result
	if !deleting {
		result, f = r.reconcileKey(ctx, ak)
	}
	var stepErr error
	if stopping(ctx) {
		return ctrl.Result{}, nil
	}
	if f != nil {
		warnOnChange(r.Recorder, ak, original.Status.Conditions, f, func() ([]metav1.Condition, error) {
			live := &v1alpha1.ApiKey{}
			err := r.APIReader.Get(ctx, req.NamespacedName, live)
			return live.Status.Conditions, err
		})
		setReady(&ak.Status.Conditions, ak.Generation, false, f.reason, f.message)
		result, stepErr = f.result, f.err
	} else if recheck := cmp.Or(r.Recheck, DefaultKeyRecheck); result.RequeueAfter == 0 || result.RequeueAfter > recheck {
		result.RequeueAfter = recheck
	}
	ak.Status.ObservedGeneration = ak.Generation
	err = patchStatusIfChanged(ctx, r.Client, original, ak, func(a *v1alpha1.ApiKey) any { return a.Status })
	if err = errors.Join(stepErr, err); err != nil {
		return ctrl.Result{}, err
	}
	return result, nil
}

// reconcileKey makes sure the Secret holds an active key matching the spec,
// revokes the previous key once its grace period is over, and fills status.
func (r *ApiKeyReconciler) reconcileKey(ctx context.Context, ak *v1alpha1.ApiKey) (ctrl.Result, *failure) {
	spec, f := parseKeySpec(ak)
	if f != nil {
		return r.settleInvalid(ctx, ak, f)
	}
	sec, f := r.readSecret(ctx, ak)
	if f != nil {
		return r.settleConflict(ctx, ak, spec.org, f)
	}
	sec, err := r.relabel(ctx, sec)
	if err != nil {
		return ctrl.Result{}, &failure{reason: v1alpha1.ReasonSecretError, message: "updating the Secret failed", err: err}
	}
	now := r.now()
	if tenancy.Expired(spec.expiresAt, now) {
		if f := r.expire(ctx, ak, spec.org, *spec.expiresAt, sec); f != nil {
			return ctrl.Result{}, f
		}
		return ctrl.Result{}, &failure{reason: v1alpha1.ReasonExpired,
			message: fmt.Sprintf("spec.expiresAt %s has passed, so no key is issued and every key of this ApiKey is revoked; set a later spec.expiresAt to issue one", spec.expiresAt.UTC().Format(time.RFC3339))}
	}
	cur, err := r.currentKey(ctx, ak, spec.org, sec)
	if err != nil {
		return ctrl.Result{}, classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	issued := false
	switch {
	case cur == nil || sec.annotation(rotationAnnotation) != spec.rotation ||
		cur.Mode != spec.mode || !sameExpiry(cur.ExpiresAt, spec.expiresAt):
		usable := cur != nil
		if sec, cur, f = r.issue(ctx, ak, spec, sec, cur, now); f != nil {
			if !usable && f.reason == v1alpha1.ReasonOrganizationNotFound {
				// The organization is gone, and its keys with it: status
				// names no key, as for Expired.
				ak.Status.KeyID, ak.Status.Prefix, ak.Status.PendingRevocation = "", "", nil
			}
			return ctrl.Result{}, f
		}
		issued = true
	case !sameScopes(cur.Scopes, spec.scopes):
		if err := tenancy.SetKeyScopes(ctx, r.DB, cur.ID, spec.scopes); err != nil {
			return ctrl.Result{}, classify(err, v1alpha1.ReasonOrganizationNotFound)
		}
		r.Recorder.Eventf(ak, nil, corev1.EventTypeNormal, "ScopesUpdated", "UpdateScopes",
			"key %s now has scopes %s", cur.Prefix, tenancy.JoinScopes(spec.scopes))
	}
	if sec, f = r.rescopePending(ctx, ak, spec.org, sec, spec.scopes, now); f != nil {
		return ctrl.Result{}, f
	}
	// Every reconcile, the periodic recheck included, revokes strays, not
	// only one that issued: a key made by an issue whose Secret write never
	// landed (a crash, a lost lease) outlives it when the spec is changed
	// back before the next reconcile, and the Secret and status then match
	// the spec. One query of the organization's keys.
	if f := r.revokeStrays(ctx, ak, spec.org, cur, sec); f != nil {
		return ctrl.Result{}, f
	}
	if sec, err = r.restorePrefix(ctx, sec, cur.Prefix); err != nil {
		return ctrl.Result{}, &failure{reason: v1alpha1.ReasonSecretError, message: "updating the Secret failed", err: err}
	}
	if !issued && ak.Status.KeyID != cur.ID.String() {
		// The status patch after this key's issue was lost (the operator
		// stopped, or lost its lease, after the Secret write): the
		// rotation time is the key's own, to the second as issue sets it.
		ak.Status.LastRotationTime = &metav1.Time{Time: cur.CreatedAt.Truncate(time.Second)}
	}
	ak.Status.KeyID, ak.Status.Prefix = cur.ID.String(), cur.Prefix

	result, f := r.settlePending(ctx, ak, spec.org, sec, now)
	if f != nil {
		return ctrl.Result{}, f
	}
	if spec.expiresAt != nil { // reconciled again when it passes: expire
		result = sooner(result, spec.expiresAt.Sub(now))
	}
	setReady(&ak.Status.Conditions, ak.Generation, true, v1alpha1.ReasonKeyIssued, fmt.Sprintf("key %s is active", cur.Prefix))
	return result, nil
}

// expire runs once spec.expiresAt (at) has passed (docs/operator.md,
// Expired): no key is issued, since the API would refuse it, and every key
// of this ApiKey is revoked, the Secret's, the previous key of a rotation
// and any stray, so the spec's expiry holds for all of them; status then
// names no key. Before, moving expiresAt into the past on an ApiKey with a
// working key issued an already expired key into the Secret, and the
// working key stayed usable until its own grace period ended, or for good
// with none; and a key issued for an expiry already past was stored as
// active. It needs only the organization, at, the Secret and ak's marker,
// so that a spec refused in the same edit (InvalidSpec) expires its keys
// all the same.
func (r *ApiKeyReconciler) expire(ctx context.Context, ak *v1alpha1.ApiKey, org uuid.UUID, at time.Time, sec keySecret) *failure {
	n, err := r.revokeStray(ctx, ak, org)
	if err != nil {
		return classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	if sec.pending() != nil {
		if _, err := r.clearPending(ctx, sec); err != nil {
			return &failure{reason: v1alpha1.ReasonSecretError, message: "updating the Secret failed", err: err}
		}
	}
	ak.Status.PendingRevocation = nil
	ak.Status.KeyID, ak.Status.Prefix = "", ""
	if n > 0 {
		r.Recorder.Eventf(ak, nil, corev1.EventTypeNormal, "KeysRevoked", "Revoke",
			"spec.expiresAt %s has passed: %d key(s) revoked", at.UTC().Format(time.RFC3339), n)
	}
	return nil
}

// settlePending handles the previous key the Secret names as pending
// (docs/operator.md, Lifecycle step 3): before its revokeAt it is shown in
// status and the result requeues at that time; from then on it is revoked
// and its marker cleared from the Secret. It needs only the organization id,
// the Secret and ak (the key's marker), never the rest of the spec, so that
// a spec that stopped parsing cannot keep a rotated-out key alive.
func (r *ApiKeyReconciler) settlePending(ctx context.Context, ak *v1alpha1.ApiKey, org uuid.UUID, sec keySecret, now time.Time) (ctrl.Result, *failure) {
	ak.Status.PendingRevocation = nil
	p := sec.pending()
	if p == nil {
		return ctrl.Result{}, nil
	}
	wait, f := r.revokeAtItsTime(ctx, ak, org, *p, now)
	switch {
	case f != nil:
		return ctrl.Result{}, f
	case wait > 0:
		ak.Status.PendingRevocation = &v1alpha1.PendingRevocation{KeyID: p.id.String(), RevokeAt: metav1.NewTime(p.revokeAt)}
		return ctrlResultAfter(wait), nil
	}
	if _, err := r.clearPending(ctx, sec); err != nil {
		return ctrl.Result{}, &failure{reason: v1alpha1.ReasonSecretError, message: "updating the Secret failed", err: err}
	}
	return ctrl.Result{}, nil
}

// revokeAtItsTime handles a pending previous key p, as the Secret or, in a
// conflict, status names it: before its revokeAt it returns the time left;
// from then on it revokes p's key and returns 0. A PreviousKeyRevoked event
// says only what was done: p may name a key that is gone, already revoked,
// or not this ApiKey's (left alone, revokeOwned).
func (r *ApiKeyReconciler) revokeAtItsTime(ctx context.Context, ak *v1alpha1.ApiKey, org uuid.UUID, p pending, now time.Time) (time.Duration, *failure) {
	if now.Before(p.revokeAt) {
		return p.revokeAt.Sub(now), nil
	}
	revoked, err := r.revokeOwned(ctx, ak, org, p.id)
	if err != nil {
		return 0, classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	if revoked {
		r.Recorder.Eventf(ak, nil, corev1.EventTypeNormal, "PreviousKeyRevoked", "Revoke",
			"previous key %s revoked after the grace period", p.id)
	}
	return 0, nil
}

// sooner returns r requeueing after d when r requeues later or not at all.
func sooner(r ctrl.Result, d time.Duration) ctrl.Result {
	if d > 0 && (r.RequeueAfter == 0 || d < r.RequeueAfter) {
		r.RequeueAfter = d
	}
	return r
}

// settleInvalid runs, for a spec parseKeySpec refuses (inv), what still
// needs no valid spec: nothing is issued or rescoped, but the pending
// previous key is revoked at its revokeAt, and inv (terminal otherwise)
// requeues at that time while it is still pending. Without this a name
// tenancy refuses, set during a grace period, left the rotated-out key
// active for good (docs/operator.md, InvalidSpec). A failure on the way
// (reading the Secret, the database) is reported instead of inv and
// retried, since a revocation may be due; inv comes back once it succeeds.
// A Secret this ApiKey does not control is reported as SecretConflict,
// after what settleConflict still revokes.
//
// Strays are revoked too, but only when the Secret holds a usable key of
// this ApiKey (cur), keeping it and the pending key, as every valid
// reconcile does: a stray can be a key a rotation replaced, as exposed as
// the pending one. With no usable key in the Secret nothing is revoked,
// because no key can be issued to replace it ("no key is revoked before the
// new one is written to the Secret", docs/operator.md, Lifecycle).
func (r *ApiKeyReconciler) settleInvalid(ctx context.Context, ak *v1alpha1.ApiKey, inv *failure) (ctrl.Result, *failure) {
	org, err := uuid.Parse(ak.Spec.OrganizationID)
	if err != nil {
		return ctrl.Result{}, inv // no organization: no key can be looked up
	}
	sec, f := r.readSecret(ctx, ak)
	if f != nil {
		return r.settleConflict(ctx, ak, org, f)
	}
	if exp := ak.Spec.ExpiresAt; exp != nil && tenancy.Expired(&exp.Time, r.now()) {
		if f := r.expire(ctx, ak, org, exp.Time, sec); f != nil {
			return ctrl.Result{}, f
		}
		return ctrl.Result{}, inv
	}
	cur, err := r.currentKey(ctx, ak, org, sec)
	if err != nil {
		return ctrl.Result{}, classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	if cur != nil {
		if f := r.revokeStrays(ctx, ak, org, cur, sec); f != nil {
			return ctrl.Result{}, f
		}
	}
	if inv.result, f = r.settlePending(ctx, ak, org, sec, r.now()); f != nil {
		return ctrl.Result{}, f
	}
	return ctrl.Result{}, inv
}

// settleConflict runs, for a failure f of readSecret, what still needs no
// Secret of this ApiKey when f is a SecretConflict (the Secret exists and
// this ApiKey does not control it: its owner reference removed, or the
// Secret replaced by a tool, docs/operator.md, SecretConflict); any other
// failure is returned as it is. Nothing is issued, and the Secret is
// neither written nor trusted, but an expiresAt that has passed still
// revokes every key of this ApiKey (by its marker, as expire does), and the
// pending previous key of a rotation is still revoked at its revokeAt,
// taken from status.pendingRevocation since the Secret's annotations are no
// longer ours; while it is pending, f requeues at that time if it comes
// first. The current key stays active: the Secret, whoever holds it now,
// may still be what clients use. Before, the conflict returned first and
// the rotated-out key, and every key of an expired ApiKey, stayed active
// for as long as it lasted.
func (r *ApiKeyReconciler) settleConflict(ctx context.Context, ak *v1alpha1.ApiKey, org uuid.UUID, f *failure) (ctrl.Result, *failure) {
	if f.reason != v1alpha1.ReasonSecretConflict {
		return ctrl.Result{}, f
	}
	now := r.now()
	if exp := ak.Spec.ExpiresAt; exp != nil && tenancy.Expired(&exp.Time, now) {
		if ef := r.expire(ctx, ak, org, exp.Time, keySecret{}); ef != nil {
			return ctrl.Result{}, ef
		}
		f.message += "; spec.expiresAt " + exp.UTC().Format(time.RFC3339) + " has passed, so every key of this ApiKey is revoked"
		return ctrl.Result{}, f
	}
	p := ak.Status.PendingRevocation
	if p == nil {
		return ctrl.Result{}, f
	}
	id, err := uuid.Parse(p.KeyID)
	if cur, cerr := uuid.Parse(ak.Status.KeyID); err != nil || cerr == nil && id == cur { // names no key, or the current one, which stays
		ak.Status.PendingRevocation = nil
		return ctrl.Result{}, f
	}
	wait, rf := r.revokeAtItsTime(ctx, ak, org, pending{id: id, revokeAt: p.RevokeAt.Time}, now)
	switch {
	case rf != nil:
		return ctrl.Result{}, rf
	case wait > 0:
		f.result = sooner(f.result, wait)
	default:
		ak.Status.PendingRevocation = nil
	}
	return ctrl.Result{}, f
}

// issue creates a new key and writes it to the Secret. The key it replaces,
// when still usable, stays valid for the grace period, recorded in the
// Secret as the pending previous key. Nothing is revoked here: any other key
// of this ApiKey (the key replaced when there is no grace period, a key two
// rotations old, a stray from an interrupted issue) is revoked by
// revokeStrays once the new key is in its Secret, so a failure to create or
// write the new key leaves the working one alone.
func (r *ApiKeyReconciler) issue(ctx context.Context, ak *v1alpha1.ApiKey, spec keySpec, sec keySecret, cur *tenancy.APIKey, now time.Time) (keySecret, *tenancy.APIKey, *failure) {
	if sec.immutable() {
		// Checked before anything is issued: every retry would otherwise
		// make a key, fail to write it and revoke it again. The pending
		// previous key of an earlier rotation is still revoked at its
		// revokeAt (the Secret is ours, and its annotations may still be
		// changed), and the conflict requeues at that time if it comes
		// first; before, it stayed active for as long as the Secret was
		// immutable.
		f := &failure{reason: v1alpha1.ReasonSecretConflict, result: ctrlResultAfter(time.Minute),
			message: "Secret " + sec.obj.Name + " is immutable, so no new key can be written into it; delete it (the operator makes a new one) or make it mutable"}
		res, pf := r.settlePending(ctx, ak, spec.org, sec, now)
		if pf != nil {
			return sec, nil, pf
		}
		f.result = sooner(f.result, res.RequeueAfter)
		return sec, nil, f
	}
	var prev *pending
	if cur != nil && spec.grace > 0 && (cur.ExpiresAt == nil || now.Before(*cur.ExpiresAt)) {
		prev = &pending{id: cur.ID, revokeAt: revokeTime(now, spec.grace)}
	}
	// Likewise a Secret that cannot be written (an admission policy, a
	// quota): a dry run of the write finds it before a key is made.
	if _, err := r.writeSecret(ctx, ak, sec, &tenancy.CreatedKey{}, spec.rotation, prev, true); err != nil {
		return sec, nil, &failure{reason: v1alpha1.ReasonSecretError, message: "the Secret cannot be written: " + err.Error(), err: err}
	}
	k, err := tenancy.CreateKey(ctx, r.DB, tenancy.NewKey{OrganizationID: spec.org, Name: keyName(ak, spec),
		Scopes: spec.scopes, Mode: spec.mode, ExpiresAt: spec.expiresAt})
	if err != nil {
		return sec, nil, classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	written, err := r.writeSecret(ctx, ak, sec, k, spec.rotation, prev, false)
	if err != nil {
		// The key never reached its Secret: revoke it now (the next issue
		// would revoke it anyway, by its marker).
		_, _ = r.revokeOwned(ctx, ak, spec.org, k.ID)
		return sec, nil, &failure{reason: v1alpha1.ReasonSecretError, message: "writing the Secret failed: " + err.Error(), err: err}
	}
	ak.Status.LastRotationTime = &metav1.Time{Time: now.Truncate(time.Second)}
	note := fmt.Sprintf("issued key %s into Secret %s", k.Prefix, written.obj.Name)
	if prev != nil {
		note += fmt.Sprintf("; the previous key stays valid until %s", prev.revokeAt.UTC().Format(time.RFC3339))
	}
	r.Recorder.Eventf(ak, nil, corev1.EventTypeNormal, "KeyIssued", "Issue", "%s", note)
	return written, &k.APIKey, nil
}

// revokeTime is when a key replaced at now with a grace period is revoked:
// now plus grace rounded up to the second (the Secret's annotation and the
// status carry whole seconds), so the key never works for less than the
// grace period asked.
func revokeTime(now time.Time, grace time.Duration) time.Time {
	at := now.Add(grace)
	if t := at.Truncate(time.Second); t.Before(at) {
		return t.Add(time.Second)
	}
	return at.Truncate(time.Second) // drops the monotonic reading
}

// revokeStrays revokes every active key of this ApiKey but cur, the key its
// Secret holds, and the pending previous key the Secret names: the key a
// rotation without grace period replaced, a key two rotations old, a key
// created but never written. It runs after a new key was written, and on
// any reconcile whose status does not yet name cur (status.keyId is set
// only once this has succeeded), so a failure here, or a crash just before
// it, is retried by the next reconcile.
func (r *ApiKeyReconciler) revokeStrays(ctx context.Context, ak *v1alpha1.ApiKey, org uuid.UUID, cur *tenancy.APIKey, sec keySecret) *failure {
	keep := []uuid.UUID{cur.ID}
	if p := sec.pending(); p != nil {
		keep = append(keep, p.id)
	}
	if _, err := r.revokeStray(ctx, ak, org, keep...); err != nil {
		return classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	return nil
}

// cleanup runs on deletion: revoke every key of the ApiKey, then delete its
// Secret.
func (r *ApiKeyReconciler) cleanup(ctx context.Context, ak *v1alpha1.ApiKey) *failure {
	if org, err := uuid.Parse(ak.Spec.OrganizationID); err == nil {
		if _, err := r.revokeStray(ctx, ak, org); err != nil {
			f := classify(err, v1alpha1.ReasonOrganizationNotFound)
			f.message = "revoking the keys failed: " + f.message
			return f
		}
	}
	if err := r.deleteSecret(ctx, ak); err != nil {
		return &failure{reason: v1alpha1.ReasonSecretError, message: "deleting the Secret failed", err: err}
	}
	return nil
}
