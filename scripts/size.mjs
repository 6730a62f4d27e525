// Sizes of the built package. With no argument: a table of every entry (scripts/entries.json),
// gzip -9 of its .wasm plus the JS a browser loads for it (browser.js: the loader, the glue,
// the runtime.js snippet and the entry's own JS, bundled and minified by scripts/build),
// against the entry's bar ("over" where over; this never fails the build). With a .wasm file
// as argument: that file raw, gzip -9 and brotli (max quality).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const gz = (b) => gzipSync(b, { level: 9 }).length;
const br = (b) =>
  brotliCompressSync(b, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length },
  }).length;

if (process.argv[2]) {
  const raw = readFileSync(process.argv[2]);
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(
    `wasm size: raw ${raw.length} B (${kib(raw.length)}), gzip -9 ${gz(raw)} B (${kib(gz(raw))}), brotli ${br(raw)} B (${kib(br(raw))})`,
  );
  process.exit(0);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const { entries } = JSON.parse(readFileSync(join(root, 'scripts', 'entries.json'), 'utf8'));
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
console.log('| entry | features | .wasm raw | .wasm gzip -9 | .wasm brotli | JS files | JS gzip -9 | total gzip -9 | bar |');
console.log('|---|---|--:|--:|--:|--:|--:|--:|---|');
for (const e of entries) {
  const dir = join(root, 'pkg', 'dist', e.dir);
  const wasmFile = join(dir, 'streamroute_bg.wasm');
  if (!existsSync(wasmFile)) {
    console.log(`| ${e.entry} | ${e.features.join(' ')} | not built | | | | | | |`);
    continue;
  }
  const wasm = readFileSync(wasmFile);
  // What a browser loads besides the .wasm: the entry's one bundled module (scripts/build).
  const js = [join(dir, 'browser.js')];
  const jsGz = js.reduce((n, f) => n + gz(readFileSync(f)), 0);
  const total = gz(wasm) + jsGz;
  const verdict = e.bar === null ? '—' : `${kb(e.bar)} ${total <= e.bar ? 'met' : 'over'}`;
  console.log(
    `| ${e.entry} | ${e.features.join(' ')} | ${wasm.length} | ${gz(wasm)} | ${br(wasm)} | ${js.length} | ${jsGz} | ${total} (${kb(total)}) | ${verdict} |`,
  );
}
