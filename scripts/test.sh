#!/usr/bin/env bash
# The whole test suite, against the real PostgreSQL and Redis. It starts them
# when they are not running and fails loudly when it cannot; each Go test
# package creates its own fresh database. Every executable script in
# scripts/checks/ (lint, browser, chart, envtest assets) runs after go test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Checks install Debian packages (etcd-server, chromium) on a fresh machine;
# CI has no terminal, so apt must never ask.
export DEBIAN_FRONTEND=noninteractive
. scripts/services.sh
ensure_postgres
ensure_redis

echo "== go vet" >&2
go vet ./...

if [ -d hack ] && [ -x hack/envtest-assets.sh ] && [ -z "${KUBEBUILDER_ASSETS:-}" ]; then
  echo "== envtest assets" >&2
  KUBEBUILDER_ASSETS="$(hack/envtest-assets.sh)"
  export KUBEBUILDER_ASSETS
fi

echo "== go test" >&2
go test -count=1 -timeout 30m "$@" ./...

shopt -s nullglob
for check in scripts/checks/*.sh; do
  echo "== ${check}" >&2
  bash "$check"
done
echo "all tests passed" >&2
