#!/usr/bin/env bash
# Lints the OpenAPI documents (api/openapi/openapi.yaml, the file the binary
# embeds and serves as /api/v2/openapi.json, and api/openapi/v1.yaml, served
# as /api/v1/openapi.json) with Redocly CLI's recommended
# ruleset (api/openapi/redocly.yaml; exceptions are justified in
# docs/openapi.md). Redocly CLI is pinned in tools/npm and installed with
# `npm ci` when missing. Fails on any error or warning.
set -euo pipefail
cd "$(dirname "$0")/../.."

. scripts/checks/lib/npm-tools.sh
ensure_npm_tools

start=$(date +%s)
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
# Both served documents: v2 (openapi.yaml) and the deprecated v1 surface's
# own document (v1.yaml, served as /api/v1/openapi.json).
for doc in api/openapi/openapi.yaml api/openapi/v1.yaml; do
  # Redocly's own exit status decides; its output is only read afterwards
  # (from a file, never through a pipe into grep -q, whose early exit under
  # pipefail would make the status lie).
  status=0
  tools/npm/node_modules/.bin/redocly lint "$doc" \
    --config api/openapi/redocly.yaml >"$tmp" 2>&1 || status=$?
  # Drop Redocly's Node.js end-of-support banner from what is shown.
  out=$(grep -v '[║╔╚]' "$tmp" || true)
  if [ "$status" -ne 0 ]; then
    echo "$out" >&2
    echo "openapi-lint: Redocly exited with status $status on $doc" >&2
    exit 1
  fi
  if ! grep -q 'Your API description is valid' "$tmp"; then
    echo "$out" >&2
    echo "openapi-lint: Redocly did not report $doc valid" >&2
    exit 1
  fi
  if grep -qE '[0-9]+ warnings?' "$tmp"; then
    echo "$out" >&2
    echo "openapi-lint: Redocly reported warnings in $doc; the document must lint clean" >&2
    exit 1
  fi
done
echo "openapi-lint: api/openapi/openapi.yaml and api/openapi/v1.yaml lint clean ($(( $(date +%s) - start ))s)" >&2
