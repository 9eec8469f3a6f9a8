#!/usr/bin/env bash
# Fuzzes the API key parser for a short, bounded time: it must never panic
# and never accept a key whose checksum does not verify (FuzzParse).
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzParse$' -fuzztime "${FUZZTIME:-15s}" ./tenancy/apikey/
