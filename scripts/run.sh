#!/usr/bin/env bash
# Runs eventapi locally: builds, creates and migrates the database, seeds a
# demo organization, prints a live key, a test key and a working curl line,
# then serves on EVENTAPI_ADDR (default :8080).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/services.sh

if [ -z "${EVENTAPI_DATABASE_URL:-}" ]; then
  ensure_postgres
  export EVENTAPI_DATABASE_URL="postgres://postgres@127.0.0.1:5432/eventapi?sslmode=disable"
fi
if [ -z "${EVENTAPI_REDIS_URL+x}" ] && redis_up; then
  export EVENTAPI_REDIS_URL="redis://127.0.0.1:6379/0"
fi
export EVENTAPI_ADDR="${EVENTAPI_ADDR:-:8080}"

echo "building eventapi..." >&2
mkdir -p bin
go build -o bin/eventapi ./cmd/eventapi
bin/eventapi migrate up --create-database
echo
bin/eventapi demo
echo
echo "serving on ${EVENTAPI_ADDR} (Ctrl-C to stop)"
exec bin/eventapi serve
