#!/usr/bin/env bash
# What integrators do first with the served OpenAPI documents: generate a
# client. For each document (/api/v2/openapi.json and /api/v1/openapi.json)
# it runs oapi-codegen at its default settings (`-generate types,client`) and
# compiles and vets the Go it writes, and runs openapi-typescript and
# type-checks its output with tsc --strict. Any collision of generated names
# fails here (see docs/sdk.md). EVENTAPI_GENERATOR_SURFACES="v2" limits the run
# to one document while working on it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/checks/lib/codegen-tools.sh

start=$(date +%s)
oapi=$(ensure_oapi_codegen)
tsbin=$(ensure_typegen)
# The Go package is built inside this module (it has the generated code's
# runtime dependency); the folder name starts with "_" so ./... skips it.
work=$(mktemp -d "$PWD/_generator-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

for surface in ${EVENTAPI_GENERATOR_SURFACES:-v2 v1}; do
  dir="$work/$surface"
  mkdir -p "$dir"
  served_document "$surface" "$dir/openapi.json"
  "$oapi" -generate types,client -package generated "$dir/openapi.json" >"$dir/generated.go"
  if ! go build "./$(basename "$work")/$surface" || ! go vet "./$(basename "$work")/$surface"; then
    echo "openapi-generators: oapi-codegen $OAPI_CODEGEN_VERSION (default settings) output for the $surface document does not compile" >&2
    exit 1
  fi
  "$tsbin/openapi-typescript" "$dir/openapi.json" -o "$dir/schema.d.ts" >/dev/null 2>&1 || {
    "$tsbin/openapi-typescript" "$dir/openapi.json" -o "$dir/schema.d.ts" >&2 || true
    echo "openapi-generators: openapi-typescript failed on the $surface document" >&2
    exit 1
  }
  if ! "$tsbin/tsc" --noEmit --strict --skipLibCheck false "$dir/schema.d.ts"; then
    echo "openapi-generators: openapi-typescript output for the $surface document does not type-check" >&2
    exit 1
  fi
done
echo "openapi-generators: oapi-codegen $OAPI_CODEGEN_VERSION and openapi-typescript output compile for v2 and v1 ($(( $(date +%s) - start ))s)" >&2
