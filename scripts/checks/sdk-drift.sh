#!/usr/bin/env bash
# Fails when the Go SDK's generated code (api/client, api/client/v1) differs
# from what the pinned oapi-codegen generates from the served OpenAPI
# documents. Fix: scripts/gen-sdk.sh, then commit.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
scripts/gen-sdk.sh --check
echo "sdk-drift: api/client and api/client/v1 match the served documents ($(( $(date +%s) - start ))s)" >&2
