// `init()` of the loaders whose .wasm is instantiated at import (Node, workers).
import { initArgs } from './runtime.js';

/**
 * Already loaded here; kept so that `await init()` works in every runtime. Takes the options
 * (`init({ maxMemoryBytes })`, or as the second argument): the cap holds from the next object
 * or one-shot call on. Options out of range throw `invalid_option` at once.
 */
export function init(input, options) {
  initArgs(input, options);
  return Promise.resolve();
}
