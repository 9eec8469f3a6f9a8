#!/usr/bin/env bash
# The fleet harness (bench/README.md, "fleet"): N eventapi pods behind
# HAProxy, on a Redis Cluster and PgBouncer in transaction mode with a
# PostgreSQL of their own, under constant mixed load (a keep-alive and a
# new-connection client), through a rolling restart, a Redis master crash,
# a PostgreSQL outage and a pod killed with SIGKILL; it checks what each
# scenario expects (keyed writes exactly once in the database among them)
# and exits 1, listing them, when one fails. A benchmark a user
# runs, not part of the test command; it stops by itself and cleans up.
#
#   scripts/fleet.sh [-pods 3] [-rate 60] [-clients both] [-pg-outage 15s] [-scenarios rolling,redis,postgres,kill] [-port-base 19400] [-keep] [-v] …
#   scripts/fleet.sh -h    lists every flag (and installs nothing)
#
# Installs what it needs on a fresh Debian machine: haproxy, pgbouncer,
# redis-server, postgresql. Never touches the shared PostgreSQL (5432) or
# Redis (6379).
set -euo pipefail
cd "$(dirname "$0")/.."
for a in "$@"; do
  case "$a" in -h|-help|--help) exec go run ./bench/fleet -h ;; esac
done
export DEBIAN_FRONTEND=noninteractive
missing=()
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v pgbouncer >/dev/null 2>&1 || missing+=(pgbouncer)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "fleet: installing ${missing[*]}" >&2
  apt-get update -qq && apt-get install -y --no-install-recommends "${missing[@]}"
fi
exec go run ./bench/fleet "$@"
