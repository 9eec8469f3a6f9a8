// Package manager builds the eventapi operator's controller-runtime manager:
// the scheme, a cache that holds only the operator's own Secrets, optional
// namespace restriction, leader election, metrics and health probes, and the
// ApiKey and SandboxOrganization controllers wired to the eventapi database.
// cmd/eventapi-operator and the envtest suite both build it here.
package manager

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/uptrace/bun"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/operator/internal/controller"
)

// LeaderElectionID names the Lease the replicas compete for.
const LeaderElectionID = "eventapi-operator.eventapi.io"

// GracefulShutdownTimeout bounds how long a stopping manager waits for the
// reconciles in flight before it releases its lease and exits: below the
// chart's 10 s grace period for the operator's pod, so the pod releases the
// lease itself (the next leader takes over at once) instead of being killed
// holding it (the next leader waits out the 15 s lease). A reconcile cut
// short is run again by the next leader; its transaction rolls back.
// controller-runtime's default is 30 s.
const GracefulShutdownTimeout = 7 * time.Second

// Options configures the manager.
type Options struct {
	// DB is the eventapi database (EVENTAPI_DATABASE_URL).
	DB *bun.DB
	// Namespaces restricts the watched namespaces; empty watches all.
	Namespaces []string
	// MetricsAddr serves Prometheus metrics ("0" disables).
	MetricsAddr string
	// ProbeAddr serves /healthz and /readyz ("" or "0" disables).
	ProbeAddr string
	// LeaderElection makes only one replica reconcile at a time.
	LeaderElection bool
	// LeaderElectionNamespace holds the Lease (defaults to the pod's namespace
	// when running in a cluster).
	LeaderElectionNamespace string
	// LeaderElectionID names the Lease (default LeaderElectionID). Two
	// operators of two releases in one namespace need two names, or one
	// holds the Lease and the other never reconciles.
	LeaderElectionID string
	// SkipNameValidation allows several managers in one process (tests).
	SkipNameValidation bool
	// Now is the controllers' clock (time.Now when nil).
	Now func() time.Time
	// SandboxRecheck is how often a ready SandboxOrganization checks that
	// its organization still exists (controller.DefaultSandboxRecheck when
	// zero).
	SandboxRecheck time.Duration
	// KeyRecheck is how often a ready ApiKey checks that its key is still
	// active (controller.DefaultKeyRecheck when zero).
	KeyRecheck time.Duration
	// CacheErrorWindow is how long one list/watch error of the informer
	// cache (a CRD deleted, RBAC lost, an object that cannot be decoded)
	// keeps /readyz failing (DefaultCacheErrorWindow when zero).
	CacheErrorWindow time.Duration
}

// Scheme returns a scheme with the built-in types and eventapi.io/v1alpha1.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// New builds a manager with both controllers registered; start it with Start.
func New(cfg *rest.Config, opt Options) (ctrl.Manager, error) {
	if opt.DB == nil {
		return nil, fmt.Errorf("operator: a database is required")
	}
	scheme, err := Scheme()
	if err != nil {
		return nil, err
	}
	secret := &corev1.Secret{} // the key of the Secret cache's settings
	cacheOpts := cache.Options{
		// Only Secrets written by the operator are cached (and watched), never
		// the rest of the cluster's Secrets.
		ByObject: map[client.Object]cache.ByObject{
			secret: {Label: labels.SelectorFromSet(labels.Set{controller.ManagedByLabel: controller.ManagedByValue})},
		},
	}
	if len(opt.Namespaces) > 0 {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range opt.Namespaces {
			cacheOpts.DefaultNamespaces[ns] = cache.Config{}
		}
		withSecrets, err := secretNamespaces(cfg, scheme, opt.Namespaces)
		if err != nil {
			return nil, err
		}
		secrets := cacheOpts.ByObject[secret]
		secrets.Namespaces = map[string]cache.Config{}
		for _, ns := range withSecrets {
			secrets.Namespaces[ns] = cache.Config{}
		}
		cacheOpts.ByObject[secret] = secrets
	}
	// The reflectors retry a failing list/watch forever, logging only: the
	// "cache" readiness check turns their errors into a signal.
	cacheHealth := newCacheHealth(opt.CacheErrorWindow, time.Now)
	cacheOpts.DefaultWatchErrorHandler = cacheHealth.watchErrorHandler
	probe := opt.ProbeAddr
	if probe == "0" {
		probe = ""
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         cacheOpts,
		Metrics:                       metricsserver.Options{BindAddress: opt.MetricsAddr},
		HealthProbeBindAddress:        probe,
		LeaderElection:                opt.LeaderElection,
		LeaderElectionID:              cmp.Or(opt.LeaderElectionID, LeaderElectionID),
		LeaderElectionNamespace:       opt.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       ptr.To(GracefulShutdownTimeout),
		Controller:                    config.Controller{SkipNameValidation: ptr.To(opt.SkipNameValidation)},
	})
	if err != nil {
		return nil, err
	}
	keys := &controller.ApiKeyReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: scheme,
		DB: opt.DB, Recorder: mgr.GetEventRecorder("eventapi-operator"), Now: opt.Now, Recheck: opt.KeyRecheck}
	if err := keys.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	sandboxes := &controller.SandboxReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Namespaces: opt.Namespaces,
		DB: opt.DB, Recorder: mgr.GetEventRecorder("eventapi-operator"), Recheck: opt.SandboxRecheck}
	if err := sandboxes.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	countResources(mgr.GetCache())
	if probe != "" {
		if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
			return nil, err
		}
		if err := mgr.AddReadyzCheck("database", databaseCheck(opt.DB)); err != nil {
			return nil, err
		}
		if err := mgr.AddReadyzCheck("cache", cacheHealth.checker()); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// databaseCheck fails readiness while PostgreSQL does not answer.
func databaseCheck(db *bun.DB) healthz.Checker {
	return func(r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		return db.PingContext(ctx)
	}
}
