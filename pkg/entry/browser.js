// Browsers and bundlers (Vite, webpack): the .wasm is fetched and compiled asynchronously.
// `await init()` once before use; later calls return the same promise.
//
// One loader for every entry: scripts/build copies it into each entry's directory
// (pkg/dist/<entry>/), next to that entry's glue (streamroute.js), .wasm, exports (exports.js)
// and own exports (api.js); entry.js names the directory.
import initWasm from './streamroute.js';
import { DIR } from './entry.js';

export * from './exports.js';
export * from './api.js';
export { StreamrouteError } from './runtime.js';
import { initArgs } from './runtime.js';

let ready;
/**
 * Loads the WebAssembly module (idempotent). `input` overrides where the .wasm comes from;
 * `init({ maxMemoryBytes })` (or options as the second argument) caps its memory from the
 * next object or one-shot call on. Options out of range throw `invalid_option` at once.
 */
export function init(input, options) {
  input = initArgs(input, options);
  ready ??= initWasm({ module_or_path: input ?? wasmUrl() }).then(() => undefined);
  return ready;
}

// The entry's .wasm. Bundlers see the literal `new URL('./…', import.meta.url)` and emit the
// file as an asset. Vite's dev server instead pre-bundles dependencies into
// `node_modules/.vite/deps/`, where that relative URL points nowhere; the package's own copy
// is then `node_modules/streamroute/dist/<entry>/`. (That path is built from a variable so
// that bundlers leave it alone.)
function wasmUrl() {
  if (/\/node_modules\/\.vite\/deps\/[^/]*$/.test(import.meta.url.split(/[?#]/)[0])) {
    const fromDeps = `../../streamroute/dist/${DIR}/streamroute_bg.wasm`;
    return new URL(fromDeps, import.meta.url);
  }
  return new URL('./streamroute_bg.wasm', import.meta.url);
}
