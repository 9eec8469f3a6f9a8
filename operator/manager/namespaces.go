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

// Bounds of secretNamespaces' check: a namespace whose Secrets are
// forbidden is asked again every secretCheckEvery until secretCheckFor has
// passed, since a Role and RoleBinding installed with the operator may
// reach the API server's authorizer a moment after it starts.
// secretCheckTimeout bounds each of those asks.
const (
	secretCheckFor     = 15 * time.Second
	secretCheckEvery   = time.Second
	secretCheckTimeout = 5 * time.Second
)

// secretNamespaces returns the watched namespaces whose Secrets the
// operator may list, as its Secret cache will, and leaves out the others
// with an error logged. A watched namespace that was deleted takes its Role
// and RoleBinding with it (docs/helm.md, "Watched namespaces"): its Secret
// informer would fail its first list with 403 for good, and
// controller-runtime would give up waiting for the cache after two minutes
// and stop the operator for every namespace, at each start. Only the Secret
// cache leaves such a namespace out: ApiKeys and SandboxOrganizations are
// still watched there (the chart grants them cluster-wide), so those being
// deleted with the namespace are finalized and their keys revoked. A
// failure other than 403 (the API server busy) keeps the namespace: the
// cache retries it. With none left it is an error, since an empty list
// would mean every namespace.
func secretNamespaces(cfg *rest.Config, scheme *runtime.Scheme, namespaces []string) ([]string, error) {
	if len(namespaces) == 0 {
		return nil, nil
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	log := ctrl.Log.WithName("namespaces")
	forbidden := func(ns string) error {
		ctx, cancel := context.WithTimeout(context.Background(), secretCheckTimeout)
		defer cancel()
		err := c.List(ctx, &corev1.SecretList{}, client.InNamespace(ns), client.Limit(1),
			client.MatchingLabels{controller.ManagedByLabel: controller.ManagedByValue})
		if apierrors.IsForbidden(err) {
			return err
		}
		return nil
	}
	deadline := time.Now().Add(secretCheckFor)
	var usable []string
	for _, ns := range namespaces {
		err := forbidden(ns)
		for err != nil && time.Now().Before(deadline) {
			time.Sleep(secretCheckEvery)
			err = forbidden(ns)
		}
		if err != nil {
			log.Error(err, "not watching the Secrets of a listed namespace: the operator may not list them there (deleted, or its Role is gone); its ApiKeys are still finalized; remove it from operator.watchNamespaces", "namespace", ns)
			continue
		}
		usable = append(usable, ns)
	}
	if len(usable) == 0 {
		return nil, fmt.Errorf("operator: none of the watched namespaces %v lets the operator list its Secrets", namespaces)
	}
	return usable, nil
}
