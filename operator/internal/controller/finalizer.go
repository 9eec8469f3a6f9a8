package controller

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// finalizer keeps a finalizer on live objects and, once an object is being
// deleted, runs cleanup and then removes the finalizer. One value serves every
// resource type.
type finalizer[T client.Object] struct {
	client  client.Client
	name    string
	cleanup func(ctx context.Context, obj T) *failure
}

// reconcile adds the finalizer to a live object, or finalizes a deleted one.
// deleting reports that obj is being deleted: the caller reconciles nothing
// more. blocked is cleanup's failure, with the finalizer kept: the caller
// reports it in the Ready condition, as any failure (before, a deletion
// stuck on the database left Ready as it was, True for a working ApiKey,
// and sent no event: docs/operator.md, Reasons). It is always retried.
//
// The finalizer is added and removed by a merge patch of metadata.finalizers
// alone (with the resourceVersion, so a concurrent change of the list is a
// conflict, retried), never by an Update of the whole object: an Update
// sends the spec as the Go types encode it ("90s" as "1m30s", a time in UTC),
// which rewrites the user's fields, makes the operator their field manager
// (a second `kubectl apply --server-side` conflicts) and can even turn an
// accepted value into one the CRD's own rule refuses.
func (f finalizer[T]) reconcile(ctx context.Context, obj T) (deleting bool, blocked *failure, err error) {
	if obj.GetDeletionTimestamp().IsZero() {
		if controllerutil.ContainsFinalizer(obj, f.name) {
			return false, nil, nil
		}
		return false, nil, f.patch(ctx, obj, controllerutil.AddFinalizer)
	}
	if !controllerutil.ContainsFinalizer(obj, f.name) {
		return true, nil, nil
	}
	if blocked := f.cleanup(ctx, obj); blocked != nil {
		blocked.message += "; the deletion waits until this succeeds"
		if blocked.err == nil && blocked.result.IsZero() { // a terminal reason would keep the object for good
			blocked.result = ctrlResultAfter(retryMissing)
		}
		return true, blocked, nil
	}
	return true, nil, client.IgnoreNotFound(f.patch(ctx, obj, controllerutil.RemoveFinalizer))
}

// patch applies change (controllerutil.AddFinalizer or RemoveFinalizer) to
// obj's finalizers and sends only that difference.
func (f finalizer[T]) patch(ctx context.Context, obj T, change func(client.Object, string) bool) error {
	base := obj.DeepCopyObject().(client.Object)
	change(obj, f.name)
	return f.client.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
}
