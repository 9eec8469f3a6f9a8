#!/usr/bin/env bash
# The benchmarks under bench/ (make bench), against the real PostgreSQL and
# Redis (started when they are not running). See bench/README.md for what
# each one measures, the targets and the last measured figures.
#
#   BENCH_COUNT   repetitions of each Go benchmark (default 6; benchstat shows medians)
#   BENCH_OUT     directory for the raw results (default: a new temporary directory)
#   extra args    are passed to catbench, e.g. scripts/bench.sh -rounds 7 -duration 5s
#
# Performance is measured, never asserted: this script fails only when a
# benchmark cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/services.sh
ensure_postgres
ensure_redis

count="${BENCH_COUNT:-6}"
out="${BENCH_OUT:-$(mktemp -d -t eventapi-bench.XXXXXX)}"
mkdir -p "$out"
benchstat="golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"

# summarize prints benchstat's medians of a raw go test -bench file, or says
# where the raw file is when benchstat cannot be fetched.
summarize() {
  if ! go run "$benchstat" "$1" 2>/dev/null; then
    echo "(benchstat unavailable; raw results in $1)"
  fi
}

for pkg in auth edge availability; do
  if [ ! -d "bench/$pkg" ]; then
    echo "== bench/$pkg: not present, skipped" >&2
    continue
  fi
  echo "== bench/$pkg (go test -bench, count $count)" >&2
  go test -run '^$' -bench . -benchmem -count "$count" "./bench/$pkg/" | tee "$out/$pkg.txt"
  summarize "$out/$pkg.txt"
done

echo "== bench/changes: the outbox's cost through a real server, on vs off in one run" >&2
go test -run '^$' -bench HTTPWrite -benchtime 1x ./bench/changes/ | tee "$out/changes-http.txt"
echo "== bench/requestlog: the request log's CPU per request, on vs off (count $count)" >&2
go test -run '^$' -bench PerRequest -benchtime 100000x -count "$count" ./bench/requestlog/ | tee "$out/requestlog.txt"
summarize "$out/requestlog.txt"

echo "== bench/catalogue (catbench: full chain vs bare baseline)" >&2
go build -o "$out/catbench" ./bench/catalogue/cmd/catbench
"$out/catbench" "$@" | tee "$out/catalogue.txt"

echo "raw results in $out" >&2
