#!/usr/bin/env bash
# A local Redis Cluster for tests and the fleet harness: 3 masters with one
# replica each, from Debian's redis-server, on loopback ports BASE..BASE+5
# (cluster bus ports BASE+10000.., or BASE+REDIS_CLUSTER_BUS_PORT_OFFSET..),
# each node in its own directory.
#
#   scripts/redis-cluster.sh start     start (or reuse) the cluster; prints its URL
#   scripts/redis-cluster.sh stop      kill the nodes and remove the directory
#   scripts/redis-cluster.sh url       print redis+cluster://127.0.0.1:BASE,…
#   scripts/redis-cluster.sh status    exit 0 when every node reports cluster_state:ok
#   scripts/redis-cluster.sh kill PORT        SIGKILL one node (a real crash)
#   scripts/redis-cluster.sh start-node PORT  start one stopped node again (it rejoins)
#   scripts/redis-cluster.sh master-of KEY    port of the master serving KEY's slot
#
# Settings (environment): REDIS_CLUSTER_BASE_PORT (default 7101),
# REDIS_CLUSTER_BUS_PORT_OFFSET (default 10000: each node's cluster bus
# listens on its port plus this; a small offset such as 10 keeps a whole
# cluster inside a narrow range of ports),
# REDIS_CLUSTER_DIR (default ${TMPDIR:-/tmp}/eventapi-redis-cluster-BASE),
# REDIS_CLUSTER_NODE_TIMEOUT in ms (default 3000: a replica takes over a dead
# master a few seconds after it stops answering). Only processes whose pid
# files live in REDIS_CLUSTER_DIR are ever signalled.
set -euo pipefail

base="${REDIS_CLUSTER_BASE_PORT:-7101}"
dir="${REDIS_CLUSTER_DIR:-${TMPDIR:-/tmp}/eventapi-redis-cluster-${base}}"
node_timeout="${REDIS_CLUSTER_NODE_TIMEOUT:-3000}"
bus_offset="${REDIS_CLUSTER_BUS_PORT_OFFSET:-10000}"
ports=()
for i in 0 1 2 3 4 5; do ports+=($((base + i))); done

log() { echo "redis-cluster: $*" >&2; }

need_redis() {
  if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then return 0; fi
  log "installing redis-server and redis-tools"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends redis-server redis-tools >&2
}

cli() { local port="$1"; shift; redis-cli -h 127.0.0.1 -p "$port" "$@"; }

# wait_for COMMAND…: polls the command every 0.1 s for up to 60 s.
wait_for() {
  local what="$1"; shift
  for _ in $(seq 1 600); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  log "FATAL: timed out waiting for ${what}"
  return 1
}

pid_of() { cat "${dir}/$1/redis.pid" 2>/dev/null || true; }
alive() { local pid; pid="$(pid_of "$1")"; [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }
pong() { [ "$(cli "$1" ping 2>/dev/null)" = "PONG" ]; }

start_node() {
  local port="$1"
  mkdir -p "${dir}/${port}"
  if alive "$port"; then return 0; fi
  redis-server --port "$port" --bind 127.0.0.1 --protected-mode no \
    --cluster-enabled yes --cluster-port $((port + bus_offset)) --cluster-config-file nodes.conf --cluster-node-timeout "$node_timeout" \
    --cluster-require-full-coverage no --cluster-replica-validity-factor 0 \
    --save "" --appendonly no --dir "${dir}/${port}" \
    --daemonize yes --pidfile "${dir}/${port}/redis.pid" --logfile "${dir}/${port}/redis.log"
  wait_for "redis-server on port ${port}" pong "$port"
}

# cluster_ok: every live node reports cluster_state:ok and the full slot map.
cluster_ok() {
  local port info
  for port in "${ports[@]}"; do
    alive "$port" || continue
    info="$(cli "$port" cluster info 2>/dev/null)" || return 1
    grep -q '^cluster_state:ok' <<<"$info" || return 1
    grep -q '^cluster_slots_ok:16384' <<<"$info" || return 1
  done
}

url() {
  echo "redis+cluster://127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},127.0.0.1:${ports[2]}"
}

start() {
  need_redis
  mkdir -p "$dir"
  for port in "${ports[@]}"; do start_node "$port"; done
  if [ "$(cli "${ports[0]}" cluster info | grep -c '^cluster_slots_assigned:16384')" = 0 ]; then
    local addrs=()
    for port in "${ports[@]}"; do addrs+=("127.0.0.1:${port}"); done
    redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"${dir}/create.log" 2>&1 || {
      cat "${dir}/create.log" >&2
      log "FATAL: redis-cli --cluster create failed"
      return 1
    }
  fi
  wait_for "cluster_state:ok on every node" cluster_ok
  # Every replica must have synchronised with its master before a test
  # kills one, or the failover could not happen.
  wait_for "replicas in sync" replicas_synced
  url
}

replicas_synced() {
  local port info n=0
  for port in "${ports[@]}"; do
    info="$(cli "$port" info replication 2>/dev/null)" || return 1
    if grep -q '^role:slave' <<<"$info"; then
      grep -q '^master_link_status:up' <<<"$info" || return 1
      n=$((n + 1))
    fi
  done
  [ "$n" -ge 3 ]
}

stop() {
  local port pid
  for port in "${ports[@]}"; do
    pid="$(pid_of "$port")"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  done
  for port in "${ports[@]}"; do
    pid="$(pid_of "$port")"
    [ -z "$pid" ] || wait_for "node ${port} to exit" bash -c "! kill -0 ${pid} 2>/dev/null"
  done
  rm -rf "$dir"
}

kill_node() {
  local pid
  pid="$(pid_of "$1")"
  [ -n "$pid" ] || { log "no pid file for node $1 in ${dir}"; return 1; }
  kill -9 "$pid"
  wait_for "node $1 to exit" bash -c "! kill -0 ${pid} 2>/dev/null"
}

master_of() {
  local slot port
  for port in "${ports[@]}"; do
    alive "$port" || continue
    cli "$port" cluster shards 2>/dev/null >/dev/null || continue
    # Asked of a live node: the first one may be the master just killed.
    slot="$(cli "$port" cluster keyslot "$1")"
    # CLUSTER NODES: id addr flags master ping pong epoch state slots…
    cli "$port" cluster nodes | awk -v slot="$slot" '
      $3 ~ /master/ && $3 !~ /fail/ {
        for (i = 9; i <= NF; i++) { split($i, r, "-"); if (r[2] == "") r[2] = r[1];
          if (slot >= r[1] && slot <= r[2]) { split($2, a, "[:@]"); print a[2]; exit } } }'
    return 0
  done
  return 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) url ;;
  status) cluster_ok ;;
  kill) kill_node "${2:?port}" ;;
  start-node) need_redis; start_node "${2:?port}" ;;
  master-of) master_of "${2:?key}" ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
