#!/usr/bin/env bash
# Makes the up and down files of a new migration named after every existing
# one (docs/architecture.md, "Migration names are an order, not dates"):
#
#   scripts/new-migration.sh add_vehicle_notes            # .tx.up.sql / .tx.down.sql
#   scripts/new-migration.sh index_vehicle_notes --concurrent  # .up.sql / .down.sql
# Needs GNU date (Debian's coreutils) for the arithmetic on the last name.
set -euo pipefail
cd "$(dirname "$0")/../platform/database/migrations"
name="${1:-}"
if ! [[ "$name" =~ ^[a-z0-9_]+$ ]]; then
  echo "usage: scripts/new-migration.sh NAME [--concurrent]   (NAME: lower case, digits and _)" >&2
  exit 2
fi
kind=tx.
case "${2:-}" in
  "") ;;
  --concurrent) kind= ;;
  *) echo "new-migration: unknown option ${2}" >&2; exit 2 ;;
esac
last=$(ls -1 | grep -E '^[0-9]{14}_' | cut -c1-14 | sort | tail -1)
# one hour after the last, as a UTC time of the same shape
next=$(date -u -d "${last:0:8} ${last:8:2}:${last:10:2}:${last:12:2} UTC + 1 hour" +%Y%m%d%H%M%S)
for dir in up down; do
  f="${next}_${name}.${kind}${dir}.sql"
  printf -- '-- %s (%s)\n' "$name" "$dir" > "$f"
  echo "platform/database/migrations/$f"
done
