package controller_test

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
)

// cachedReads answers reads whatever the context, as the manager's cache
// does: a reconcile whose context was cancelled still reads its object and
// reaches the database.
type cachedReads struct{ client.Client }

func (c cachedReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.Client.Get(context.WithoutCancel(ctx), key, obj, opts...)
}

// TestAStoppingManagerReportsNoSandboxFailure: a SandboxOrganization
// reconcile whose context the manager cancelled (a SIGTERM, a lost lease)
// returns no error and sends no Warning. The cancelled database call was
// reported as DatabaseError, with a Warning, on rolling updates of the
// operator.
func TestAStoppingManagerReportsNoSandboxFailure(t *testing.T) {
	h := newHarness(t)
	h.create(h.newSandbox("stopping", h.createOrg("Parent stopping"), false))
	h.waitSandbox("stopping", v1alpha1.ReasonSandboxReady)

	ctx, cancel := context.WithCancel(h.ctx)
	cancel()
	rec, err := reconcileThrough(t, h, ctx, cachedReads{h.k8s}, "stopping", nil)
	if err != nil || len(rec.reasons) != 0 {
		t.Errorf("reconcile cut short by the manager: error %v, events %v; want neither", err, rec.reasons)
	}
	h.waitSandbox("stopping", v1alpha1.ReasonSandboxReady)
}
