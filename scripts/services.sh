#!/usr/bin/env bash
# Makes sure the local PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379)
# answer, starting them with the machine's own commands when they do not.
# Fails loudly when either cannot be reached. Sourced by run.sh, test.sh and
# cli.sh.
set -euo pipefail

pg_up() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
redis_up() { [ "$(printf 'PING\r\n' | timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6379; cat >&3; head -c 7 <&3' 2>/dev/null | tr -d '\r\n')" = "+PONG" ]; }

ensure_postgres() {
  if [ -n "${EVENTAPI_TEST_DATABASE_URL:-}" ]; then return 0; fi
  if pg_up; then return 0; fi
  echo "services: PostgreSQL is not answering on 127.0.0.1:5432; starting it" >&2
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
  for _ in $(seq 1 30); do pg_up && return 0; sleep 1; done
  echo "services: FATAL: PostgreSQL is required at 127.0.0.1:5432 and could not be started" >&2
  return 1
}

ensure_redis() {
  if [ -n "${EVENTAPI_TEST_REDIS_URL:-}" ]; then return 0; fi
  if redis_up; then return 0; fi
  echo "services: Redis is not answering on 127.0.0.1:6379; starting it" >&2
  if command -v redis-server >/dev/null 2>&1; then
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  fi
  for _ in $(seq 1 30); do redis_up && return 0; sleep 1; done
  echo "services: FATAL: Redis is required at 127.0.0.1:6379 and could not be started" >&2
  return 1
}
