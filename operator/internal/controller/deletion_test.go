package controller_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// TestABlockedDeletionIsReported: a deletion whose cleanup the database
// refuses (as it would when down; a trigger refuses, as in
// TestARotationThatCannotIssueKeepsTheKey) keeps the finalizer and reports
// it: Ready False with the failure's reason, a message saying the deletion
// waits, and one Warning event, for an ApiKey and a SandboxOrganization.
// Unreported, Ready would stay as it was (True for a working key) with no
// event. Once the database accepts the cleanup, both go.
func TestABlockedDeletionIsReported(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Blocked Deletion")
	h.create(h.newApiKey("held", org, v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("held", v1alpha1.ReasonKeyIssued)
	parent := h.createOrg("Blocked Sandbox Parent")
	h.create(h.newSandbox("held-sb", parent, false))
	sandbox := h.waitSandbox("held-sb", v1alpha1.ReasonSandboxReady).Status.SandboxOrganizationID

	sql := func(q string) {
		t.Helper()
		if _, err := h.db.ExecContext(h.ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	sql(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`)
	sql(`CREATE TRIGGER refuse_revoke BEFORE UPDATE ON api_keys FOR EACH ROW
		WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION refuse()`)
	sql(`CREATE TRIGGER refuse_delete BEFORE DELETE ON organizations FOR EACH ROW EXECUTE FUNCTION refuse()`)

	ak := &v1alpha1.ApiKey{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "held"}}
	sb := &v1alpha1.SandboxOrganization{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "held-sb"}}
	for _, obj := range []client.Object{ak, sb} {
		if err := h.k8s.Delete(h.ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	wantBlocked := func(name string, conds []metav1.Condition, deleting bool) {
		t.Helper()
		c := meta.FindStatusCondition(conds, v1alpha1.ConditionReady)
		if !deleting || c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "the deletion waits") {
			t.Errorf("%s: deleting %t, Ready %+v; want False, a message saying the deletion waits", name, deleting, c)
		}
	}
	got := h.waitApiKey("held", v1alpha1.ReasonDatabaseError)
	wantBlocked("ApiKey", got.Status.Conditions, !got.DeletionTimestamp.IsZero())
	gotSB := h.waitSandbox("held-sb", v1alpha1.ReasonDatabaseError)
	wantBlocked("SandboxOrganization", gotSB.Status.Conditions, !gotSB.DeletionTimestamp.IsZero())
	h.eventually("a Warning for each", func() error {
		for _, kind := range []string{"ApiKey", "SandboxOrganization"} {
			if len(h.warnings(kind)) == 0 {
				return fmt.Errorf("no Warning for the %s", kind)
			}
		}
		return nil
	})

	sql(`DROP TRIGGER refuse_revoke ON api_keys`)
	sql(`DROP TRIGGER refuse_delete ON organizations`)
	touch(h, ak) // reconciled now, not after the backoff
	touch(h, sb)
	h.eventually("both gone", func() error {
		for _, obj := range []client.Object{ak, sb} {
			if err := h.k8s.Get(h.ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s: %v", obj.GetName(), err)
			}
		}
		return nil
	})
	if active := h.activeKeys(org); len(active) != 0 {
		t.Errorf("active keys %v after the deletion", active)
	}
	if err := h.k8s.Get(h.ctx, h.key("held-secret"), &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Errorf("Secret after the deletion: %v", err)
	}
	if _, err := tenancy.GetOrganization(h.ctx, h.db, uuid.MustParse(sandbox)); !errs.Is(err, errs.NotFound) {
		t.Errorf("sandbox %s after the deletion: %v", sandbox, err)
	}
	// One Warning each, however often the cleanup was retried: a repeat
	// would be the same event with a series.
	for _, kind := range []string{"ApiKey", "SandboxOrganization"} {
		ws := h.warnings(kind)
		if len(ws) != 1 || ws[0].Reason != v1alpha1.ReasonDatabaseError || ws[0].Series != nil ||
			!strings.Contains(ws[0].Note, "the deletion waits") {
			t.Errorf("%s: Warnings %+v, want one %s saying the deletion waits", kind, ws, v1alpha1.ReasonDatabaseError)
		}
	}
}

// warnings lists the Warning events about objects of kind in the test's
// namespace.
func (h *harness) warnings(kind string) []eventsv1.Event {
	h.t.Helper()
	var evs eventsv1.EventList
	if err := h.k8s.List(h.ctx, &evs, client.InNamespace(h.ns)); err != nil {
		h.t.Fatal(err)
	}
	var out []eventsv1.Event
	for _, e := range evs.Items {
		if e.Type == corev1.EventTypeWarning && e.Regarding.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// touch annotates obj so that it is reconciled now rather than after its
// backoff. An object already gone needs none: its own retry finished the
// deletion first, which a loaded machine makes likely.
func touch(h *harness, obj client.Object) {
	h.t.Helper()
	h.eventually("touch "+obj.GetName(), func() error {
		err := h.k8s.Get(h.ctx, client.ObjectKeyFromObject(obj), obj)
		if err == nil {
			obj.SetAnnotations(map[string]string{"test/touch": "1"})
			err = h.k8s.Update(h.ctx, obj)
		}
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}
