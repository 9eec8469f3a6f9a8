package controller

import (
	"context"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
)

// Data keys of the Secret an ApiKey writes.
const (
	SecretKeyAPIKey = "api-key"
	SecretKeyPrefix = "prefix"
	SecretKeyID     = "key-id"
)

// Labels and annotations on the Secret. The operator's cache only holds
// Secrets carrying ManagedByLabel, so it never lists the cluster's other
// Secrets. The annotations make the Secret the durable record of the key's
// state: it is written in one update together with the key it describes.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "eventapi-operator"
	apiKeyLabel    = "eventapi.io/apikey"

	rotationAnnotation       = "eventapi.io/rotation-token"
	previousKeyAnnotation    = "eventapi.io/previous-key-id"
	revokePreviousAnnotation = "eventapi.io/revoke-previous-at"
)

// keySecret is the ApiKey's Secret as read from the API server (never from
// the cache, so a Secret just written is never mistaken for a missing one).
type keySecret struct {
	obj *corev1.Secret // nil: the Secret does not exist
}

func (s keySecret) exists() bool { return s.obj != nil }

// immutable reports a Secret that can no longer be written.
func (s keySecret) immutable() bool {
	return s.obj != nil && s.obj.Immutable != nil && *s.obj.Immutable
}

func (s keySecret) data(k string) string {
	if s.obj == nil {
		return ""
	}
	return string(s.obj.Data[k])
}

func (s keySecret) annotation(k string) string {
	if s.obj == nil {
		return ""
	}
	return s.obj.Annotations[k]
}

func (s keySecret) keyID() (uuid.UUID, bool) {
	id, err := uuid.Parse(s.data(SecretKeyID))
	return id, err == nil
}

// pending is the previous key still valid until its revocation time.
type pending struct {
	id       uuid.UUID
	revokeAt time.Time
}

func (s keySecret) pending() *pending {
	id, err := uuid.Parse(s.annotation(previousKeyAnnotation))
	if err != nil {
		return nil
	}
	at, err := time.Parse(time.RFC3339, s.annotation(revokePreviousAnnotation))
	if err != nil {
		at = time.Time{} // unreadable time: revoke now
	}
	return &pending{id: id, revokeAt: at}
}

// readSecret reads the ApiKey's Secret with the uncached reader. A Secret
// that exists but is not controlled by ak is a conflict: the operator never
// overwrites a Secret it does not own.
func (r *ApiKeyReconciler) readSecret(ctx context.Context, ak *v1alpha1.ApiKey) (keySecret, *failure) {
	var sec corev1.Secret
	err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: ak.Namespace, Name: ak.Spec.SecretName}, &sec)
	switch {
	case apierrors.IsNotFound(err):
		return keySecret{}, nil
	case err != nil:
		return keySecret{}, &failure{reason: v1alpha1.ReasonSecretError, message: "reading the Secret failed", err: err}
	case !metav1.IsControlledBy(&sec, ak):
		return keySecret{}, &failure{reason: v1alpha1.ReasonSecretConflict,
			message: "Secret " + sec.Name + " exists and is not owned by this ApiKey; delete it or choose another secretName",
			result:  ctrlResultAfter(time.Minute)}
	}
	return keySecret{obj: &sec}, nil
}

// writeSecret stores a newly issued key in the Secret, creating it or
// updating the version read earlier (a concurrent change makes the update
// fail, and the reconcile starts over). prev, when set, is the key replaced,
// to be revoked at its time. With dryRun the API server checks the write
// (admission, quotas, RBAC) and stores nothing.
func (r *ApiKeyReconciler) writeSecret(ctx context.Context, ak *v1alpha1.ApiKey, cur keySecret, k *tenancy.CreatedKey, rotation string, prev *pending, dryRun bool) (keySecret, error) {
	sec := &corev1.Secret{}
	if cur.exists() {
		sec = cur.obj.DeepCopy()
	} else {
		sec.Namespace, sec.Name = ak.Namespace, ak.Spec.SecretName
	}
	if sec.Labels == nil {
		sec.Labels = map[string]string{}
	}
	sec.Labels[ManagedByLabel] = ManagedByValue
	// The label names the ApiKey for kubectl's selectors; an object name
	// past a label value's 63 characters leaves it out (the owner
	// reference still links the two), where it made every write fail.
	if len(validation.IsValidLabelValue(ak.Name)) == 0 {
		sec.Labels[apiKeyLabel] = ak.Name
	} else {
		delete(sec.Labels, apiKeyLabel)
	}
	if sec.Annotations == nil {
		sec.Annotations = map[string]string{}
	}
	sec.Annotations[rotationAnnotation] = rotation
	delete(sec.Annotations, previousKeyAnnotation)
	delete(sec.Annotations, revokePreviousAnnotation)
	if prev != nil {
		sec.Annotations[previousKeyAnnotation] = prev.id.String()
		sec.Annotations[revokePreviousAnnotation] = prev.revokeAt.UTC().Format(time.RFC3339)
	}
	sec.Type = corev1.SecretTypeOpaque
	sec.Data = map[string][]byte{
		SecretKeyAPIKey: []byte(k.Secret),
		SecretKeyPrefix: []byte(k.Prefix),
		SecretKeyID:     []byte(k.ID.String()),
	}
	if err := controllerutil.SetControllerReference(ak, sec, r.Scheme); err != nil {
		return cur, err
	}
	var err error
	switch {
	case cur.exists() && dryRun:
		err = r.Client.Update(ctx, sec, client.DryRunAll)
	case cur.exists():
		err = r.Client.Update(ctx, sec)
	case dryRun:
		err = r.Client.Create(ctx, sec, client.DryRunAll)
	default:
		err = r.Client.Create(ctx, sec)
	}
	if err != nil || dryRun {
		return cur, err
	}
	return keySecret{obj: sec}, nil
}

// relabel puts ManagedByLabel back on the ApiKey's Secret when it was
// removed by hand. The operator's cache holds only Secrets carrying it, so
// without it a later change to the Secret, or its deletion, would reach the
// operator only at the ApiKey's next reconcile, if one ever came.
func (r *ApiKeyReconciler) relabel(ctx context.Context, cur keySecret) (keySecret, error) {
	if !cur.exists() || cur.obj.Labels[ManagedByLabel] == ManagedByValue {
		return cur, nil
	}
	sec := cur.obj.DeepCopy()
	if sec.Labels == nil {
		sec.Labels = map[string]string{}
	}
	sec.Labels[ManagedByLabel] = ManagedByValue
	if err := r.Client.Update(ctx, sec); err != nil {
		return cur, err
	}
	return keySecret{obj: sec}, nil
}

// restorePrefix writes the key's prefix back into the Secret when it was
// edited by hand: the prefix is how a reader of the Secret matches it to
// the key listed by `eventapi keys list` and the request log.
func (r *ApiKeyReconciler) restorePrefix(ctx context.Context, cur keySecret, prefix string) (keySecret, error) {
	if !cur.exists() || cur.data(SecretKeyPrefix) == prefix {
		return cur, nil
	}
	sec := cur.obj.DeepCopy()
	sec.Data[SecretKeyPrefix] = []byte(prefix)
	if err := r.Client.Update(ctx, sec); err != nil {
		return cur, err
	}
	return keySecret{obj: sec}, nil
}

// clearPending removes the previous-key annotations once that key is revoked.
func (r *ApiKeyReconciler) clearPending(ctx context.Context, cur keySecret) (keySecret, error) {
	sec := cur.obj.DeepCopy()
	delete(sec.Annotations, previousKeyAnnotation)
	delete(sec.Annotations, revokePreviousAnnotation)
	if err := r.Client.Update(ctx, sec); err != nil {
		return cur, err
	}
	return keySecret{obj: sec}, nil
}

// deleteSecret deletes the ApiKey's Secret if it owns it (garbage collection
// would too, through the owner reference, but not before the key is gone, and
// not at all where no garbage collector runs). Where the operator may no
// longer touch the namespace's Secrets (403: a watched namespace being
// deleted has lost the Role that granted it, docs/helm.md "Watched
// namespaces") it leaves the Secret to the garbage collector: the key in it
// is revoked already, and keeping the finalizer would keep the namespace
// from ever going.
func (r *ApiKeyReconciler) deleteSecret(ctx context.Context, ak *v1alpha1.ApiKey) error {
	cur, f := r.readSecret(ctx, ak)
	err := func() error {
		if f != nil {
			if f.reason == v1alpha1.ReasonSecretConflict {
				return nil // not ours: leave it alone
			}
			return f.err
		}
		if !cur.exists() {
			return nil
		}
		uid := cur.obj.UID
		return client.IgnoreNotFound(r.Client.Delete(ctx, cur.obj, client.Preconditions{UID: &uid}))
	}()
	if apierrors.IsForbidden(err) {
		log.FromContext(ctx).Info("the Secret is left to the garbage collector: the operator may not delete it (its namespace is being deleted?)",
			"secret", ak.Spec.SecretName, "error", err.Error())
		return nil
	}
	return err
}
