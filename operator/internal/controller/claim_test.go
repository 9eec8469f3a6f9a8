package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/operator/manager"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

// operator is one running operator of a database, as a release runs it.
type operator struct {
	db       *bun.DB
	identity string
	stop     func()
}

// startOperator runs a manager on db watching ns until its stop, or the
// test's end.
func startOperator(t *testing.T, db *bun.DB, ns string) *operator {
	t.Helper()
	id, err := database.InstallationIdentity(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(operatorConfig, manager.Options{DB: db, Namespaces: []string{ns},
		MetricsAddr: "0", ProbeAddr: "0", SkipNameValidation: true, SandboxRecheck: time.Second, KeyRecheck: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	op := &operator{db: db, identity: id.String()}
	stopped := false
	op.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}
	t.Cleanup(op.stop)
	return op
}

// openDatabase opens a fresh migrated database for the test.
func openDatabase(t *testing.T) *bun.DB {
	t.Helper()
	db, err := database.Open(context.Background(), pgtest.NewDatabase(t), database.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestTwoDatabasesOneNamespace: two operators of two databases watching
// one namespace (docs/helm.md, "Several releases"). An ApiKey and a
// SandboxOrganization are each claimed by exactly one; the other makes no
// key or sandbox in its database, never writes the Secret, and says why in
// an event. With the owner stopped, deleting the ApiKey leaves it
// Terminating, its Secret and key untouched: the other operator does not
// remove the finalizer. Once the owner is back the key is revoked and the
// ApiKey and its Secret are gone (docs/operator.md, "One database per
// object").
func TestTwoDatabasesOneNamespace(t *testing.T) {
	ctx := context.Background()
	scheme, err := manager.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	k8s, err := client.New(restConfig, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, ctx: ctx, k8s: k8s, ns: "t-" + randomHex(4)}
	h.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: h.ns}})
	dbA, dbB := openDatabase(t), openDatabase(t)
	org, err := tenancy.CreateOrganization(ctx, dbA, "Shared", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The same organization id in both: without the claim, both would
	// issue a key for it.
	if _, err := dbB.NewRaw("INSERT INTO organizations (id, name) VALUES (?, 'Shared')", org.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	ops := []*operator{startOperator(t, dbA, h.ns), startOperator(t, dbB, h.ns)}
	if ops[0].identity == ops[1].identity {
		t.Fatalf("two databases, one identity %s", ops[0].identity)
	}
	byIdentity := func(obj client.Object) (owner, other *operator) {
		t.Helper()
		for i, op := range ops {
			if claim := obj.GetAnnotations()[v1alpha1.DatabaseAnnotation]; claim == op.identity {
				return op, ops[1-i]
			}
		}
		t.Fatalf("%s is claimed for %q, neither database", obj.GetName(), obj.GetAnnotations()[v1alpha1.DatabaseAnnotation])
		return nil, nil
	}

	h.create(h.newApiKey("shared", org.ID, v1alpha1.KeyModeLive, "events:read"))
	ak := h.waitApiKey("shared", v1alpha1.ReasonKeyIssued)
	owner, other := byIdentity(ak)
	_, _, keyID, sec := h.keySecret("shared-secret")
	if ak.Status.KeyID != keyID {
		t.Fatalf("status names key %s, the Secret %s", ak.Status.KeyID, keyID)
	}
	keysOf := func(db *bun.DB) (all, active int) {
		t.Helper()
		ks, err := tenancy.ListKeys(ctx, db, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			if k.RevokedAt == nil {
				active++
			}
		}
		return len(ks), active
	}
	h.eventually("the other operator's event", func() error {
		return claimedEvent(h, "ApiKey", "shared", other.identity, owner.identity)
	})
	if all, active := keysOf(owner.db); all != 1 || active != 1 {
		t.Fatalf("the owner's database has %d keys, %d active; want 1, 1", all, active)
	}
	if all, _ := keysOf(other.db); all != 0 {
		t.Fatalf("the other database has %d keys, want none", all)
	}

	// A SandboxOrganization is claimed by one too; only its database
	// gets the sandbox.
	h.create(h.newSandbox("shared-sandbox", org.ID, false))
	sb := h.waitSandbox("shared-sandbox", v1alpha1.ReasonSandboxReady)
	sbOwner, sbOther := byIdentity(sb)
	for _, c := range []struct {
		op   *operator
		want bool
	}{{sbOwner, true}, {sbOther, false}} {
		s, err := tenancy.SandboxOrganization(ctx, c.op.db, org.ID)
		if err != nil || (s != nil) != c.want {
			t.Fatalf("sandbox in database %s: %v %v, want one %v", c.op.identity, s, err, c.want)
		}
	}
	h.eventually("the other operator's event", func() error {
		return claimedEvent(h, "SandboxOrganization", "shared-sandbox", sbOther.identity, sbOwner.identity)
	})
	h.deleteSandbox("shared-sandbox")

	// The owner stopped: the deletion waits for it.
	owner.stop()
	if err := h.k8s.Delete(ctx, ak); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if err := h.k8s.Get(ctx, h.key("shared"), ak); err != nil {
			t.Fatalf("the ApiKey went while its owner was stopped: %v", err)
		}
		if ak.DeletionTimestamp.IsZero() || !controllerutil.ContainsFinalizer(ak, v1alpha1.Finalizer) {
			t.Fatalf("the ApiKey is not Terminating with its finalizer: %v %v", ak.DeletionTimestamp, ak.Finalizers)
		}
		if _, _, _, now := h.keySecret("shared-secret"); now.ResourceVersion != sec.ResourceVersion {
			t.Fatalf("the Secret was written while its owner was stopped")
		}
	}
	if _, active := keysOf(owner.db); active != 1 {
		t.Fatalf("the owner's database has %d active keys while it is stopped, want 1", active)
	}
	if all, _ := keysOf(other.db); all != 0 {
		t.Fatalf("the other database has %d keys, want none", all)
	}

	// The owner back: its key revoked, the ApiKey and its Secret gone.
	startOperator(t, owner.db, h.ns)
	h.eventually("the ApiKey gone", func() error {
		if err := h.k8s.Get(ctx, h.key("shared"), ak); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (%v), finalizers %v", err, ak.Finalizers)
		}
		return nil
	})
	if _, active := keysOf(owner.db); active != 0 {
		t.Fatalf("the owner's database has %d active keys after the deletion, want none", active)
	}
	if err := h.k8s.Get(ctx, h.key("shared-secret"), &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the Secret after the deletion: %v, want not found", err)
	}
}

// claimedEvent finds the event in which the operator of database by says it
// leaves the object kind/name to the operator of database owner.
func claimedEvent(h *harness, kind, name, by, owner string) error {
	var evs eventsv1.EventList
	if err := h.k8s.List(h.ctx, &evs, client.InNamespace(h.ns)); err != nil {
		return err
	}
	for _, e := range evs.Items {
		if e.Reason == "ClaimedByAnotherDatabase" && e.Regarding.Kind == kind && e.Regarding.Name == name &&
			strings.Contains(e.Note, by) && strings.Contains(e.Note, owner) {
			return nil
		}
	}
	return errNotYet
}

// TestAClaimEditedByHand: an ApiKey from before claims (the finalizer, no
// annotation) is claimed by the operator that reconciles it; a claim edited
// by hand to a database no operator serves leaves the ApiKey alone, its
// deletion waiting; set back, the deletion goes on (docs/operator.md, "One
// database per object").
func TestAClaimEditedByHand(t *testing.T) {
	h := newHarness(t)
	org := h.createOrg("Claimed")
	ak := h.newApiKey("old", org, v1alpha1.KeyModeLive, "events:read")
	ak.Finalizers = []string{v1alpha1.Finalizer}
	h.create(ak)
	ak = h.waitApiKey("old", v1alpha1.ReasonKeyIssued)
	if got := ak.Annotations[v1alpha1.DatabaseAnnotation]; got != h.identity() {
		t.Fatalf("claim %q, want this database's %s", got, h.identity())
	}
	elsewhere := uuid.NewString()
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Annotations[v1alpha1.DatabaseAnnotation] = elsewhere })
	h.eventually("the event", func() error { return claimedEvent(h, "ApiKey", "old", h.identity(), elsewhere) })
	if err := h.k8s.Delete(h.ctx, ak); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if err := h.k8s.Get(h.ctx, h.key("old"), ak); err != nil || ak.Annotations[v1alpha1.DatabaseAnnotation] != elsewhere {
		t.Fatalf("the ApiKey claimed elsewhere, deleted: %v, claim %q; want it Terminating, the claim kept", err, ak.Annotations)
	}
	if len(h.activeKeys(org)) != 1 {
		t.Fatal("the key was revoked while the ApiKey was claimed elsewhere")
	}
	update(h, ak, func(a *v1alpha1.ApiKey) { a.Annotations[v1alpha1.DatabaseAnnotation] = h.identity() })
	h.eventually("the ApiKey gone", func() error {
		if err := h.k8s.Get(h.ctx, h.key("old"), ak); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %v", err)
		}
		return nil
	})
	if n := len(h.activeKeys(org)); n != 0 {
		t.Fatalf("%d keys active after the deletion, want none", n)
	}
}
