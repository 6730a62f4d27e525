// Browsers and bundlers (Vite, webpack): the .wasm is fetched and compiled asynchronously.
// `await init()` once before use; later calls return the same promise.
import initWasm from '../dist/streamroute.js';

import './fast.js';
import './web.js';

export * from '../dist/streamroute.js';
export { StreamrouteError } from '../dist/runtime.js';
export { connectSse, routeResponse, toSse } from './web.js';
export { StreamMux, StreamState, fromSse } from './client.js';

let ready;
/** Loads the WebAssembly module (idempotent). `input` overrides where the .wasm comes from. */
export function init(input) {
  ready ??= initWasm({ module_or_path: input ?? wasmUrl() }).then(() => undefined);
  return ready;
}

// The package's .wasm. Bundlers see the literal `new URL('../dist/…', import.meta.url)` and
// emit the file as an asset. Vite's dev server instead pre-bundles dependencies into
// `node_modules/.vite/deps/`, where that relative URL points nowhere; the package's own copy
// is then `node_modules/streamroute/dist/`. (That path is built from a variable so that
// bundlers leave it alone.)
function wasmUrl() {
  if (/\/node_modules\/\.vite\/deps\/[^/]*$/.test(import.meta.url.split(/[?#]/)[0])) {
    const fromDeps = '../../streamroute/dist/streamroute_bg.wasm';
    return new URL(fromDeps, import.meta.url);
  }
  return new URL('../dist/streamroute_bg.wasm', import.meta.url);
}
