#!/usr/bin/env bash
# Fetch/build the control-plane binaries that controller-runtime's envtest
# needs (kube-apiserver + etcd) into a per-version cache directory, and print
# that directory's absolute path on stdout (everything else goes to stderr):
#
#   export KUBEBUILDER_ASSETS="$(hack/envtest-assets.sh)"
#
# kube-apiserver is built from the separate Go module in hack/k8stools (pinned
# k8s.io/kubernetes); etcd comes from Debian's etcd-server package. Warm runs
# only check a stamp file and return at once. kubectl is not built: envtest
# (controller-runtime v0.25) only needs kube-apiserver and etcd.
set -euo pipefail

K8S_VERSION=1.37.0 # must match `require k8s.io/kubernetes v$K8S_VERSION` in hack/k8stools/go.mod

log() { printf 'envtest-assets: %s\n' "$*" >&2; }
die() { printf 'envtest-assets: ERROR: %s\n' "$*" >&2; exit 1; }
trap 'printf "envtest-assets: ERROR: command failed at line %s: %s\n" "$LINENO" "$BASH_COMMAND" >&2' ERR

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
module_dir="$script_dir/k8stools"
[ -f "$module_dir/go.mod" ] || die "missing $module_dir/go.mod"
grep -qE "^(require)?[[:space:]]*k8s\.io/kubernetes v$K8S_VERSION\$" "$module_dir/go.mod" ||
	die "hack/k8stools/go.mod does not require k8s.io/kubernetes v$K8S_VERSION (update K8S_VERSION in $0 together with go.mod)"

cache_root=${EVENTAPI_CACHE:-${HOME:?HOME is not set; set EVENTAPI_CACHE}/.cache/eventapi}
mkdir -p "$cache_root" || die "cannot create cache dir $cache_root"
cache_root=$(cd "$cache_root" && pwd -P)
dir="$cache_root/envtest/k8s-$K8S_VERSION"
mkdir -p "$dir" || die "cannot create $dir"

# Serialise concurrent callers (e.g. several test packages at once).
exec 9>"$dir/.lock"
flock 9 || die "cannot lock $dir/.lock"

# --- kube-apiserver ---------------------------------------------------------
stamp="$dir/.kube-apiserver.stamp"
want_stamp="k8s.io/kubernetes v$K8S_VERSION kube-apiserver"
if [ -x "$dir/kube-apiserver" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ]; then
	log "kube-apiserver v$K8S_VERSION already in $dir"
else
	command -v go >/dev/null 2>&1 || die "go is not on PATH (needed to build kube-apiserver)"
	log "building kube-apiserver v$K8S_VERSION into $dir (about 10 minutes on a cold Go build cache; progress every 30 s)..."
	rm -f "$stamp"
	minor=${K8S_VERSION#*.}
	minor=${minor%%.*}
	ldflags="-s -w"
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X $pkg.gitVersion=v$K8S_VERSION -X $pkg.gitMajor=${K8S_VERSION%%.*} -X $pkg.gitMinor=$minor"
		ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
	done
	tmp="$dir/.kube-apiserver.tmp.$$"
	# The cold build is long (about 10 minutes) and go build says nothing
	# meanwhile: report progress every 30 seconds (on stderr only, so that
	# $(hack/envtest-assets.sh) never waits for the reporter).
	build_start=$(date +%s)
	(while sleep 30; do log "still building kube-apiserver ($(( $(date +%s) - build_start ))s so far; about 10 minutes on a cold cache)"; done) >&2 &
	heartbeat=$!
	# Built as go test and go vet build the main module's packages (cgo as
	# the machine has it, no -trimpath), from the same module versions
	# (scripts/checks/k8stools-modules.sh): the ~700 packages both compile
	# (k8s.io/api, client-go, otel, grpc ...) are compiled once, by whichever
	# gets there first, and found in Go's build cache by the other
	# (hack/README.md, "Sharing the build cache").
	if ! (cd "$module_dir" && GOWORK=off GOFLAGS="${GOFLAGS:-} -mod=readonly" \
		go build -ldflags "$ldflags" -o "$tmp" k8s.io/kubernetes/cmd/kube-apiserver) >&2; then
		kill "$heartbeat" 2>/dev/null || true
		rm -f "$tmp"
		die "go build of k8s.io/kubernetes/cmd/kube-apiserver v$K8S_VERSION failed (see output above)"
	fi
	kill "$heartbeat" 2>/dev/null || true
	log "kube-apiserver built in $(( $(date +%s) - build_start ))s"
	"$tmp" --version >&2 || { rm -f "$tmp"; die "built kube-apiserver does not run"; }
	mv -f "$tmp" "$dir/kube-apiserver"
	printf '%s\n' "$want_stamp" >"$stamp"
	log "built $dir/kube-apiserver"
fi

# --- etcd -------------------------------------------------------------------
if ! command -v etcd >/dev/null 2>&1; then
	sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "etcd is not on PATH and not root: install it with 'apt-get install etcd-server'"
		sudo=(sudo -n)
	fi
	export DEBIAN_FRONTEND=noninteractive
	log "etcd not on PATH; installing Debian package etcd-server..."
	if ! "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends etcd-server >&2; then
		log "install failed; running apt-get update and retrying..."
		"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -q >&2 || die "apt-get update failed"
		"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends etcd-server >&2 ||
			die "apt-get install etcd-server failed"
	fi
	hash -r
	command -v etcd >/dev/null 2>&1 || die "etcd-server installed but etcd is still not on PATH"
fi
etcd_bin=$(readlink -f "$(command -v etcd)")
[ -x "$etcd_bin" ] || die "etcd at $etcd_bin is not executable"
"$etcd_bin" --version >/dev/null 2>&1 || die "$etcd_bin --version failed"
if [ "$(readlink "$dir/etcd" 2>/dev/null || true)" != "$etcd_bin" ]; then
	ln -sfn "$etcd_bin" "$dir/etcd" || die "cannot link $etcd_bin into $dir"
	log "linked $dir/etcd -> $etcd_bin ($("$etcd_bin" --version | head -n1))"
fi

[ -x "$dir/kube-apiserver" ] && [ -x "$dir/etcd" ] || die "assets incomplete in $dir"
printf '%s\n' "$dir"
