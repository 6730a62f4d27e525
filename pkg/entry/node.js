// Node (ESM): the .wasm is read and instantiated synchronously at import, so `init()` resolves
// at once and everything is usable straight after `import`.
import { readFileSync } from 'node:fs';
import { initSync } from '../dist/streamroute.js';

initSync({ module: readFileSync(new URL('../dist/streamroute_bg.wasm', import.meta.url)) });

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
