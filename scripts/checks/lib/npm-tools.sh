# Sourced by the checks that need the pinned npm tools (tools/npm): installs
# them with `npm ci` from package-lock.json when they are missing or stale.
ensure_npm_tools() {
  local dir=tools/npm
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is required for $dir (apt-get install -y nodejs npm)" >&2
    return 1
  fi
  if [ ! -x "$dir/node_modules/.bin/redocly" ] || [ ! -f "$dir/node_modules/redoc/bundles/redoc.standalone.js" ] ||
     [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "== installing pinned npm tools in $dir" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
  fi
}
