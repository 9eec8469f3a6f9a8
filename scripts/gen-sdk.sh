#!/usr/bin/env bash
# Regenerates the Go SDK's generated code from the OpenAPI documents exactly
# as the server serves them (/api/v2/openapi.json → api/client,
# /api/v1/openapi.json → api/client/v1), with the pinned oapi-codegen and the
# checked-in configs (api/client/oapi-codegen.yaml,
# api/client/v1/oapi-codegen.yaml). Run it after any change to
# api/openapi/*.yaml:
#
#   scripts/gen-sdk.sh          # rewrite the generated files
#   scripts/gen-sdk.sh --check  # fail if they differ from what it would write
#
# `go generate ./api/client/...` runs the first form.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/checks/lib/codegen-tools.sh

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: scripts/gen-sdk.sh [--check]" >&2; exit 2 ;;
esac

oapi=$(ensure_oapi_codegen)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

drift=0
for pair in v2:api/client/oapi-codegen.yaml v1:api/client/v1/oapi-codegen.yaml; do
  surface=${pair%%:*} config=${pair#*:}
  out=$(sed -n 's/^output: *//p' "$config")
  served_document "$surface" "$work/$surface.json"
  # The config names the output file; generate to a scratch copy first so a
  # failed run never leaves a half-written SDK behind.
  sed "s|^output: .*|output: $work/$surface.gen.go|" "$config" >"$work/$surface.yaml"
  "$oapi" -config "$work/$surface.yaml" "$work/$surface.json"
  if $check; then
    if ! cmp -s "$work/$surface.gen.go" "$out"; then
      echo "gen-sdk: $out is not what the served $surface document generates:" >&2
      diff -u "$out" "$work/$surface.gen.go" | head -40 >&2 || true
      drift=1
    fi
  else
    cp "$work/$surface.gen.go" "$out"
    echo "gen-sdk: wrote $out from the served $surface document" >&2
  fi
done
if [ "$drift" -ne 0 ]; then
  echo "gen-sdk: the SDK drifted from the OpenAPI documents; run scripts/gen-sdk.sh and commit the result" >&2
  exit 1
fi
