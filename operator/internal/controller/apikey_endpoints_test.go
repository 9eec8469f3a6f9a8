package controller

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"

	"github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/tenancy"
)

// TestARevokedKeyNamesItsEndpoints: when the operator revokes a rotation's
// previous key that had registered webhook endpoints, in the organization
// and in its sandbox, a Warning EndpointsOutliveKey names the count and
// the first 10 ids, oldest first; the endpoints stay, and those of another
// key are not named. Revoking a key without endpoints sends none
// (docs/operator.md, "Status").
func TestARevokedKeyNamesItsEndpoints(t *testing.T) {
	g := newPendingRig(t)
	g.reconcile(v1alpha1.ReasonKeyIssued)
	_, ak := g.reconcile(v1alpha1.ReasonKeyIssued)
	old := uuid.MustParse(ak.Status.KeyID)

	sandbox, err := tenancy.CreateOrganization(g.ctx, g.r.DB, "Pending (sandbox)", &g.org)
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New(make([]byte, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	register := func(org uuid.UUID, key uuid.UUID, i int) uuid.UUID {
		e, err := webhooks.CreateEndpoint(g.ctx, g.r.DB, tenancy.Tenant{Org: tenancy.OrganizationID{UUID: org}}, sealer, webhooks.NewEndpoint{
			URL: fmt.Sprintf("https://planner.example/%d", i), EnabledEvents: []string{"*"}, CreatedByKeyID: key})
		if err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	var named []uuid.UUID
	for i := range 11 {
		named = append(named, register(g.org, old, i))
	}
	named = append(named, register(sandbox.ID, old, 11))
	other := register(g.org, uuid.New(), 12)

	g.edit(func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "r1" })
	g.reconcile(v1alpha1.ReasonKeyIssued)
	g.now = g.now.Add(5 * time.Minute) // revokeAt
	_, ak = g.reconcile(v1alpha1.ReasonKeyIssued)
	if ak.Status.PendingRevocation != nil {
		t.Fatalf("the previous key is still pending: %+v", ak.Status.PendingRevocation)
	}
	var warnings []string
	for len(g.ev.Events) > 0 {
		if e := <-g.ev.Events; strings.HasPrefix(e, corev1.EventTypeWarning+" EndpointsOutliveKey ") {
			warnings = append(warnings, e)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("%d EndpointsOutliveKey warnings, want 1: %q", len(warnings), warnings)
	}
	w := warnings[0]
	if !strings.Contains(w, "key "+old.String()+" revoked") || !strings.Contains(w, "the 12 webhook endpoint(s)") ||
		!strings.HasSuffix(w, " and 2 more") {
		t.Errorf("warning %q: want the key %s, 12 endpoints and 2 more", w, old)
	}
	for i, id := range named {
		if got, want := strings.Contains(w, id.String()), i < maxNamedEndpoints; got != want {
			t.Errorf("endpoint %d (%s) named: %v, want %v", i, id, got, want)
		}
	}
	if strings.Contains(w, other.String()) {
		t.Errorf("another key's endpoint %s is named", other)
	}
	es, err := webhooks.EndpointsOfKey(g.ctx, g.r.DB, tenancy.OrganizationID{UUID: g.org}, old)
	if err != nil || len(es) != 12 {
		t.Errorf("after the revocation: %d endpoints (%v), want all 12 kept", len(es), err)
	}

	// The current key registered none: its revocation (the ApiKey's
	// deletion) sends no warning.
	if err := g.c.Delete(g.ctx, ak); err != nil {
		t.Fatal(err)
	}
	if _, err := g.r.Reconcile(g.ctx, g.req); err != nil {
		t.Fatal(err)
	}
	if a := g.active(); len(a) != 0 {
		t.Fatalf("after the deletion: active keys %v, want none", a)
	}
	for len(g.ev.Events) > 0 {
		if e := <-g.ev.Events; strings.Contains(e, "EndpointsOutliveKey") {
			t.Errorf("a key without endpoints revoked: %q", e)
		}
	}
}
