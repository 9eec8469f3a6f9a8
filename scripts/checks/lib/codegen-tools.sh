# Sourced by the scripts that run client generators on the OpenAPI documents
# (scripts/gen-sdk.sh, scripts/checks/openapi-generators.sh, sdk-drift.sh).
# Every tool is pinned and built or installed once into ~/.cache/eventapi.

OAPI_CODEGEN_VERSION=v2.8.2
EVENTAPI_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/eventapi"
. scripts/checks/lib/npm-tools.sh

# ensure_oapi_codegen prints the path of the pinned oapi-codegen binary,
# building it from the Go module proxy the first time.
ensure_oapi_codegen() {
  local dir="$EVENTAPI_CACHE/oapi-codegen-$OAPI_CODEGEN_VERSION"
  if [ ! -x "$dir/oapi-codegen" ]; then
    echo "== building oapi-codegen $OAPI_CODEGEN_VERSION into $dir" >&2
    mkdir -p "$dir"
    GOBIN="$dir" GOFLAGS=-mod=mod go install \
      "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$OAPI_CODEGEN_VERSION" >&2
  fi
  echo "$dir/oapi-codegen"
}

# ensure_typegen prints the node_modules/.bin folder of the pinned
# openapi-typescript and typescript (tools/typegen, installed once per lock
# into ~/.cache/eventapi, lib/npm-tools.sh).
ensure_typegen() {
  local dir
  dir=$(npm_cached_install tools/typegen typegen)
  echo "$dir/node_modules/.bin"
}

# served_document writes the document that the server serves for surface
# (v2 or v1) to file.
served_document() {
  go run ./tools/openapi-json -surface "$1" >"$2"
}
