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

# The API packages once more, through PgBouncer in transaction mode
# (EVENTAPI_DATABASE_POOLER=transaction): databases are created and migrated
# directly, every test connection goes through the pooler (platform/pgtest).
# api/edgetest is left out: it tests the edge store, not the database.
. scripts/pgbouncer.sh
start_pgbouncer
trap stop_pgbouncer EXIT
echo "== go test through PgBouncer (pool_mode=transaction)" >&2
pooled=$(go list ./api/... ./platform/database/... ./tenancy/... | grep -v '/api/edgetest$')
# shellcheck disable=SC2086
EVENTAPI_TEST_POOLER_URL="$PGBOUNCER_URL" go test -count=1 -timeout 20m "$@" $pooled
stop_pgbouncer
trap - EXIT

shopt -s nullglob
for check in scripts/checks/*.sh; do
  echo "== ${check}" >&2
  bash "$check"
done
echo "all tests passed" >&2
