package controller_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
)

// TestAKeyOfADeletedOrganizationIsNamedNoMore: once an ApiKey's
// organization is deleted (its keys with it), the ApiKey reports
// OrganizationNotFound and its status names no key, as for Expired; it
// kept naming the deleted key's id and prefix.
func TestAKeyOfADeletedOrganizationIsNamedNoMore(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Deleted later")
	h.create(h.newApiKey("orphaned", org, v1alpha1.KeyModeLive, "events:read"))
	if ak := h.waitApiKey("orphaned", v1alpha1.ReasonKeyIssued); ak.Status.KeyID == "" || ak.Status.Prefix == "" {
		t.Fatalf("an issued key unnamed in status: %+v", ak.Status)
	}
	if err := tenancy.DeleteOrganization(h.ctx, h.db, org); err != nil {
		t.Fatal(err)
	}
	touch(h, &v1alpha1.ApiKey{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "orphaned"}})
	ak := h.waitApiKey("orphaned", v1alpha1.ReasonOrganizationNotFound)
	if ak.Status.KeyID != "" || ak.Status.Prefix != "" || ak.Status.PendingRevocation != nil {
		t.Errorf("status still names a key of the deleted organization: %+v", ak.Status)
	}
}
