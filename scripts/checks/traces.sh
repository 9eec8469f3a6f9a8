#!/usr/bin/env bash
# Traces end to end in a real OTLP receiver: builds (once, cached under
# ~/.cache/eventapi) a pinned OpenTelemetry Collector with the OTLP receiver
# and the file exporter, then runs the test that starts it, sends one request
# through an app exporting to it and reads the trace back from its file
# (api/server/collector_test.go, build tag otlpcollector).
set -euo pipefail
cd "$(dirname "$0")/../.."
EVENTAPI_TEST_OTELCOL="$(hack/otelcol/build.sh)"
export EVENTAPI_TEST_OTELCOL
go test -count=1 -tags otlpcollector -run TestTraceReachesARealCollector -v ./api/server/
