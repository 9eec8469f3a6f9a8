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
// did not already carry that reason, so retries do not flood events.
func warnOnChange(rec events.EventRecorder, obj client.Object, before []metav1.Condition, f *failure) {
	if c := meta.FindStatusCondition(before, v1alpha1.ConditionReady); c != nil && c.Reason == f.reason && c.Status == metav1.ConditionFalse {
		return
	}
	rec.Eventf(obj, nil, corev1.EventTypeWarning, f.reason, "Reconcile", "%s", f.message)
}
