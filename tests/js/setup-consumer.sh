#!/usr/bin/env bash
# Packs pkg/ with `npm pack` and installs the tarball into a fresh temporary project
# (tests/js/.tmp/consumer), as a user would. tests/js/node_modules/streamroute then points at
# that installed copy, so the JS tests `import 'streamroute'` through the package's own
# exports map. Run after scripts/build.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TMP="$HERE/.tmp"
rm -rf "$TMP"
mkdir -p "$TMP/consumer"
tgz=$(cd "$ROOT/pkg" && npm pack --silent --pack-destination "$TMP" 2>/dev/null | tail -n 1)
cat > "$TMP/consumer/package.json" <<JSON
{ "name": "consumer", "private": true, "type": "module",
  "dependencies": { "streamroute": "file:../$tgz" } }
JSON
(cd "$TMP/consumer" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
rm -rf "$HERE/node_modules/streamroute"
ln -s "$TMP/consumer/node_modules/streamroute" "$HERE/node_modules/streamroute"
echo "installed $tgz into tests/js/.tmp/consumer" >&2
