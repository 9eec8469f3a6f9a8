#!/usr/bin/env bash
# Runs eventapi locally: checks that EVENTAPI_ADDR (default :8080) and
# EVENTAPI_METRICS_ADDR (default :9464) are free,
# builds, checks serve's configuration (serve --check), creates and migrates the database, makes or reuses the demo
# organization and its sandbox (eventapi demo), prints a live, a test and a
# legacy key with curl lines for v2 and v1, then serves on EVENTAPI_ADDR.
# EVENTAPI_RUN_DEMO=0 (make serve) skips the demo step: another instance on
# the same database, serving the keys the first run printed (a second demo
# step would print new ones and revoke those).
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

export EVENTAPI_METRICS_ADDR="${EVENTAPI_METRICS_ADDR:-:9464}"
# A local server takes webhook receivers on loopback and plain http, so a
# receiver can be tried on this machine (docs/webhooks.md, "Testing a
# receiver"); a hosted deployment leaves it unset.
export EVENTAPI_WEBHOOK_ALLOW_PRIVATE="${EVENTAPI_WEBHOOK_ALLOW_PRIVATE:-true}"

# Two runs started together both find the port free below, and both would
# run the demo step, each revoking the keys the other printed, before one
# of them failed to listen: a lock per port (fd 9, which serve inherits and
# holds while it serves) lets one through and stops the other here.
exec 9>"${TMPDIR:-/tmp}/eventapi-run-${EVENTAPI_ADDR##*:}.lock"
if ! flock -n 9; then
  echo "run: another make run (or make serve) for port ${EVENTAPI_ADDR##*:} is starting or serving; stop it or give both ports, e.g. EVENTAPI_ADDR=:8081 EVENTAPI_METRICS_ADDR=:9465 make serve" >&2
  exit 1
fi

# Refuse a busy port before building or seeding anything: the demo step
# revokes the keys the last run printed, so a run that cannot serve must
# stop before it.
busy() { # busy ADDR: whether something listens on ADDR
  local port="${1##*:}" host="${1%:*}"
  case "$host" in ""|0.0.0.0|"[::]") host=127.0.0.1 ;; esac
  (exec 3<>"/dev/tcp/${host}/${port}") 2>/dev/null
}
for var in EVENTAPI_ADDR EVENTAPI_METRICS_ADDR; do
  if busy "${!var}"; then
    echo "run: ${var} ${!var} is already in use (another eventapi?); stop it, or start a second instance on the same database and keys with other ports: EVENTAPI_ADDR=:8081 EVENTAPI_METRICS_ADDR=:9465 make serve (make run there would print new keys and revoke the ones the first printed)" >&2
    exit 1
  fi
done

echo "building eventapi..." >&2
mkdir -p bin
go build -o bin/eventapi ./cmd/eventapi
# The settings only serve reads (OTEL_*, whether Redis takes the URL's
# database and password) are checked before demo revokes the last keys too.
bin/eventapi serve --check
bin/eventapi migrate up --create-database
echo
if [ "${EVENTAPI_RUN_DEMO:-1}" = 0 ]; then
  echo "demo step skipped (EVENTAPI_RUN_DEMO=0): use the keys make run printed"
else
  bin/eventapi demo
fi
echo
echo "serving on ${EVENTAPI_ADDR} (Ctrl-C to stop)"
exec bin/eventapi serve
