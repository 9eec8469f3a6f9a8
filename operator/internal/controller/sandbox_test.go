package controller_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

func (h *harness) newSandbox(name string, parent uuid.UUID, seed bool) *v1alpha1.SandboxOrganization {
	return &v1alpha1.SandboxOrganization{
		ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: name},
		Spec:       v1alpha1.SandboxOrganizationSpec{ParentOrganizationID: parent.String(), Name: "Sandbox of " + name, SeedDemoData: seed},
	}
}

func (h *harness) waitSandbox(name, reason string) *v1alpha1.SandboxOrganization {
	h.t.Helper()
	return h.waitSandboxAt(h.key(name), reason)
}

// waitSandboxAt waits for the SandboxOrganization at key, in any namespace,
// to be Ready or not for reason, observed at its generation.
func (h *harness) waitSandboxAt(key client.ObjectKey, reason string) *v1alpha1.SandboxOrganization {
	h.t.Helper()
	sb := &v1alpha1.SandboxOrganization{}
	h.eventually("SandboxOrganization "+key.String()+" "+reason, func() error {
		if err := h.k8s.Get(h.ctx, key, sb); err != nil {
			return err
		}
		c := meta.FindStatusCondition(sb.Status.Conditions, v1alpha1.ConditionReady)
		if c == nil || c.Reason != reason || sb.Status.ObservedGeneration != sb.Generation {
			return fmt.Errorf("status %+v", sb.Status)
		}
		return nil
	})
	return sb
}

// count returns how many rows of table belong to org.
func (h *harness) count(table string, org uuid.UUID) int {
	h.t.Helper()
	n, err := h.db.NewSelect().Table(table).Where("organization_id = ?", org).Count(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	return int(n)
}

func (h *harness) clients(key string) (int, error) {
	status, body, err := h.get("/api/v2/clients?limit=100", key)
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("GET /api/v2/clients: %d %s", status, body)
	}
	var out struct{ Data []map[string]any }
	if err := json.Unmarshal(body, &out); err != nil {
		return 0, err
	}
	for _, c := range out.Data {
		if c["demo"] != true {
			return 0, fmt.Errorf("a sandbox client is not marked demo: %v", c)
		}
	}
	return len(out.Data), nil
}

func TestSandboxOrganization(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent Rentals")
	parentClients := h.count("clients", parent)

	// A test key of the parent, issued by the operator too.
	h.create(h.newApiKey("tester", parent, v1alpha1.KeyModeTest, "clients:read", "events:read"))
	h.waitApiKey("tester", v1alpha1.ReasonKeyIssued)
	testKey, _, _, _ := h.keySecret("tester-secret")
	if got, err := h.health(testKey); err != nil || got.OrganizationID != parent.String() || !got.Sandbox {
		t.Fatalf("test key before the sandbox: %+v %v", got, err)
	}

	sb := h.newSandbox("demo", parent, true)
	h.create(sb)
	sb = h.waitSandbox("demo", v1alpha1.ReasonSandboxReady)
	id, err := uuid.Parse(sb.Status.SandboxOrganizationID)
	if err != nil || !sb.Status.Seeded {
		t.Fatalf("status %+v", sb.Status)
	}
	org, err := tenancy.GetOrganization(h.ctx, h.db, id)
	if err != nil {
		t.Fatal(err)
	}
	if org.SandboxOf == nil || *org.SandboxOf != parent || org.Name != "Sandbox of demo" {
		t.Fatalf("sandbox organization %+v", org)
	}
	seeded := h.count("clients", id)
	if seeded == 0 {
		t.Fatal("the sandbox was not seeded")
	}

	// The parent's test key now lands in the sandbox and sees its data.
	h.eventually("test key routed to the sandbox", func() error {
		got, err := h.health(testKey)
		if err != nil {
			return err
		}
		if got.OrganizationID != id.String() || !got.Sandbox {
			return fmt.Errorf("health %+v", got)
		}
		return nil
	})
	if n, err := h.clients(testKey); err != nil || n != seeded {
		t.Fatalf("test key sees %d clients (%v), want the %d seeded", n, err, seeded)
	}

	// Renaming follows the spec.
	update(h, sb, func(s *v1alpha1.SandboxOrganization) { s.Spec.Name = "Renamed sandbox" })
	h.waitSandbox("demo", v1alpha1.ReasonSandboxReady)
	if org, err := tenancy.GetOrganization(h.ctx, h.db, id); err != nil || org.Name != "Renamed sandbox" {
		t.Fatalf("after rename: %+v %v", org, err)
	}

	// Deletion purges the sandbox and its data; the parent is untouched.
	if err := h.k8s.Delete(h.ctx, sb); err != nil {
		t.Fatal(err)
	}
	h.eventually("SandboxOrganization gone", func() error {
		if err := h.k8s.Get(h.ctx, h.key("demo"), &v1alpha1.SandboxOrganization{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %v", err)
		}
		return nil
	})
	if _, err := tenancy.GetOrganization(h.ctx, h.db, id); !errs.Is(err, errs.NotFound) {
		t.Fatalf("sandbox organization after deletion: %v", err)
	}
	if n := h.count("clients", id); n != 0 {
		t.Fatalf("%d clients of the deleted sandbox remain", n)
	}
	if _, err := tenancy.GetOrganization(h.ctx, h.db, parent); err != nil {
		t.Fatalf("parent after deletion: %v", err)
	}
	if n := h.count("clients", parent); n != parentClients {
		t.Fatalf("parent clients %d, want %d", n, parentClients)
	}
	h.eventually("test key back on the parent", func() error {
		got, err := h.health(testKey)
		if err != nil {
			return err
		}
		if got.OrganizationID != parent.String() {
			return fmt.Errorf("health %+v", got)
		}
		return nil
	})
}

func TestSandboxOrganizationConflictsAndMissingParent(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent")

	h.create(h.newSandbox("first", parent, false))
	first := h.waitSandbox("first", v1alpha1.ReasonSandboxReady)
	if first.Status.Seeded || h.count("clients", uuid.MustParse(first.Status.SandboxOrganizationID)) != 0 {
		t.Fatalf("an unseeded sandbox has data: %+v", first.Status)
	}

	// A second SandboxOrganization for the same parent does not take over.
	h.create(h.newSandbox("second", parent, false))
	second := h.waitSandbox("second", v1alpha1.ReasonSandboxConflict)
	if second.Status.SandboxOrganizationID != "" {
		t.Fatalf("conflicting sandbox recorded %s", second.Status.SandboxOrganizationID)
	}

	// An unknown parent is reported and retried, nothing is created.
	h.create(h.newSandbox("orphan", uuid.New(), false))
	h.waitSandbox("orphan", v1alpha1.ReasonOrganizationNotFound)

	// Deleting the conflicting one leaves the first one's sandbox alone.
	if err := h.k8s.Delete(h.ctx, second); err != nil {
		t.Fatal(err)
	}
	h.eventually("second gone", func() error {
		if err := h.k8s.Get(h.ctx, h.key("second"), &v1alpha1.SandboxOrganization{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %v", err)
		}
		return nil
	})
	if _, err := tenancy.GetOrganization(h.ctx, h.db, uuid.MustParse(first.Status.SandboxOrganizationID)); err != nil {
		t.Fatalf("first sandbox after deleting the second: %v", err)
	}
}

// TestSandboxRemadeAfterItsOrganizationIsGone: a ready SandboxOrganization
// whose organization is deleted in the database (no cluster event tells the
// operator) makes a new sandbox at its next recheck instead of staying
// Ready for a sandbox that no longer exists. A name with surrounding spaces
// is stored trimmed.
func TestSandboxRemadeAfterItsOrganizationIsGone(t *testing.T) {
	h := newHarness(t)
	parent := h.createOrg("Parent of a lost sandbox")
	sb := h.newSandbox("lost", parent, false)
	sb.Spec.Name = "  Padded sandbox  "
	h.create(sb)
	sb = h.waitSandbox("lost", v1alpha1.ReasonSandboxReady)
	first := uuid.MustParse(sb.Status.SandboxOrganizationID)
	org, err := tenancy.GetOrganization(h.ctx, h.db, first)
	if err != nil || org.Name != "Padded sandbox" {
		t.Fatalf("sandbox organization %+v %v", org, err)
	}
	if _, err := h.db.NewDelete().Table("organizations").Where("id = ?", first).Exec(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.eventually("a new sandbox", func() error {
		cur := &v1alpha1.SandboxOrganization{}
		if err := h.k8s.Get(h.ctx, h.key("lost"), cur); err != nil {
			return err
		}
		id, err := uuid.Parse(cur.Status.SandboxOrganizationID)
		if err != nil || id == first {
			return fmt.Errorf("status %+v", cur.Status)
		}
		org, err := tenancy.GetOrganization(h.ctx, h.db, id)
		if err != nil || org.SandboxOf == nil || *org.SandboxOf != parent {
			return fmt.Errorf("organization %+v %v", org, err)
		}
		return nil
	})
}
