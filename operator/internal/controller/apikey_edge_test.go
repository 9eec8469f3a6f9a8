package controller_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// A key created but never written to its Secret (the operator died in
// between) must not survive: the next issue revokes it. Deleting the Secret
// issues a new key and revokes the lost one. However often that happens, one
// key stays active.
func TestApiKeyNeverLeaksKeys(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Leak Check")
	ak := h.newApiKey("ci", org, v1alpha1.KeyModeLive, "events:read")
	ak.Spec.RotationGracePeriod = &metav1.Duration{} // rotate without grace
	h.create(ak)
	ak = h.waitApiKey("ci", v1alpha1.ReasonKeyIssued)

	for i := range 3 {
		// A stray key named as the operator names its keys, as if the
		// operator had crashed after creating it.
		if _, err := tenancy.CreateKey(h.ctx, h.db, tenancy.NewKey{OrganizationID: org, Name: "ci [k8s:" + string(ak.UID) + "]",
			Scopes: []tenancy.Scope{tenancy.EventsRead}, Mode: apikey.Live}); err != nil {
			t.Fatal(err)
		}
		_, _, before, _ := h.keySecret("ci-secret")
		if i%2 == 0 {
			update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.RotationToken = "rotation-" + string(rune('a'+i)) })
		} else if err := h.k8s.Delete(h.ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "ci-secret"}}); err != nil {
			t.Fatal(err)
		}
		h.eventually("a new key", func() error {
			sec := &corev1.Secret{}
			if err := h.k8s.Get(h.ctx, h.key("ci-secret"), sec); err != nil {
				return err
			}
			if string(sec.Data["key-id"]) == before {
				return errNotYet
			}
			return nil
		})
		// Waited for on the condition itself, not on the Ready reason: a
		// round that deletes the Secret leaves the generation as it was, so
		// the previous round's status (KeyIssued, observedGeneration
		// current) is there before this round's reconcile has revoked
		// anything. status.keyId names the Secret's key only once the
		// strays are revoked (docs/operator.md, "Keys never leak").
		key, _, id, _ := h.keySecret("ci-secret")
		h.eventually(fmt.Sprintf("round %d: only the Secret's key active", i), func() error {
			got := &v1alpha1.ApiKey{}
			if err := h.k8s.Get(h.ctx, h.key("ci"), got); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady); c == nil || c.Reason != v1alpha1.ReasonKeyIssued || got.Status.KeyID != id {
				return fmt.Errorf("Ready %+v, status.keyId %s; want KeyIssued and the Secret's %s", c, got.Status.KeyID, id)
			}
			if active := h.activeKeys(org); len(active) != 1 || active[0].ID.String() != id {
				return fmt.Errorf("%d active keys, want only the Secret's %s", len(active), id)
			}
			return nil
		})
		if _, err := h.health(key); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
}

func TestApiKeyRefusals(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Refusals")

	// The CRD schema refuses unknown scopes, bad modes and bad ids.
	for name, mutate := range map[string]func(*v1alpha1.ApiKey){
		"unknown scope": func(a *v1alpha1.ApiKey) { a.Spec.Scopes = []v1alpha1.Scope{"everything:write"} },
		"no scope":      func(a *v1alpha1.ApiKey) { a.Spec.Scopes = nil },
		"legacy mode":   func(a *v1alpha1.ApiKey) { a.Spec.Mode = "legacy" },
		"bad org id":    func(a *v1alpha1.ApiKey) { a.Spec.OrganizationID = "acme" },
		"bad secret":    func(a *v1alpha1.ApiKey) { a.Spec.SecretName = "Not_A_Name" },
		"negative grace": func(a *v1alpha1.ApiKey) {
			a.Spec.RotationGracePeriod = &metav1.Duration{Duration: -time.Minute}
		},
	} {
		ak := h.newApiKey("refused", org, v1alpha1.KeyModeLive, "events:read")
		mutate(ak)
		if err := h.k8s.Create(h.ctx, ak); !apierrors.IsInvalid(err) {
			t.Errorf("%s: create gave %v, want Invalid", name, err)
		}
	}

	// A grace period that is not a Go duration is refused by the API
	// server: the operator's typed cache could not decode it, and one such
	// object stopped the operator for every namespace.
	for _, grace := range []string{"soon", "5 minutes", "1d", "", "9999999999h", "2562048h", "100000h", "1h1h1h1h"} {
		if err := h.createRaw("bad-grace", org, grace, "spec", "rotationGracePeriod"); !apierrors.IsInvalid(err) {
			t.Errorf("rotationGracePeriod %q: create gave %v, want Invalid", grace, err)
		}
	}
	// So is an expiry the operator's RFC 3339 reader refuses: lower-case t
	// and z, and offsets past 23:59, pass the API server's date-time format
	// (an offset of +99:00 stopped the operator for every namespace).
	for _, at := range []string{"2027-06-30t00:00:00z", "2027-06-30T00:00:00z",
		"2030-01-01T00:00:00+99:00", "2030-01-01T00:00:00-24:00", "2030-01-01T00:00:00+25:00",
		"2030-01-01T00:00:00+05:60", "2030-01-01T00:00:00-00:99", "2030-01-01T24:00:00Z",
		"2030-01-01T23:60:00Z", "2030-01-01T23:59:60Z", "2030-13-01T00:00:00Z", "2030-00-10T00:00:00Z",
		"2030-01-32T00:00:00Z", "2030-01-00T00:00:00Z", "2030-02-29T00:00:00Z"} {
		if err := h.createRaw("bad-expiry", org, at, "spec", "expiresAt"); !apierrors.IsInvalid(err) {
			t.Errorf("expiresAt %q: create gave %v, want Invalid", at, err)
		}
	}
	// Expiries the pattern accepts all decode.
	for i, at := range []string{"2099-01-01T00:00:00+23:59", "2099-01-01T00:00:00-23:59", "2099-01-01T00:00:00-00:00",
		"2099-12-31T23:59:59.1234567890123Z", "2096-02-29T00:00:00+14:00"} {
		name := fmt.Sprintf("good-expiry-%d", i)
		if err := h.createRaw(name, org, at, "spec", "expiresAt"); err != nil {
			t.Errorf("expiresAt %q: %v", at, err)
			continue
		}
		h.waitApiKey(name, v1alpha1.ReasonKeyIssued)
	}
	// Durations the rule accepts all decode: 0, µ and μ, three parts.
	for i, grace := range []string{"0", "5µs", "5μs", "99999h59m59s", "1.5h"} {
		name := fmt.Sprintf("good-grace-%d", i)
		if err := h.createRaw(name, org, grace, "spec", "rotationGracePeriod"); err != nil {
			t.Errorf("rotationGracePeriod %q: %v", grace, err)
			continue
		}
		h.waitApiKey(name, v1alpha1.ReasonKeyIssued)
	}

	// organizationId and secretName are immutable.
	ak := h.newApiKey("fixed", org, v1alpha1.KeyModeLive, "events:read")
	h.create(ak)
	h.waitApiKey("fixed", v1alpha1.ReasonKeyIssued)
	for name, mutate := range map[string]func(*v1alpha1.ApiKey){
		"organizationId": func(a *v1alpha1.ApiKey) { a.Spec.OrganizationID = uuid.NewString() },
		"secretName":     func(a *v1alpha1.ApiKey) { a.Spec.SecretName = "elsewhere" },
	} {
		cur := &v1alpha1.ApiKey{}
		if err := h.k8s.Get(h.ctx, h.key("fixed"), cur); err != nil {
			t.Fatal(err)
		}
		mutate(cur)
		err := h.k8s.Update(h.ctx, cur)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "immutable") {
			t.Errorf("changing %s gave %v, want Invalid (immutable)", name, err)
		}
	}

	// An unknown organization is reported and retried; no Secret appears.
	h.create(h.newApiKey("nowhere", uuid.New(), v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("nowhere", v1alpha1.ReasonOrganizationNotFound)
	if err := h.k8s.Get(h.ctx, h.key("nowhere-secret"), &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("Secret for an unknown organization: %v", err)
	}

	// A Secret the ApiKey does not own is never overwritten.
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "taken-secret"},
		StringData: map[string]string{"api-key": "someone else's"}}
	h.create(foreign)
	h.create(h.newApiKey("taken", org, v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("taken", v1alpha1.ReasonSecretConflict)
	got := &corev1.Secret{}
	if err := h.k8s.Get(h.ctx, h.key("taken-secret"), got); err != nil || string(got.Data["api-key"]) != "someone else's" {
		t.Fatalf("foreign Secret changed: %v", err)
	}

	// A past expiry issues no key, and says so: no key row, no Secret (one
	// was issued, stored as active and written, though always refused).
	past := h.newApiKey("expired", org, v1alpha1.KeyModeLive, "events:read")
	past.Spec.ExpiresAt = &metav1.Time{Time: time.Now().Add(-time.Hour)}
	h.create(past)
	expired := h.waitApiKey("expired", v1alpha1.ReasonExpired)
	if c := meta.FindStatusCondition(expired.Status.Conditions, v1alpha1.ConditionReady); !strings.Contains(c.Message, "no key is issued") {
		t.Errorf("Expired message %q, want it to say no key is issued", c.Message)
	}
	keys, err := tenancy.ListKeys(h.ctx, h.db, org)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.HasSuffix(k.Name, "[k8s:"+string(expired.UID)+"]") {
			t.Errorf("key %s (%s) issued for an ApiKey expired from the start", k.Prefix, k.Name)
		}
	}
	if err := h.k8s.Get(h.ctx, h.key("expired-secret"), &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Errorf("Secret of an ApiKey expired from the start: %v", err)
	}
}

// createRaw creates an ApiKey of org whose field at path holds the text
// value as sent, past the typed client's own encoding (as kubectl would).
func (h *harness) createRaw(name string, org uuid.UUID, value string, path ...string) error {
	h.t.Helper()
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(h.newApiKey(name, org, v1alpha1.KeyModeLive, "events:read"))
	if err != nil {
		h.t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: raw}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("ApiKey"))
	if err := unstructured.SetNestedField(u.Object, value, path...); err != nil {
		h.t.Fatal(err)
	}
	return h.k8s.Create(h.ctx, u)
}

// The status's times are decoded by the operator's cache too: the API
// server refuses one its RFC 3339 reader cannot read, whoever writes the
// status (only the operator should).
func TestStatusTimesTheOperatorCannotReadAreRefused(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Status Times")
	h.create(h.newApiKey("st", org, v1alpha1.KeyModeLive, "events:read"))
	h.waitApiKey("st", v1alpha1.ReasonKeyIssued)
	h.create(h.newSandbox("sb", uuid.New(), false))
	h.waitSandbox("sb", v1alpha1.ReasonOrganizationNotFound)

	const cond = `{"type":"Ready","status":"False","reason":"X","message":"","lastTransitionTime":%q}`
	for _, at := range []string{"2030-01-01T00:00:00+99:00", "2030-01-01t00:00:00z"} {
		for kind, patch := range map[string]string{
			"ApiKey/lastRotationTime":        fmt.Sprintf(`{"status":{"lastRotationTime":%q}}`, at),
			"ApiKey/revokeAt":                fmt.Sprintf(`{"status":{"pendingRevocation":{"keyId":"x","revokeAt":%q}}}`, at),
			"ApiKey/conditions":              fmt.Sprintf(`{"status":{"conditions":[`+cond+`]}}`, at),
			"SandboxOrganization/conditions": fmt.Sprintf(`{"status":{"conditions":[`+cond+`]}}`, at),
		} {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion(v1alpha1.GroupVersion.String())
			u.SetNamespace(h.ns)
			if strings.HasPrefix(kind, "ApiKey") {
				u.SetKind("ApiKey")
				u.SetName("st")
			} else {
				u.SetKind("SandboxOrganization")
				u.SetName("sb")
			}
			err := h.k8s.Status().Patch(h.ctx, u, client.RawPatch(types.MergePatchType, []byte(patch)))
			if !apierrors.IsInvalid(err) {
				t.Errorf("%s %q: status patch gave %v, want Invalid", kind, at, err)
			}
		}
	}
	// The operator still reads both.
	update(h, &v1alpha1.ApiKey{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "st"}}, func(a *v1alpha1.ApiKey) {
		a.Spec.Scopes = append(a.Spec.Scopes, "clients:read")
	})
	h.waitApiKey("st", v1alpha1.ReasonKeyIssued)
}

// A rotation without grace period whose new key cannot be made leaves the
// working key alone: the previous key is revoked only once the new key is
// in its Secret (it was revoked first, and a CreateKey that then failed
// left the ApiKey with no usable key). A failure to revoke it after the
// write is retried until it succeeds.
func TestARotationThatCannotIssueKeepsTheKey(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Grace Zero")
	ak := h.newApiKey("g0", org, v1alpha1.KeyModeLive, "events:read")
	ak.Spec.RotationGracePeriod = &metav1.Duration{}
	h.create(ak)
	h.waitApiKey("g0", v1alpha1.ReasonKeyIssued)
	key, _, id, _ := h.keySecret("g0-secret")
	onlyActive := func(want string) {
		t.Helper()
		if active := h.activeKeys(org); len(active) != 1 || active[0].ID.String() != want {
			t.Fatalf("%d active keys %v, want only %s", len(active), active, want)
		}
	}
	sql := func(q string) {
		t.Helper()
		if _, err := h.db.ExecContext(h.ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(v string) { // a reconcile now, not at the end of a backoff
		update(h, ak, func(a *v1alpha1.ApiKey) { a.Annotations = map[string]string{"test/touch": v} })
	}

	// A name tenancy refuses is InvalidSpec before anything is revoked.
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.RotationToken, a.Spec.Name = "r1", "Planner\tv2" })
	got := h.waitApiKey("g0", v1alpha1.ReasonInvalidSpec)
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady); !strings.Contains(c.Message, "spec.name") {
		t.Errorf("message %q, want it to name spec.name", c.Message)
	}
	h.wantStatus(key, http.StatusOK)
	onlyActive(id)

	// Any other failure of CreateKey (a trigger refuses the insert, as a
	// database failure would) leaves the working key alone too.
	sql(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`)
	sql(`CREATE TRIGGER refuse_insert BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION refuse()`)
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.Name = "Planner v2" })
	h.waitApiKey("g0", v1alpha1.ReasonDatabaseError)
	h.wantStatus(key, http.StatusOK)
	onlyActive(id)

	// The new key is made and written, but revoking the old one fails: the
	// ApiKey is not ready, and the next reconcile revokes it.
	sql(`DROP TRIGGER refuse_insert ON api_keys`)
	sql(`CREATE TRIGGER refuse_revoke BEFORE UPDATE ON api_keys FOR EACH ROW
		WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION refuse()`)
	touch("1")
	h.eventually("the new key in the Secret", func() error {
		if _, _, now, _ := h.keySecret("g0-secret"); now == id {
			return errNotYet
		}
		return nil
	})
	newKey, _, newID, _ := h.keySecret("g0-secret")
	h.wantStatus(newKey, http.StatusOK)
	got = h.waitApiKey("g0", v1alpha1.ReasonDatabaseError)
	if got.Status.KeyID != id {
		t.Errorf("status.keyId %s while the previous key is not revoked, want still %s", got.Status.KeyID, id)
	}
	if len(h.activeKeys(org)) != 2 {
		t.Fatalf("active keys %v, want the old and the new", h.activeKeys(org))
	}
	sql(`DROP TRIGGER refuse_revoke ON api_keys`)
	touch("2")
	got = h.waitApiKey("g0", v1alpha1.ReasonKeyIssued)
	if got.Status.KeyID != newID {
		t.Errorf("status.keyId %s, want %s", got.Status.KeyID, newID)
	}
	onlyActive(newID)
	h.wantStatus(key, http.StatusUnauthorized)
	h.wantStatus(newKey, http.StatusOK)
}

// A stray key is revoked by a reconcile that issues nothing. An issue whose
// Secret write never landed (the operator died, or lost its lease) leaves a
// key behind; when the spec is changed back before the next reconcile, the
// Secret and status match the spec, and strays were revoked only when a
// reconcile issued a key or found another in status. Here the reconcile
// only updates scopes.
func TestAStrayIsRevokedWithoutAnIssue(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Stray Check")
	ak := h.newApiKey("stray", org, v1alpha1.KeyModeLive, "events:read")
	h.create(ak)
	ak = h.waitApiKey("stray", v1alpha1.ReasonKeyIssued)
	if _, err := tenancy.CreateKey(h.ctx, h.db, tenancy.NewKey{OrganizationID: org, Name: "stray [k8s:" + string(ak.UID) + "]",
		Scopes: []tenancy.Scope{tenancy.EventsRead}, Mode: apikey.Live}); err != nil {
		t.Fatal(err)
	}
	_, _, id, _ := h.keySecret("stray-secret")
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Spec.Scopes = []v1alpha1.Scope{"events:read", "clients:read"} })
	h.eventually("the stray key revoked", func() error {
		if active := h.activeKeys(org); len(active) != 1 {
			return errNotYet
		}
		return nil
	})
	if active := h.activeKeys(org); active[0].ID.String() != id {
		t.Fatalf("the active key is %s, want the Secret's %s", active[0].ID, id)
	}
}
