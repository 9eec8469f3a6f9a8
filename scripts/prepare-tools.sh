#!/usr/bin/env bash
# Builds or installs the pinned tools that the later steps of scripts/test.sh
# need and go test does not, once, cached under ~/.cache/eventapi:
# kube-apiserver and etcd for envtest, the OpenTelemetry Collector, helm,
# oapi-codegen, the pinned npm packages (Redocly CLI, Redoc,
# openapi-typescript) and Debian's Chromium. scripts/test.sh runs it in the
# background at the lowest CPU priority while the Go tests run, so that a
# cold machine builds them in the tests' idle time; a warm one finds them
# all at once.
#
# Prints the envtest assets directory (KUBEBUILDER_ASSETS) on stdout; the
# builders' logs go to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/checks/lib/codegen-tools.sh # sources lib/npm-tools.sh
. scripts/checks/lib/chromium.sh

started=$(date +%s)
step() {
  local t=$(date +%s)
  "$@" >/dev/null
  echo "prepare-tools: $1 ready in $(( $(date +%s) - t ))s" >&2
}

# kube-apiserver first: the envtest packages wait for it, the checks for
# the rest.
assets="${KUBEBUILDER_ASSETS:-}"
if [ -z "$assets" ]; then
  t=$(date +%s)
  assets="$(hack/envtest-assets.sh)"
  echo "prepare-tools: envtest assets ready in $(( $(date +%s) - t ))s" >&2
fi
step hack/otelcol/build.sh
step hack/helm.sh
step ensure_oapi_codegen
step ensure_npm_tools
step ensure_typegen
step ensure_chromium
echo "prepare-tools: all tools ready in $(( $(date +%s) - started ))s" >&2
echo "$assets"
