#!/usr/bin/env bash
# Lints the OpenAPI document (api/openapi/openapi.yaml, the file the binary
# embeds and serves as /api/v2/openapi.json) with Redocly CLI's recommended
# ruleset (api/openapi/redocly.yaml; exceptions are justified in
# docs/openapi.md). Redocly CLI is pinned in tools/npm and installed with
# `npm ci` when missing. Fails on any error or warning.
set -euo pipefail
cd "$(dirname "$0")/../.."

. scripts/checks/lib/npm-tools.sh
ensure_npm_tools

start=$(date +%s)
# The grep drops Redocly's Node.js end-of-support banner.
out=$(tools/npm/node_modules/.bin/redocly lint api/openapi/openapi.yaml \
  --config api/openapi/redocly.yaml 2>&1 | grep -v '[║╔╚]') || true
if ! echo "$out" | grep -q 'Your API description is valid'; then
  echo "$out" >&2
  echo "openapi-lint: Redocly reported errors" >&2
  exit 1
fi
if echo "$out" | grep -qE '[0-9]+ warnings?'; then
  echo "$out" >&2
  echo "openapi-lint: Redocly reported warnings; the document must lint clean" >&2
  exit 1
fi
echo "openapi-lint: api/openapi/openapi.yaml lints clean ($(( $(date +%s) - start ))s)" >&2
