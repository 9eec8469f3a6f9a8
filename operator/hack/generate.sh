#!/usr/bin/env bash
# Regenerates the operator's generated files with the pinned controller-gen:
#   operator/api/v1alpha1/zz_generated.deepcopy.go   (DeepCopy methods)
#   operator/config/crd/bases/*.yaml                 (CRDs)
#   operator/config/rbac/role.yaml                   (ClusterRole from the rbac markers)
#   charts/eventapi/crds/*.yaml                      (the same CRDs, for Helm)
#
# With an argument DIR it writes into DIR (same layout) instead of the tree,
# which scripts/checks/operator-generated.sh uses to diff.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONTROLLER_GEN="sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0"
out="${1:-.}"
mkdir -p "$out/operator/api/v1alpha1" "$out/operator/config/crd/bases" "$out/operator/config/rbac" "$out/charts/eventapi/crds"
go run "$CONTROLLER_GEN" \
  object \
  output:object:dir="$out/operator/api/v1alpha1" \
  paths=./operator/api/...
go run "$CONTROLLER_GEN" \
  crd \
  output:crd:dir="$out/operator/config/crd/bases" \
  paths=./operator/api/...
go run "$CONTROLLER_GEN" \
  rbac:roleName=eventapi-operator \
  output:rbac:dir="$out/operator/config/rbac" \
  paths=./operator/internal/controller/...
rm -f "$out"/charts/eventapi/crds/*.yaml
cp "$out"/operator/config/crd/bases/*.yaml "$out/charts/eventapi/crds/"
