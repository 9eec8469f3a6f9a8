# Sourced by the scripts that need pinned npm packages. Each set (a folder
# with package.json and package-lock.json) is installed with `npm ci` once
# per lock, into ~/.cache/eventapi/<name>-<hash of the lock>, so a fresh
# clone reuses it. An install is built in a scratch folder beside the cache
# and moved into place only when `npm ci` succeeded, under a lock, so an
# interrupted or concurrent run never leaves a half-installed set behind.

# npm_cached_install src name prints the folder holding the install of
# src's package-lock.json.
npm_cached_install() {
  local src=$1 name=$2 root sum cache
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is required for $src (apt-get install -y nodejs npm)" >&2
    return 1
  fi
  root="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/eventapi"
  sum=$(sha256sum "$src/package-lock.json" | cut -c1-16)
  cache="$root/$name-$sum"
  mkdir -p "$root"
  (
    flock 9
    if [ ! -f "$cache/.installed" ]; then
      echo "== installing the pinned npm packages of $src into $cache" >&2
      tmp=$(mktemp -d "$cache.XXXXXX")
      cp "$src/package.json" "$src/package-lock.json" "$tmp/"
      # The registry sometimes stalls a download: npm then waits its
      # five-minute fetch timeout and fails (seen on 2026-12-01). A stalled
      # fetch gives up after a minute here, and the whole install is tried
      # three times.
      attempt=1
      until (cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error --fetch-timeout=60000) >&2; do
        if [ "$attempt" -ge 3 ]; then
          rm -rf "$tmp"
          exit 1
        fi
        attempt=$((attempt + 1))
        echo "== npm ci of $src failed; trying again ($attempt of 3)" >&2
        rm -rf "$tmp/node_modules"
      done
      touch "$tmp/.installed"
      rm -rf "$cache"
      mv "$tmp" "$cache"
    fi
  ) 9>"$cache.lock"
  echo "$cache"
}

# ensure_npm_tools installs the pinned tools of tools/npm (Redocly CLI,
# Redoc) and links tools/npm/node_modules to them.
ensure_npm_tools() {
  local dir=tools/npm cache link
  cache=$(npm_cached_install "$dir" npm-tools)
  if [ "$(readlink "$dir/node_modules" 2>/dev/null)" != "$cache/node_modules" ]; then
    if [ -e "$dir/node_modules" ] && [ ! -L "$dir/node_modules" ]; then
      rm -rf "$dir/node_modules" # an install of its own, from before the cache
    fi
    link="$dir/node_modules.$$"
    ln -sfn "$cache/node_modules" "$link"
    mv -Tf "$link" "$dir/node_modules"
  fi
}
