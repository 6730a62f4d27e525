// Cloudflare Workers (workerd) and other edge runtimes: compiling wasm from bytes is
// forbidden there, so the .wasm is imported as a compiled module and instantiated
// synchronously at import. (Copied into each entry's directory, like browser.js.)
import wasmModule from './streamroute_bg.wasm';
import { initSync } from './streamroute.js';

initSync({ module: wasmModule });

export * from './exports.js';
export * from './api.js';
export { StreamrouteError } from './runtime.js';
export { init } from './loaded.js';
