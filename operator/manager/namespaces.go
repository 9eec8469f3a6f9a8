package manager

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eventapi/eventapi/operator/internal/controller"
)

// namespaceCheckTimeout bounds the start's check of the watched namespaces.
const namespaceCheckTimeout = 10 * time.Second

// usableNamespaces returns the watched namespaces whose Secrets the
// operator may list, as its cache will, and leaves out the others with an
// error logged. A watched namespace that was deleted takes its Role and
// RoleBinding with it (docs/helm.md, "Watched namespaces"); its informer
// would then fail its first list with 403 for good, and controller-runtime
// would give up waiting for the cache after two minutes and stop the
// operator for every namespace, at each start. A failure other than 403
// (the API server busy) keeps the namespace: the cache retries it. Every
// namespace left out is an error: none would fall back to the whole
// cluster.
func usableNamespaces(cfg *rest.Config, scheme *runtime.Scheme, namespaces []string) ([]string, error) {
	if len(namespaces) == 0 {
		return nil, nil
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), namespaceCheckTimeout)
	defer cancel()
	log := ctrl.Log.WithName("namespaces")
	var usable []string
	for _, ns := range namespaces {
		err := c.List(ctx, &corev1.SecretList{}, client.InNamespace(ns), client.Limit(1),
			client.MatchingLabels{controller.ManagedByLabel: controller.ManagedByValue})
		if apierrors.IsForbidden(err) {
			log.Error(err, "not watching a listed namespace: the operator may not list its Secrets there (deleted, or its Role is gone); remove it from operator.watchNamespaces", "namespace", ns)
			continue
		}
		usable = append(usable, ns)
	}
	if len(usable) == 0 {
		return nil, fmt.Errorf("operator: none of the watched namespaces %v lets the operator list its Secrets", namespaces)
	}
	return usable, nil
}
