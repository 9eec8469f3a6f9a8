#!/usr/bin/env bash
# Install a pinned helm (built from source in hack/k8stools) into
# ${EVENTAPI_CACHE:-$HOME/.cache/eventapi}/bin if it is missing or a different
# version, and print the helm binary's absolute path on stdout (logs go to
# stderr):
#
#   HELM="$(hack/helm.sh)" && "$HELM" version
set -euo pipefail

HELM_VERSION=v3.22.0  # helm.sh/helm/v3; built against k8s.io/* v0.37.0
K8S_MINOR=37          # minor of the k8s.io/client-go that helm version uses

log() { printf 'helm.sh: %s\n' "$*" >&2; }
die() { printf 'helm.sh: ERROR: %s\n' "$*" >&2; exit 1; }
trap 'printf "helm.sh: ERROR: command failed at line %s: %s\n" "$LINENO" "$BASH_COMMAND" >&2' ERR

command -v go >/dev/null 2>&1 || die "go is not on PATH (needed to build helm)"

cache_root=${EVENTAPI_CACHE:-${HOME:?HOME is not set; set EVENTAPI_CACHE}/.cache/eventapi}
mkdir -p "$cache_root/bin" || die "cannot create $cache_root/bin"
cache_root=$(cd "$cache_root" && pwd -P)
bin_dir="$cache_root/bin"
helm="$bin_dir/helm"

exec 9>"$bin_dir/.helm.lock"
flock 9 || die "cannot lock $bin_dir/.helm.lock"

# The module version go embeds in the binary tells which helm it is.
installed_version() {
	go version -m "$helm" 2>/dev/null | awk '($1 == "mod" || $1 == "dep") && $2 == "helm.sh/helm/v3" { print $3 }'
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
module_dir="$script_dir/k8stools"
grep -qE "^[[:space:]]*helm\.sh/helm/v3 $HELM_VERSION\$" "$module_dir/go.mod" ||
	die "hack/k8stools/go.mod does not require helm.sh/helm/v3 $HELM_VERSION (update HELM_VERSION in $0 together with go.mod)"

if [ -x "$helm" ] && [ "$(installed_version)" = "$HELM_VERSION" ]; then
	log "helm $HELM_VERSION already in $bin_dir"
else
	log "building helm $HELM_VERSION into $bin_dir (go build in hack/k8stools; about a minute or two on a cold Go build cache)..."
	ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
	# Same k8s version defaults helm's own Makefile bakes in (client-go v0.X -> 1.X).
	for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
		ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$K8S_MINOR"
	done
	# Built from the module kube-apiserver is built from, with the flags go
	# test uses, so the packages it shares with kube-apiserver and the main
	# module come from Go's build cache (hack/README.md, "Sharing the build
	# cache").
	tmp="$bin_dir/.helm.tmp.$$"
	if ! (cd "$module_dir" && GOWORK=off GOFLAGS=-mod=readonly \
		go build -ldflags "$ldflags" -o "$tmp" helm.sh/helm/v3/cmd/helm) >&2; then
		rm -f "$tmp"
		die "go build of helm.sh/helm/v3/cmd/helm $HELM_VERSION failed (see output above)"
	fi
	mv -f "$tmp" "$helm"
	[ "$(installed_version)" = "$HELM_VERSION" ] || die "installed $helm is not $HELM_VERSION"
	"$helm" version --short >&2 || die "installed helm does not run"
fi

printf '%s\n' "$helm"
