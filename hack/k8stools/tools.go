//go:build tools

// Package tools pins the Kubernetes binaries that hack/envtest-assets.sh
// (kube-apiserver) and hack/helm.sh (helm) build, so that `go mod tidy`
// keeps k8s.io/kubernetes and helm.sh/helm/v3 in go.mod.
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
