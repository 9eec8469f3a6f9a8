#!/usr/bin/env bash
# Fuzzes the API key parser for a bounded number of inputs: it must never
# panic and never accept a key whose checksum does not verify (FuzzParse).
# The budget is a count (about 10 s here), not a duration: with a duration,
# Go's fuzzing coordinator before Go 1.27 can report its own deadline as a
# failure ("context deadline exceeded", no failing input) when a worker is
# still busy at the end, as on a loaded machine; a count has no deadline.
# `go test -fuzz` passes quietly when no fuzz test matches, so the check first
# makes sure FuzzParse exists and then that the fuzzer really ran.
set -euo pipefail
cd "$(dirname "$0")/../.."
pkg=./tenancy/apikey/
target=FuzzParse
listed=$(go test -list "^${target}\$" "$pkg")
if ! grep -qx "$target" <<<"$listed"; then
  echo "$listed" >&2
  echo "fuzz: $pkg has no $target: the fuzz check would fuzz nothing" >&2
  exit 1
fi
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
status=0
go test -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-1000000x}" "$pkg" >"$tmp" 2>&1 || status=$?
cat "$tmp" >&2
if [ "$status" -ne 0 ]; then
  echo "fuzz: $target failed (exit $status)" >&2
  exit 1
fi
# The fuzzing engine prints "fuzz: elapsed: …, execs: …" while it runs; a
# run without it fuzzed nothing.
if ! grep -q '^fuzz: elapsed: .*execs: ' "$tmp"; then
  echo "fuzz: go test passed but the fuzzer never ran $target" >&2
  exit 1
fi
echo "fuzz: $target ran clean" >&2
