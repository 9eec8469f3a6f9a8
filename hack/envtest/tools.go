//go:build tools

// Package tools pins the Kubernetes binaries built by hack/envtest-assets.sh
// so that `go mod tidy` keeps k8s.io/kubernetes in go.mod.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
