// What the payload entry ('streamroute/payload') adds to its wasm exports: `redactArtifacts`,
// which walks an object observation in JS by its schema's plan (classes/payload.js).
export { redactArtifacts } from './classes/payload.js';
