#!/usr/bin/env bash
# The admin CLI (bin/eventapi) with the environment `make run` gives it:
# EVENTAPI_DATABASE_URL defaults to the local database `eventapi`. Builds the
# binary first. `make cli ARGS='orgs list'` runs it too.
set -euo pipefail
cd "$(dirname "$0")/.."
export EVENTAPI_DATABASE_URL="${EVENTAPI_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/eventapi?sslmode=disable}"
mkdir -p bin
go build -o bin/eventapi ./cmd/eventapi
exec bin/eventapi "$@"
