#!/usr/bin/env bash
# Fails when the module that kube-apiserver and helm are built from
# (hack/k8stools) and the main module resolve a module that both compile to
# different versions.
#
# About 700 packages (k8s.io/api, apimachinery, client-go, otel, grpc,
# protobuf, prometheus ...) are compiled by kube-apiserver, helm and the main
# module's packages and tests alike. Built with the same flags from the same
# sources, Go's build cache compiles each once for both; a version that
# differs recompiles that module and everything above it, minutes of a cold
# `make test` (hack/README.md, "Sharing the build cache"). Fix with:
#   cd hack/k8stools && GOWORK=off go get MODULE@MAIN_VERSION ... && GOWORK=off go mod tidy
# or raise the main module's version where hack/k8stools's is the newer.
set -euo pipefail
cd "$(dirname "$0")/../.."
# One line per module a build compiles from: "path version" (a replaced
# module gives its replacement's version; the main module has none).
fmt='{{with .Module}}{{.Path}} {{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}{{end}}'
modules() { awk 'NF == 2' | sort -u; }
main_modules="$(go list -deps -test -f "$fmt" ./... | modules)"
tool_modules="$(cd hack/k8stools && GOWORK=off go list -deps -f "$fmt" k8s.io/kubernetes/cmd/kube-apiserver helm.sh/helm/v3/cmd/helm | modules)"
joined="$(join <(echo "$main_modules") <(echo "$tool_modules"))" # "path main-version tools-version"
shared=$(echo "$joined" | wc -l)
differ="$(echo "$joined" | awk '$2 != $3 {print "  " $1 ": main " $2 ", hack/k8stools " $3}')"
if [ -n "$differ" ]; then
  echo "ERROR: the main module and hack/k8stools build these shared modules at different versions, so a cold make test compiles them twice:" >&2
  echo "$differ" >&2
  echo "align them: cd hack/k8stools && GOWORK=off go get MODULE@VERSION && GOWORK=off go mod tidy (see scripts/checks/k8stools-modules.sh)" >&2
  exit 1
fi
echo "hack/k8stools and the main module build their ${shared} shared modules at the same versions" >&2
