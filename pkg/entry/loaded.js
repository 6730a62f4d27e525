// `init()` of the loaders whose .wasm is instantiated at import (Node, workers).

/** Already loaded here; kept so that `await init()` works in every runtime. */
export function init() {
  return Promise.resolve();
}
