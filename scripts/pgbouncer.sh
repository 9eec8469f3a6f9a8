#!/usr/bin/env bash
# PgBouncer in transaction mode for the test command. Sourced by test.sh:
#   start_pgbouncer   installs Debian's pgbouncer if missing, starts it on a
#                     free loopback port in front of the test PostgreSQL
#                     (127.0.0.1:5432, user postgres, trust) with a wildcard
#                     database entry and pool_mode = transaction, and sets
#                     PGBOUNCER_URL
#                     (postgres://postgres@127.0.0.1:PORT/?sslmode=disable);
#   pgbouncer_alive   whether it still accepts connections;
#   pgbouncer_report  after a failure: is it alive, and the end of its log;
#   stop_pgbouncer    stops it and removes its files.
# query_wait_timeout and server_login_retry are set as docs/helm.md
# recommends for production. Pool sizes stay small (PGBOUNCER_POOL_SIZE per
# database, at most PGBOUNCER_MAX_SERVER_CONNS server connections in all)
# because PostgreSQL's max_connections is shared with the direct test run.
set -euo pipefail

PGBOUNCER_DIR=""
PGBOUNCER_URL=""
PGBOUNCER_PORT=""

pgbouncer_port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_pgbouncer() {
  if ! command -v pgbouncer >/dev/null 2>&1; then
    echo "pgbouncer: installing Debian's pgbouncer" >&2
    apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
    apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends pgbouncer >&2
  fi
  local upstream_host="${PGBOUNCER_UPSTREAM_HOST:-127.0.0.1}" upstream_port="${PGBOUNCER_UPSTREAM_PORT:-5432}"
  local port
  for _ in $(seq 1 50); do
    port=$((10000 + RANDOM % 10000)) # below the Redis Cluster ports and the ephemeral range
    pgbouncer_port_free "$port" && break
  done
  PGBOUNCER_DIR="$(mktemp -d /tmp/eventapi-pgbouncer.XXXXXX)"
  echo '"postgres" ""' >"$PGBOUNCER_DIR/userlist.txt"
  cat >"$PGBOUNCER_DIR/pgbouncer.ini" <<INI
[databases]
* = host=${upstream_host} port=${upstream_port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${PGBOUNCER_DIR}/userlist.txt
admin_users = postgres
pool_mode = transaction
max_client_conn = 2000
default_pool_size = ${PGBOUNCER_POOL_SIZE:-8}
max_user_connections = ${PGBOUNCER_MAX_SERVER_CONNS:-30}
server_idle_timeout = 10
; A client waits at most this long for a server connection, then gets an
; error (the API answers 503) instead of hanging while PostgreSQL is down;
; a failed server login is retried after 1 s, not 15 s.
query_wait_timeout = 10
server_login_retry = 1
server_lifetime = 300
logfile = ${PGBOUNCER_DIR}/pgbouncer.log
pidfile = ${PGBOUNCER_DIR}/pgbouncer.pid
INI
  local run_as=()
  # PgBouncer refuses to run as root; it drops to the postgres user.
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres "$PGBOUNCER_DIR"
    run_as=(-u postgres)
  fi
  pgbouncer -d "${run_as[@]}" "$PGBOUNCER_DIR/pgbouncer.ini"
  for _ in $(seq 1 100); do
    if ! pgbouncer_port_free "$port"; then
      PGBOUNCER_PORT="$port"
      PGBOUNCER_URL="postgres://postgres@127.0.0.1:${port}/?sslmode=disable"
      echo "pgbouncer: pool_mode=transaction on 127.0.0.1:${port} (log ${PGBOUNCER_DIR}/pgbouncer.log)" >&2
      return 0
    fi
    sleep 0.1
  done
  cat "$PGBOUNCER_DIR/pgbouncer.log" >&2 || true
  echo "pgbouncer: FATAL: did not start" >&2
  return 1
}

# pgbouncer_alive reports whether the started PgBouncer still accepts
# connections.
pgbouncer_alive() { [ -n "$PGBOUNCER_PORT" ] && ! pgbouncer_port_free "$PGBOUNCER_PORT"; }

# pgbouncer_report tells, after a failed run, whether PgBouncer is still
# alive and shows the end of its log (stop_pgbouncer removes the log).
pgbouncer_report() {
  if [ -z "$PGBOUNCER_DIR" ]; then return 0; fi
  if pgbouncer_alive; then
    echo "pgbouncer: still running; the end of its log:" >&2
  else
    echo "pgbouncer: NOT running any more; the end of its log:" >&2
  fi
  tail -n 40 "$PGBOUNCER_DIR/pgbouncer.log" >&2 || true
}

stop_pgbouncer() {
  if [ -z "$PGBOUNCER_DIR" ]; then return 0; fi
  if [ -f "$PGBOUNCER_DIR/pgbouncer.pid" ]; then
    local pid
    pid="$(cat "$PGBOUNCER_DIR/pgbouncer.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$PGBOUNCER_DIR"
  PGBOUNCER_DIR=""
  PGBOUNCER_PORT=""
}
