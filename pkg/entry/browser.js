// Browsers and bundlers (Vite, webpack): the .wasm is fetched and compiled asynchronously.
// `await init()` once before use; later calls return the same promise.
import initWasm from '../dist/streamroute.js';

import './fast.js';
import './web.js';

export * from '../dist/streamroute.js';
export { StreamrouteError } from '../dist/runtime.js';
export { connectSse, routeResponse, toSse } from './web.js';

let ready;
/** Loads the WebAssembly module (idempotent). `input` overrides where the .wasm comes from. */
export function init(input) {
  ready ??= initWasm({
    module_or_path: input ?? new URL('../dist/streamroute_bg.wasm', import.meta.url),
  }).then(() => undefined);
  return ready;
}
