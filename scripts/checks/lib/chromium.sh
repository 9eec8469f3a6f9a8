# Sourced by the scripts that need Debian's Chromium: scripts/checks/
# reference-browser.sh, and scripts/prepare-tools.sh, which installs it in
# the background on a cold machine so the check does not wait for apt.

# ensure_chromium installs Debian's chromium package when chromium is not on
# PATH, waiting for another apt run's lock instead of failing on it.
ensure_chromium() {
  command -v chromium >/dev/null 2>&1 && return 0
  echo "== installing chromium" >&2
  local apt=(apt-get -o DPkg::Lock::Timeout=600 install -y -q chromium)
  "${apt[@]}" >/dev/null 2>&1 || { apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null && "${apt[@]}" >/dev/null; }
  command -v chromium >/dev/null 2>&1
}
