package controller

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/eventapi/eventapi/api/storage/demo"
	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// SandboxReconciler creates (and seeds), renames and deletes the sandbox
// organization of each SandboxOrganization.
type SandboxReconciler struct {
	Client client.Client
	// APIReader reads from the API server itself, not the cache: which
	// other SandboxOrganization manages a sandbox is decided on what the
	// API server holds now (managedBy).
	APIReader client.Reader
	// Namespaces are the watched namespaces (all when empty), where
	// managedBy looks.
	Namespaces []string
	DB         bun.IDB
	Recorder   events.EventRecorder
	// Recheck is how often a ready SandboxOrganization checks that its
	// organization still exists (DefaultSandboxRecheck when zero): nothing
	// in the cluster changes when the organization is deleted in the
	// database.
	Recheck time.Duration

	fin finalizer[*v1alpha1.SandboxOrganization]
}

// +kubebuilder:rbac:groups=eventapi.io,resources=sandboxorganizations,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=eventapi.io,resources=sandboxorganizations/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=eventapi.io,resources=sandboxorganizations/finalizers,verbs=update

// SetupWithManager registers the controller.
func (r *SandboxReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.fin = finalizer[*v1alpha1.SandboxOrganization]{client: r.Client, name: v1alpha1.Finalizer, cleanup: r.cleanup}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.SandboxOrganization{}).
		Named("sandboxorganization").
		Complete(r)
}

// DefaultSandboxRecheck is SandboxReconciler.Recheck's default
// (docs/operator.md).
const DefaultSandboxRecheck = 5 * time.Minute

// Reconcile brings one SandboxOrganization to its declared state.
func (r *SandboxReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	sb := &v1alpha1.SandboxOrganization{}
	if err := r.Client.Get(ctx, req.NamespacedName, sb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	deleting, f, err := r.fin.reconcile(ctx, sb)
	if stopping(ctx) {
		return ctrl.Result{}, nil
	}
	if err != nil || (deleting && f == nil) {
		return ctrl.Result{}, err
	}
	original := sb.DeepCopy()
	result := ctrl.Result{RequeueAfter: cmp.Or(r.Recheck, DefaultSandboxRecheck)}
	var stepErr error
	if !deleting {
		f = r.reconcileSandbox(ctx, sb)
	}
	if stopping(ctx) {
		return ctrl.Result{}, nil
	}
	if f != nil {
		warnOnChange(r.Recorder, sb, original.Status.Conditions, f, func() ([]metav1.Condition, error) {
			live := &v1alpha1.SandboxOrganization{}
			err := r.APIReader.Get(ctx, req.NamespacedName, live)
			return live.Status.Conditions, err
		})
		setReady(&sb.Status.Conditions, sb.Generation, false, f.reason, f.message)
		result, stepErr = f.result, f.err
	}
	sb.Status.ObservedGeneration = sb.Generation
	err = patchStatusIfChanged(ctx, r.Client, original, sb, func(s *v1alpha1.SandboxOrganization) any { return s.Status })
	if err = errors.Join(stepErr, err); err != nil {
		return ctrl.Result{}, err
	}
	return result, nil
}

func (r *SandboxReconciler) reconcileSandbox(ctx context.Context, sb *v1alpha1.SandboxOrganization) *failure {
	parent, err := uuid.Parse(sb.Spec.ParentOrganizationID)
	if err != nil {
		return invalid("spec.parentOrganizationId must be a uuid")
	}
	org, err := r.recorded(ctx, sb, parent)
	if err != nil {
		return classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	if org == nil {
		var f *failure
		if org, f = r.adoptOrCreate(ctx, sb, parent); f != nil {
			return f
		}
	}
	if name := strings.TrimSpace(sb.Spec.Name); org.Name != name { // names are stored trimmed
		if _, err := tenancy.UpdateOrganization(ctx, r.DB, org.ID, tenancy.OrganizationUpdate{Name: &name}); err != nil {
			return classify(err, v1alpha1.ReasonOrganizationNotFound)
		}
	}
	setReady(&sb.Status.Conditions, sb.Generation, true, v1alpha1.ReasonSandboxReady,
		fmt.Sprintf("sandbox organization %s of %s is ready", org.ID, parent))
	return nil
}

// recorded returns the sandbox organization named in status, or nil when
// there is none or it is no longer the sandbox of parent (deleted in the
// database); status is then cleared so that a new one is made.
func (r *SandboxReconciler) recorded(ctx context.Context, sb *v1alpha1.SandboxOrganization, parent uuid.UUID) (*tenancy.Organization, error) {
	id, err := uuid.Parse(sb.Status.SandboxOrganizationID)
	if err != nil {
		sb.Status.SandboxOrganizationID, sb.Status.Seeded = "", false
		return nil, nil
	}
	org, err := tenancy.GetOrganization(ctx, r.DB, id)
	if errs.Is(err, errs.NotFound) || (err == nil && (org.SandboxOf == nil || *org.SandboxOf != parent)) {
		sb.Status.SandboxOrganizationID, sb.Status.Seeded = "", false
		return nil, nil
	}
	return org, err
}

// adoptOrCreate makes the sandbox of parent. When parent already has one and
// no other SandboxOrganization manages it (an interrupted reconcile, or one
// made with the CLI), it is adopted as is. Otherwise the organization is
// created and, when asked, seeded, in one transaction.
func (r *SandboxReconciler) adoptOrCreate(ctx context.Context, sb *v1alpha1.SandboxOrganization, parent uuid.UUID) (*tenancy.Organization, *failure) {
	existing, err := tenancy.SandboxOrganization(ctx, r.DB, parent)
	if err != nil {
		return nil, classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	if existing != nil {
		owner, seeded, err := r.managedBy(ctx, sb, existing.ID)
		if err != nil {
			return nil, &failure{reason: v1alpha1.ReasonAPIServerError, message: "listing SandboxOrganizations failed", err: err}
		}
		switch owner {
		case "":
		case self:
			// This resource recorded it already (the status the cache had
			// not caught up with when this reconcile read it): nothing is
			// adopted.
			sb.Status.SandboxOrganizationID, sb.Status.Seeded = existing.ID.String(), seeded
			return existing, nil
		default:
			return nil, &failure{reason: v1alpha1.ReasonSandboxConflict, result: ctrlResultAfter(time.Minute),
				message: fmt.Sprintf("organization %s already has sandbox %s, managed by SandboxOrganization %s", parent, existing.ID, owner)}
		}
		sb.Status.SandboxOrganizationID, sb.Status.Seeded = existing.ID.String(), false
		r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, "SandboxAdopted", "Adopt",
			"adopted the existing sandbox organization %s of %s; %s", existing.ID, parent, onDeletion(sb))
		return existing, nil
	}
	var org *tenancy.Organization
	err = database.RunInTx(ctx, r.DB, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if org, err = tenancy.CreateOrganization(ctx, tx, sb.Spec.Name, &parent); err != nil {
			return err
		}
		if sb.Spec.SeedDemoData {
			return demo.Seed(ctx, tx, tenancy.Tenant{Org: org.OrgID(), Demo: true})
		}
		return nil
	})
	if err != nil {
		return nil, classify(err, v1alpha1.ReasonOrganizationNotFound)
	}
	sb.Status.SandboxOrganizationID, sb.Status.Seeded = org.ID.String(), sb.Spec.SeedDemoData
	r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, "SandboxCreated", "Create",
		"created sandbox organization %s of %s (seeded: %t)", org.ID, parent, sb.Spec.SeedDemoData)
	return org, nil
}

// self is what managedBy answers when sb itself records the sandbox.
const self = "(itself)"

// managedBy names the SandboxOrganization whose status records id ("" for
// none, self for sb, with the seeded flag it recorded). It lists what the
// API server holds now, not the cache: a SandboxOrganization of the same
// parent reconciled just before this one has recorded the sandbox it made,
// but the cache may not show that yet, and this one would then adopt the
// same sandbox (and delete it under the other when it is deleted); sb's
// own status may lag the same way, after the reconcile that created the
// sandbox. Reconciles of SandboxOrganizations run one at a time, so the
// other's status write has finished before this read.
func (r *SandboxReconciler) managedBy(ctx context.Context, sb *v1alpha1.SandboxOrganization, id uuid.UUID) (string, bool, error) {
	namespaces := r.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		var list v1alpha1.SandboxOrganizationList
		if err := r.APIReader.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return "", false, err
		}
		for _, o := range list.Items {
			switch {
			case o.Status.SandboxOrganizationID != id.String():
			case o.UID == sb.UID:
				return self, o.Status.Seeded, nil
			default:
				return o.Namespace + "/" + o.Name, false, nil
			}
		}
	}
	return "", false, nil
}

// onDeletion tells, in the SandboxAdopted event, what deleting sb will do
// to the sandbox it adopted: a sandbox made by hand is deleted with its
// data unless the policy says Orphan.
func onDeletion(sb *v1alpha1.SandboxOrganization) string {
	if sb.Spec.DeletionPolicy == v1alpha1.DeletionOrphan {
		return "deleting this SandboxOrganization will leave it in place (deletionPolicy: Orphan)"
	}
	return "deleting this SandboxOrganization will delete it and all its data; set spec.deletionPolicy to Orphan to keep it"
}

// cleanup runs on deletion. With deletionPolicy Orphan it leaves the
// sandbox organization as it is, without reading the database: the
// finalizer goes even while PostgreSQL is down. Otherwise (Delete, or no
// policy from a CRD older than the field) it deletes the sandbox
// organization (its data goes with it, by cascade). Only an organization
// that is the sandbox of the declared parent is ever deleted; never the
// parent. When status names no sandbox (the reconcile that made it died
// before recording it), the parent's sandbox is deleted unless another
// SandboxOrganization records it: this one would have adopted it
// (adoptOrCreate), so it is this one's.
func (r *SandboxReconciler) cleanup(ctx context.Context, sb *v1alpha1.SandboxOrganization) *failure {
	if sb.Spec.DeletionPolicy == v1alpha1.DeletionOrphan {
		sandbox := "the sandbox organization " + sb.Status.SandboxOrganizationID
		if sb.Status.SandboxOrganizationID == "" {
			sandbox = "any sandbox organization" // none recorded: the parent's, if it has one
		}
		log.FromContext(ctx).Info("deletionPolicy is Orphan: leaving the sandbox organization in place",
			"sandbox", sb.Status.SandboxOrganizationID, "parent", sb.Spec.ParentOrganizationID)
		r.Recorder.Eventf(sb, nil, corev1.EventTypeNormal, "SandboxOrphaned", "Delete",
			"left %s of %s in place (deletionPolicy: Orphan)", sandbox, sb.Spec.ParentOrganizationID)
		return nil
	}
	parent, err := uuid.Parse(sb.Spec.ParentOrganizationID)
	if err != nil {
		return nil
	}
	dbFailed := func(err error) *failure {
		f := classify(err, v1alpha1.ReasonOrganizationNotFound)
		f.message = "deleting the sandbox organization failed: " + f.message
		return f
	}
	id, err := uuid.Parse(sb.Status.SandboxOrganizationID)
	if err != nil {
		unrecorded, err := tenancy.SandboxOrganization(ctx, r.DB, parent)
		if err != nil {
			return dbFailed(err)
		}
		if unrecorded == nil {
			return nil
		}
		owner, _, err := r.managedBy(ctx, sb, unrecorded.ID)
		if err != nil {
			return &failure{reason: v1alpha1.ReasonAPIServerError, message: "listing SandboxOrganizations failed", err: err}
		}
		if owner != "" && owner != self {
			return nil
		}
		id = unrecorded.ID
	}
	if id == parent {
		return nil
	}
	org, err := tenancy.GetOrganization(ctx, r.DB, id)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	if err != nil {
		return dbFailed(err)
	}
	if org.SandboxOf == nil || *org.SandboxOf != parent {
		log.FromContext(ctx).Info("not deleting organization: it is not the sandbox of the declared parent", "organization", id, "parent", parent)
		return nil
	}
	if err := tenancy.DeleteOrganization(ctx, r.DB, id); err != nil && !errs.Is(err, errs.NotFound) {
		return dbFailed(err)
	}
	return nil
}
