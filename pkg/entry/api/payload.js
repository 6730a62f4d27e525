// What the payload entry ('streamroute/payload') adds to its wasm exports: the functions that
// walk an object in JS rather than handing it to wasm as JSON text (classes/payload.js).
export { buildFinalPayload, redactArtifacts, validateFinalPayload } from './classes/payload.js';
