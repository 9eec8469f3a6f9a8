#!/usr/bin/env bash
# The admin CLI (bin/eventapi) with the database `make run` gives it:
# EVENTAPI_DATABASE_URL defaults to the local database `eventapi`, and the
# local PostgreSQL is started first when it does not answer (as make run
# does). Builds the binary first. `make cli ARGS='orgs list'` runs it too.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/services.sh
if [ -z "${EVENTAPI_DATABASE_URL:-}" ]; then
  ensure_postgres
  export EVENTAPI_DATABASE_URL="postgres://postgres@127.0.0.1:5432/eventapi?sslmode=disable"
fi
mkdir -p bin
go build -o bin/eventapi ./cmd/eventapi
exec bin/eventapi "$@"
