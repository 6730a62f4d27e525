// Node (ESM): the .wasm is read and instantiated synchronously at import, so `init()` resolves
// at once and everything is usable straight after `import`. (Copied into each entry's
// directory, like browser.js.)
import { readFileSync } from 'node:fs';
import { initSync } from './streamroute.js';

initSync({ module: readFileSync(new URL('./streamroute_bg.wasm', import.meta.url)) });

export * from './exports.js';
export * from './api.js';
export { StreamrouteError } from './runtime.js';
export { init } from './loaded.js';
