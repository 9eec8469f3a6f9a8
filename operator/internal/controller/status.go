package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
)

// patchStatusIfChanged sends a merge patch of obj's status only when
// status(obj) differs from status(original), so a reconcile that changes
// nothing writes nothing (and triggers no further reconcile).
func patchStatusIfChanged[T client.Object](ctx context.Context, c client.Client, original, obj T, status func(T) any) error {
	if equality.Semantic.DeepEqual(status(original), status(obj)) {
		return nil
	}
	return c.Status().Patch(ctx, obj, client.MergeFrom(original))
}

// setReady sets the Ready condition; its transition time only moves when the
// status flips.
func setReady(conds *[]metav1.Condition, generation int64, ok bool, reason, message string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(conds, metav1.Condition{
		Type: v1alpha1.ConditionReady, Status: status, Reason: reason, Message: message, ObservedGeneration: generation,
	})
}

// warnOnChange emits a Warning event for a failure when the Ready condition
// did not already carry that reason, so retries do not flood events. The
// cached object can predate the status the previous reconcile wrote (the
// finalizer patch on create queues a second reconcile at once, which read
// no reason and warned again), so a change seen in before is confirmed on
// the API server's copy, live, before it is reported; when that read fails
// the warning is sent (a repeat rather than none).
func warnOnChange(rec events.EventRecorder, obj client.Object, before []metav1.Condition, f *failure, live func() ([]metav1.Condition, error)) {
	if failedFor(before, f.reason) {
		return
	}
	if conds, err := live(); err == nil && failedFor(conds, f.reason) {
		return
	}
	rec.Eventf(obj, nil, corev1.EventTypeWarning, f.reason, "Reconcile", "%s", f.message)
}

// failedFor reports whether conds hold Ready False for reason.
func failedFor(conds []metav1.Condition, reason string) bool {
	c := meta.FindStatusCondition(conds, v1alpha1.ConditionReady)
	return c != nil && c.Reason == reason && c.Status == metav1.ConditionFalse
}
