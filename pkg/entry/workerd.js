// Cloudflare Workers (workerd) and other edge runtimes: compiling wasm from bytes is
// forbidden there, so the .wasm is imported as a compiled module and instantiated
// synchronously at import.
import wasmModule from '../dist/streamroute_bg.wasm';
import { initSync } from '../dist/streamroute.js';

initSync({ module: wasmModule });

import './fast.js';
import './web.js';

export * from '../dist/streamroute.js';
export { StreamrouteError } from '../dist/runtime.js';
export { connectSse, routeResponse, toSse } from './web.js';
export { StreamMux, StreamState, fromSse } from './client.js';

/** Already loaded here; kept so that `await init()` works in every runtime. */
export function init() {
  return Promise.resolve();
}
