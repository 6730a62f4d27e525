// Prints the size of a .wasm file raw, gzip -9 and brotli (max quality): the number we track.
import { readFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const file = process.argv[2] ?? new URL('../pkg/dist/streamroute_bg.wasm', import.meta.url);
const raw = readFileSync(file);
const gz = gzipSync(raw, { level: 9 });
const br = brotliCompressSync(raw, {
  params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
});
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`wasm size: raw ${raw.length} B (${kb(raw.length)}), gzip -9 ${gz.length} B (${kb(gz.length)}), brotli ${br.length} B (${kb(br.length)})`);
