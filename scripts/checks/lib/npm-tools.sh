# Sourced by the checks that need the pinned npm tools (tools/npm): installs
# them with `npm ci` from package-lock.json into a cache folder named by the
# lock's hash (~/.cache/eventapi/npm-tools-<hash>), once per lock, and links
# tools/npm/node_modules to it, so a fresh clone reuses the install.
ensure_npm_tools() {
  local dir=tools/npm sum cache
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is required for $dir (apt-get install -y nodejs npm)" >&2
    return 1
  fi
  sum=$(sha256sum "$dir/package-lock.json" | cut -c1-16)
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/eventapi/npm-tools-$sum"
  if [ ! -x "$cache/node_modules/.bin/redocly" ] || [ ! -f "$cache/node_modules/redoc/bundles/redoc.standalone.js" ]; then
    echo "== installing pinned npm tools ($dir) into $cache" >&2
    rm -rf "$cache"
    mkdir -p "$cache"
    cp "$dir/package.json" "$dir/package-lock.json" "$cache/"
    (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error) >&2
  fi
  if [ "$(readlink "$dir/node_modules" 2>/dev/null)" != "$cache/node_modules" ]; then
    rm -rf "$dir/node_modules"
    ln -s "$cache/node_modules" "$dir/node_modules"
  fi
}
