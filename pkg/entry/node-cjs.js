// Source of dist/streamroute.cjs (Node `require`), bundled by esbuild in scripts/build.
// The .wasm sits next to the bundle and is instantiated synchronously at require time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initSync } from '../dist/streamroute.js';

initSync({ module: readFileSync(join(__dirname, 'streamroute_bg.wasm')) });

import './fast.js';
import './web.js';

export * from '../dist/streamroute.js';
export { StreamrouteError } from '../dist/runtime.js';
export { connectSse, routeResponse, toSse } from './web.js';
export { StreamMux, StreamState, fromSse } from './client.js';

/** Already loaded in Node; kept so that `await init()` works in every runtime. */
export function init() {
  return Promise.resolve();
}
