// Source of each entry's index.cjs (Node `require`), bundled by esbuild in scripts/build.
// The .wasm sits next to the bundle and is instantiated synchronously at require time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initSync } from './streamroute.js';

initSync({ module: readFileSync(join(__dirname, 'streamroute_bg.wasm')) });

export * from './exports.js';
export * from './api.js';
export { StreamrouteError } from './runtime.js';
export { init } from './loaded.js';
