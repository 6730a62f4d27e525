#!/usr/bin/env bash
# Builds the .wasm of each planned npm entry from its cargo feature set, exactly as
# scripts/build does (build_wasm in lib.sh), and prints its size: the .wasm raw, gzip -9 and
# brotli, the gzip -9 of the glue JS it loads (wasm-bindgen's streamroute.js and the
# runtime.js snippet, each file on its own), and the gzip total against the entry's bar. Not run by CI; slow
# (one release build per entry). Usage: scripts/feature-sizes.sh [ENTRY...]
source "$(dirname "$0")/lib.sh"
ensure_wasm_toolchain
npm_ci "$ROOT/scripts" >&2

# entry, cargo features, size bar (gzip -9 of .wasm + JS, in bytes, KB = 1000; 0 = none set):
# the package's entries (scripts/entries.json), then every feature at once for comparison.
mapfile -t ENTRIES < <(node -e '
  for (const e of require(process.argv[1]).entries) console.log(e.dir, e.features.join(","), e.bar ?? 0);
' "$ROOT/scripts/entries.json")
ENTRIES+=("all default 0")

# Its own target directory, so the package build's artifacts stay as they are.
export CARGO_TARGET_DIR="$ROOT/target/features"
OUT="$CARGO_TARGET_DIR/dist"
rows=()
for spec in "${ENTRIES[@]}"; do
  read -r entry features bar <<<"$spec"
  if [ $# -gt 0 ] && [[ " $* " != *" $entry "* ]]; then continue; fi
  dist="$OUT/$entry"
  if [ "$features" = default ]; then
    build_wasm "$dist"
  else
    build_wasm "$dist" --no-default-features --features "$features"
  fi
  rows+=("$entry $features $bar $dist")
done

node --input-type=module - "${rows[@]}" <<'JS'
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const gz = (b) => gzipSync(b, { level: 9 }).length;
const br = (b) => brotliCompressSync(b, {
  params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length },
}).length;
// Every file under the snippets directory (runtime.js) plus the glue itself.
const jsFiles = (dir) => {
  const out = [join(dir, 'streamroute.js')];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p); else if (p.endsWith('.js')) out.push(p);
    }
  };
  walk(join(dir, 'snippets'));
  return out;
};
const kb = (n) => (n / 1000).toFixed(1);
console.log('| entry | features | .wasm raw | .wasm gzip -9 | .wasm brotli | JS gzip -9 | total gzip -9 | bar |');
console.log('|---|---|--:|--:|--:|--:|--:|--:|');
for (const row of process.argv.slice(2)) {
  const [entry, features, bar, dir] = row.split(' ');
  const wasm = readFileSync(join(dir, 'streamroute_bg.wasm'));
  // Each JS file is fetched (and compressed) on its own.
  const jsGz = jsFiles(dir).reduce((n, f) => n + gz(readFileSync(f)), 0);
  const total = gz(wasm) + jsGz;
  const verdict = Number(bar) ? `${kb(Number(bar))} KB ${total <= Number(bar) ? 'met' : 'over'}` : '—';
  console.log(`| ${entry} | ${features} | ${wasm.length} | ${gz(wasm)} | ${br(wasm)} | ${jsGz} | ${total} (${kb(total)} KB) | ${verdict} |`);
}
JS
