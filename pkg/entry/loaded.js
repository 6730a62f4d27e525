// `init()` of the loaders whose .wasm is instantiated at import (Node, workers).
import { __sr_memory } from './streamroute.js';
import { initArgs } from './runtime.js';

/**
 * Already loaded here; kept so that `await init()` works in every runtime. Takes the options
 * (`init({ maxMemoryBytes })`, or as the second argument): the cap holds from now on.
 */
export function init(input, options) {
  try {
    initArgs(input, options);
    __sr_memory(); // applies the cap
    return Promise.resolve();
  } catch (e) {
    return Promise.reject(e);
  }
}
