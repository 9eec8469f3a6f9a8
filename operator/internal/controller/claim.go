package controller

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
)

// claimedBy is the database identity obj is claimed for ("" when none):
// its v1alpha1.DatabaseAnnotation (docs/operator.md, "One database per
// object").
func claimedBy(obj client.Object) string {
	return obj.GetAnnotations()[v1alpha1.DatabaseAnnotation]
}

// claimFor sets obj's claim to identity; the finalizer helper sends it in
// the patch that adds the finalizer.
func claimFor(obj client.Object, identity string) {
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[v1alpha1.DatabaseAnnotation] = identity
	obj.SetAnnotations(a)
}

// claims reports the objects another database's operator owns. Such an
// object is left alone entirely (no key, no Secret, no finalizer change)
// and its status is not written either: this operator cannot tell whether
// the owner runs, and two writers of one Ready condition would undo each
// other's patches, each write waking the other (docs/operator.md, "One
// database per object"). So it reports with a Normal event and a log line,
// once per object and claim while it runs, not at every reconcile that the
// owner's own writes cause.
type claims struct {
	identity string
	recorder events.EventRecorder

	mu   sync.Mutex
	told map[types.NamespacedName]told
}

// told is the object and claim last reported under a name.
type told struct {
	uid   types.UID
	claim string
}

func newClaims(identity string, recorder events.EventRecorder) *claims {
	return &claims{identity: identity, recorder: recorder, told: map[types.NamespacedName]told{}}
}

// foreign reports whether obj is claimed for another database, and reports
// it the first time.
func (c *claims) foreign(ctx context.Context, obj client.Object) bool {
	name := client.ObjectKeyFromObject(obj)
	owner := claimedBy(obj)
	if owner == "" || owner == c.identity {
		c.forget(name)
		return false
	}
	now := told{uid: obj.GetUID(), claim: owner}
	c.mu.Lock()
	seen := c.told[name] == now
	c.told[name] = now
	c.mu.Unlock()
	if !seen {
		log.FromContext(ctx).Info("left alone: claimed by the operator of another database",
			"claimed_by", owner, "this_database", c.identity)
		c.recorder.Eventf(obj, nil, corev1.EventTypeNormal, "ClaimedByAnotherDatabase", "Skip",
			"the operator of database %s leaves this object to the operator of database %s (annotation %s)",
			c.identity, owner, v1alpha1.DatabaseAnnotation)
	}
	return true
}

// forget drops what was told about name: the object is gone, or no longer
// another database's.
func (c *claims) forget(name types.NamespacedName) {
	c.mu.Lock()
	delete(c.told, name)
	c.mu.Unlock()
}
