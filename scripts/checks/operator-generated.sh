#!/usr/bin/env bash
# Fails when the operator's generated files (DeepCopy, CRDs, the ClusterRole
# from the rbac markers, and the CRD copies in the Helm chart) differ from what
# the pinned controller-gen produces from the current sources. Fix with:
#   operator/hack/generate.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
operator/hack/generate.sh "$tmp"
status=0
for f in operator/api/v1alpha1/zz_generated.deepcopy.go operator/config/rbac/role.yaml \
         operator/config/crd/bases/*.yaml charts/eventapi/crds/*.yaml; do
  if ! diff -u "$f" "$tmp/$f"; then
    echo "ERROR: $f is out of date; run operator/hack/generate.sh" >&2
    status=1
  fi
done
# No stale extra files either.
for d in operator/config/crd/bases charts/eventapi/crds; do
  if ! diff <(ls "$d") <(ls "$tmp/$d") >/dev/null; then
    echo "ERROR: $d holds other files than the generated CRDs: run operator/hack/generate.sh" >&2
    diff <(ls "$d") <(ls "$tmp/$d") >&2 || true
    status=1
  fi
done
if [ "$status" -eq 0 ]; then echo "operator generated files are up to date" >&2; fi
exit "$status"
