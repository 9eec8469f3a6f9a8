#!/usr/bin/env bash
# Install a pinned helm (built from source with `go install`) into
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
	go version -m "$helm" 2>/dev/null | awk '$1 == "mod" && $2 == "helm.sh/helm/v3" { print $3 }'
}

if [ -x "$helm" ] && [ "$(installed_version)" = "$HELM_VERSION" ]; then
	log "helm $HELM_VERSION already in $bin_dir"
else
	log "installing helm $HELM_VERSION into $bin_dir (go install; about a minute or two on a cold Go build cache)..."
	ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
	# Same k8s version defaults helm's own Makefile bakes in (client-go v0.X -> 1.X).
	for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
		ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$K8S_MINOR"
	done
	if ! (cd "$bin_dir" && GOWORK=off GOFLAGS= CGO_ENABLED=0 GOBIN="$bin_dir" \
		go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION") >&2; then
		die "go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION failed (see output above)"
	fi
	[ "$(installed_version)" = "$HELM_VERSION" ] || die "installed $helm is not $HELM_VERSION"
	"$helm" version --short >&2 || die "installed helm does not run"
fi

printf '%s\n' "$helm"
