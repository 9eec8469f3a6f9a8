package controller_test

import (
	"cmp"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// TestSandboxDeletionPolicy: deleting a SandboxOrganization deletes its
// sandbox organization under deletionPolicy Delete, the default, and leaves
// it, with its data and as the parent's sandbox, under Orphan. The policy
// applies alike to a sandbox the operator made and to one made by hand
// that it adopted, and the one the resource holds when it is deleted wins.
func TestSandboxDeletionPolicy(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name     string
		policy   v1alpha1.DeletionPolicy // "" leaves the field out
		handMade bool                    // the parent has a sandbox before the resource
		switchTo v1alpha1.DeletionPolicy // set on the live resource before deleting it
		kept     bool
	}{
		{name: "default", kept: false},
		{name: "delete", policy: v1alpha1.DeletionDelete, kept: false},
		{name: "orphan", policy: v1alpha1.DeletionOrphan, kept: true},
		{name: "switched-to-orphan", policy: v1alpha1.DeletionDelete, switchTo: v1alpha1.DeletionOrphan, kept: true},
		{name: "switched-to-delete", policy: v1alpha1.DeletionOrphan, switchTo: v1alpha1.DeletionDelete, kept: false},
		{name: "adopted-default", handMade: true, kept: false},
		{name: "adopted-orphan", policy: v1alpha1.DeletionOrphan, handMade: true, kept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := h.in(t)
			parent := h.createOrg("Parent " + tt.name)
			var handMade uuid.UUID
			if tt.handMade {
				org, err := tenancy.CreateOrganization(h.ctx, h.db, "Made with the CLI", &parent)
				if err != nil {
					t.Fatal(err)
				}
				handMade = org.ID
			}
			sb := h.newSandbox(tt.name, parent, true)
			sb.Spec.DeletionPolicy = tt.policy
			h.create(sb)
			sb = h.waitSandbox(tt.name, v1alpha1.ReasonSandboxReady)
			if want := cmp.Or(tt.policy, v1alpha1.DeletionDelete); sb.Spec.DeletionPolicy != want {
				t.Fatalf("deletionPolicy %q, want %q (the CRD's default)", sb.Spec.DeletionPolicy, want)
			}
			id := uuid.MustParse(sb.Status.SandboxOrganizationID)
			if tt.handMade && id != handMade {
				t.Fatalf("sandbox %s, want the hand-made %s adopted", id, handMade)
			}
			data := h.count("clients", id)
			if !tt.handMade && data == 0 {
				t.Fatal("the sandbox was not seeded")
			}
			if tt.switchTo != "" {
				update(h, sb, func(s *v1alpha1.SandboxOrganization) { s.Spec.DeletionPolicy = tt.switchTo })
			}

			h.deleteSandbox(tt.name)
			_, err := tenancy.GetOrganization(h.ctx, h.db, id)
			switch {
			case tt.kept && err != nil:
				t.Fatalf("the sandbox %s is gone (%v), want it kept", id, err)
			case !tt.kept && !errs.Is(err, errs.NotFound):
				t.Fatalf("the sandbox %s is still there (%v), want it deleted", id, err)
			}
			if n := h.count("clients", id); tt.kept && n != data {
				t.Errorf("%d clients left in the kept sandbox, want its %d", n, data)
			}
			// The parent's test keys resolve their sandbox by this lookup.
			now, err := tenancy.SandboxOrganization(h.ctx, h.db, parent)
			switch {
			case err != nil:
				t.Fatal(err)
			case tt.kept && (now == nil || now.ID != id):
				t.Errorf("the parent's sandbox is now %+v, want %s", now, id)
			case !tt.kept && now != nil:
				t.Errorf("the parent still has the sandbox %s", now.ID)
			}
			if _, err := tenancy.GetOrganization(h.ctx, h.db, parent); err != nil {
				t.Fatalf("the parent: %v", err)
			}
			// Events are sent in the background: a kept sandbox's may
			// follow the resource's deletion.
			if tt.kept {
				h.eventually("a SandboxOrphaned event naming "+id.String(), func() error {
					for _, note := range h.eventNotes("SandboxOrphaned", tt.name) {
						if strings.Contains(note, id.String()) {
							return nil
						}
					}
					return errNotYet
				})
			} else if notes := h.eventNotes("SandboxOrphaned", tt.name); len(notes) > 0 {
				t.Errorf("SandboxOrphaned events %q for a deleted sandbox", notes)
			}
		})
	}
}

// TestAnOrphanedSandboxIsAdoptedAgain: after a SandboxOrganization with
// deletionPolicy Orphan is deleted, a new one of the same parent adopts the
// sandbox it left, data included, and its SandboxAdopted event says what
// deleting it will do.
func TestAnOrphanedSandboxIsAdoptedAgain(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent of an orphan")
	first := h.newSandbox("first", parent, true)
	first.Spec.DeletionPolicy = v1alpha1.DeletionOrphan
	h.create(first)
	id := h.waitSandbox("first", v1alpha1.ReasonSandboxReady).Status.SandboxOrganizationID
	data := h.count("clients", uuid.MustParse(id))
	h.deleteSandbox("first")

	h.create(h.newSandbox("second", parent, false))
	second := h.waitSandbox("second", v1alpha1.ReasonSandboxReady)
	if second.Status.SandboxOrganizationID != id || second.Status.Seeded {
		t.Fatalf("status %+v, want the orphaned sandbox %s adopted, not seeded", second.Status, id)
	}
	if n := h.count("clients", uuid.MustParse(id)); n != data {
		t.Errorf("%d clients in the adopted sandbox, want its %d", n, data)
	}
	var adopted []string
	h.eventually("a SandboxAdopted event", func() error {
		if adopted = h.eventNotes("SandboxAdopted", "second"); len(adopted) == 0 {
			return errNotYet
		}
		return nil
	})
	if !strings.Contains(adopted[0], "deletionPolicy to Orphan") {
		t.Errorf("SandboxAdopted %q does not say how to keep the sandbox", adopted[0])
	}
}

// TestABlockedDeletionLetGoByOrphan: a deletion the database refuses (a
// trigger, as in TestABlockedDeletionIsReported) waits with its finalizer;
// switching the resource to Orphan lets it go without the database, and
// the sandbox stays.
func TestABlockedDeletionLetGoByOrphan(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent of a blocked deletion")
	h.create(h.newSandbox("blocked", parent, false))
	sb := h.waitSandbox("blocked", v1alpha1.ReasonSandboxReady)
	id := uuid.MustParse(sb.Status.SandboxOrganizationID)
	for _, q := range []string{
		`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`,
		`CREATE TRIGGER refuse_delete BEFORE DELETE ON organizations FOR EACH ROW EXECUTE FUNCTION refuse()`,
	} {
		if _, err := h.db.ExecContext(h.ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.k8s.Delete(h.ctx, sb); err != nil {
		t.Fatal(err)
	}
	h.waitSandbox("blocked", v1alpha1.ReasonDatabaseError)

	update(h, sb, func(s *v1alpha1.SandboxOrganization) { s.Spec.DeletionPolicy = v1alpha1.DeletionOrphan })
	h.eventually("SandboxOrganization blocked gone", func() error {
		if err := h.k8s.Get(h.ctx, h.key("blocked"), sb); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %v", err)
		}
		return nil
	})
	if _, err := tenancy.GetOrganization(h.ctx, h.db, id); err != nil {
		t.Fatalf("the sandbox %s: %v, want it kept", id, err)
	}
}

// TestDeletionPolicyRefusals: the API server refuses a deletionPolicy
// other than Delete or Orphan (the CRD's enum), on create and on update;
// the values are case-sensitive, as Kubernetes' own policies are.
func TestDeletionPolicyRefusals(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent of refusals")
	h.create(h.newSandbox("live", parent, false))
	live := h.waitSandbox("live", v1alpha1.ReasonSandboxReady) // no more writes of the operator to conflict with
	for _, policy := range []v1alpha1.DeletionPolicy{"Retain", "orphan", "delete", "Orphan ", " "} {
		sb := h.newSandbox("refused", parent, false)
		sb.Spec.DeletionPolicy = policy
		if err := h.k8s.Create(h.ctx, sb); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "deletionPolicy") {
			t.Errorf("create with deletionPolicy %q: %v, want Invalid on spec.deletionPolicy", policy, err)
		}
		err := h.k8s.Get(h.ctx, h.key("live"), live)
		if err == nil {
			live.Spec.DeletionPolicy = policy
			err = h.k8s.Update(h.ctx, live)
		}
		if !apierrors.IsInvalid(err) {
			t.Errorf("update to deletionPolicy %q: %v, want Invalid", policy, err)
		}
	}
}

// in is h for the subtest t: its failures end t, not the test that made h.
func (h *harness) in(t *testing.T) *harness {
	sub := *h
	sub.t = t
	return &sub
}

// deleteSandbox deletes the SandboxOrganization name and waits until it is
// gone (its finalizer done).
func (h *harness) deleteSandbox(name string) {
	h.t.Helper()
	sb := &v1alpha1.SandboxOrganization{}
	if err := h.k8s.Get(h.ctx, h.key(name), sb); err != nil {
		h.t.Fatal(err)
	}
	if err := h.k8s.Delete(h.ctx, sb); err != nil {
		h.t.Fatal(err)
	}
	h.eventually("SandboxOrganization "+name+" gone", func() error {
		if err := h.k8s.Get(h.ctx, h.key(name), sb); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %v", err)
		}
		return nil
	})
}

// eventNotes returns the notes of the Normal events of the given reason
// about the SandboxOrganization name.
func (h *harness) eventNotes(reason, name string) []string {
	h.t.Helper()
	var evs eventsv1.EventList
	if err := h.k8s.List(h.ctx, &evs, client.InNamespace(h.ns)); err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range evs.Items {
		if e.Type == corev1.EventTypeNormal && e.Reason == reason &&
			e.Regarding.Kind == "SandboxOrganization" && e.Regarding.Name == name {
			out = append(out, e.Note)
		}
	}
	return out
}
