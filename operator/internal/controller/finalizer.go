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
	cleanup func(ctx context.Context, obj T) error
}

// reconcile adds the finalizer to a live object, or finalizes a deleted one.
// deleting reports that obj is being deleted: the caller must stop there.
func (f finalizer[T]) reconcile(ctx context.Context, obj T) (deleting bool, err error) {
	if obj.GetDeletionTimestamp().IsZero() {
		if controllerutil.AddFinalizer(obj, f.name) {
			return false, f.client.Update(ctx, obj)
		}
		return false, nil
	}
	if !controllerutil.ContainsFinalizer(obj, f.name) {
		return true, nil
	}
	if err := f.cleanup(ctx, obj); err != nil {
		return true, err
	}
	controllerutil.RemoveFinalizer(obj, f.name)
	return true, client.IgnoreNotFound(f.client.Update(ctx, obj))
}
