#!/usr/bin/env bash
# Fuzzes the API key parser for a short, bounded time: it must never panic
# and never accept a key whose checksum does not verify (FuzzParse).
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
go test -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-15s}" "$pkg" >"$tmp" 2>&1 || status=$?
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
