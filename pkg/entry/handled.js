// Rule 5 of the boundary (boundary.js lists them): a freed object never reaches its wasm
// handle; every call checks first (`live`) and throws `invalid_state`, or `instance_lost` for
// an object of a wasm instance that was lost (runtime.js `__sr_gen`), whose handle is never
// called again, not even by `free()`. And the base of the JS
// classes over handles that are not streaming machines (`SseEncoder`, `ToolIndex`, ...), on
// its own so that an entry without streaming machines (payload, planning) loads only this.
import { gen, lost, misuse } from './runtime.js';
import { __sr_memory } from './streamroute.js';

/**
 * Throws `not_initialized` before `init()` has instantiated the module (in a browser), like
 * every wasm class does: for the JS classes that hold no wasm at first (`StreamState`).
 */
export function requireInit() {
  __sr_memory();
}

/**
 * `handle`, or `invalid_state` when the object was freed (`handle` null), or `instance_lost`
 * when it was made in generation `g` of the instance and that one was lost.
 */
export function live(handle, g) {
  if (handle === null) throw misuse('null pointer passed to rust');
  if (g !== gen) throw lost();
  return handle;
}

/**
 * `o[k] = v` as `JSON.parse` makes it: a key `__proto__` becomes an own data property, never
 * the prototype setter (for every JS fold of untrusted JSON data).
 */
export function put(o, k, v) {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

export const HANDLE = Symbol('handle');

/**
 * The base of the classes that are not streaming machines (`SseEncoder`, `ToolIndex`, ...):
 * `this[HANDLE]` is the live wasm handle, `invalid_state` once freed (rule 5).
 */
export class Handled {
  #h;
  #g = gen;

  constructor(handle) {
    this.#h = handle;
  }

  get [HANDLE]() {
    return live(this.#h, this.#g);
  }

  /** Frees the wasm memory now (`using` does it at the end of the block); later calls throw `invalid_state`. */
  free() {
    const h = this.#h;
    this.#h = null;
    if (this.#g === gen) h?.free(); // not into another instance
  }
}
disposable(Handled);

/**
 * `using` frees an object of `Class` at the end of its block: `[Symbol.dispose]` is `free`,
 * where the runtime has `Symbol.dispose` (a computed class member would be named
 * "undefined" where it has not).
 */
export function disposable(Class) {
  if (typeof Symbol.dispose === 'symbol') {
    Object.defineProperty(Class.prototype, Symbol.dispose, { value: Class.prototype.free, writable: true, configurable: true });
  }
}

/**
 * Gives `Class` methods and getters that pass straight to its wasm handle (`this[HANDLE]`):
 * `methods` and `getters` name them, as the handle names them. Defined once on the class's
 * own prototype, like its written methods (not enumerable).
 */
export function forward(Class, methods, getters = []) {
  const proto = Class.prototype;
  for (const name of methods) {
    const method = {
      [name](...args) {
        return this[HANDLE][name](...args);
      },
    }[name];
    Object.defineProperty(proto, name, { value: method, writable: true, configurable: true });
  }
  for (const name of getters) {
    const { get } = Object.getOwnPropertyDescriptor(
      {
        get [name]() {
          return this[HANDLE][name];
        },
      },
      name,
    );
    Object.defineProperty(proto, name, { get, configurable: true });
  }
}
