#!/usr/bin/env bash
# Prints the path of a small OpenTelemetry Collector (OTLP receiver, batch
# processor, file exporter) built with the collector builder at a pinned
# version from the Go module proxy, building it once into ~/.cache/eventapi.
# The trace check (scripts/checks/traces.sh) runs it as a real OTLP receiver.
#
# v0.120.0 is pinned because later otlpreceiver releases import the module
# go.opentelemetry.io/collector/internal/statusutil, whose source archives the
# module proxy does not serve. A cold build takes a few minutes on two cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version=v0.120.0
cache="${XDG_CACHE_HOME:-$HOME/.cache}/eventapi/otelcol-$version"
bin="$cache/eventapi-otelcol"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "building the OpenTelemetry Collector $version (once, cached in $cache)" >&2
  GOBIN="$work" GOFLAGS=-mod=mod go install "go.opentelemetry.io/collector/cmd/builder@$version" >&2
  cp "$here/builder-config.yaml" "$work/"
  (cd "$work" && ./builder --config builder-config.yaml >&2)
  install -m 0755 "$work/build/eventapi-otelcol" "$bin"
fi
echo "$bin"
