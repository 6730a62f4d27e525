// The JavaScript half of the bindings in src/wasm/. wasm-bindgen imports this module into the
// generated glue of each build (one per npm entry); the entries re-export `StreamrouteError`
// from that same copy.

/**
 * Every error streamroute throws: a stable `code`, a `message`, and `offset` where known.
 *
 * One class for the whole package: every entry's build carries its own copy of this module,
 * and the first copy to load registers its class under a global symbol that the others take,
 * so `instanceof StreamrouteError` holds whichever entry threw and whichever entry's export
 * it is tested against (ESM and CommonJS alike).
 */
const SHARED = Symbol.for('streamroute.StreamrouteError');
export const StreamrouteError = (globalThis[SHARED] ??= class extends Error {
  // Its name (`StreamrouteError.name`), set here because minifying drops the names of class
  // expressions (and renames a class declaration that shares the exported name).
  static {
    // biome-ignore lint/complexity/noThisInStatic: a class expression has no name to use instead
    Object.defineProperty(this, 'name', { value: 'StreamrouteError' });
  }

  constructor(code, message, offset) {
    super(message);
    this.name = 'StreamrouteError';
    this.code = code;
    if (offset !== undefined && offset !== null) this.offset = offset;
  }
});

/**
 * The glue's `wasm` until the module is instantiated (scripts/patch-glue.mjs): in a browser a
 * class constructed or a function called before `await init()` throws `not_initialized`
 * instead of a TypeError about a property of undefined.
 */
export const __sr_not_ready = new Proxy(
  {},
  {
    get() {
      throw new StreamrouteError('not_initialized', 'call `await init()` first');
    },
  },
);

// What `JSON.stringify` threw on `what`, when the value was too big rather than unencodable:
// nested deeper than the engine's stack (V8 and JavaScriptCore throw a RangeError,
// SpiderMonkey an InternalError) is `json_too_deep`, longer than its longest string
// `input_too_large`. `null` for the rest (a BigInt, a cycle), which the caller reports. Never
// throws (a thrown value's getters are the caller's code): wasm calls it without a catch.
export function __sr_encode_error(thrown, what) {
  try {
    const name = thrown?.name;
    if (name !== 'RangeError' && name !== 'InternalError') return null;
    return /string length/.test(String(thrown.message))
      ? new StreamrouteError('input_too_large', `${what} is longer than the longest JSON text this JS engine makes`)
      : new StreamrouteError('json_too_deep', `${what} is nested too deeply to encode`);
  } catch {
    return null;
  }
}

export function __sr_error(code, message, offset) {
  return new StreamrouteError(code, message, offset);
}

// A panic in wasm is a bug: it aborts the instance, which is then replaced like after a trap
// (below). Where it happened goes to the console first.
export function __sr_panic(file, line, column) {
  console.error(`streamroute: internal error at ${file}:${line}:${column}; this instance is replaced (please report it)`);
}

// The life of this build's wasm instance. A trap (an allocation that could not fail gracefully
// found memory used up; a panic, which is a bug, too) leaves the instance's state possibly
// corrupt: it is lost for good. `__sr_string_error` counts the loss and makes the trap the
// call's `memory_limit_exceeded`; the glue (scripts/patch-glue.mjs) then makes every later call on that instance do
// nothing, and a fresh instance from the same compiled module at the next constructor or
// one-shot call. Every object remembers the generation it was made in (handled.js `live`): one
// made before the loss throws `instance_lost`.

/** The generation of the instance: one more each time one is lost. */
export let __sr_gen = 0;

/** The error of a call on an object of a lost instance. */
export const __sr_lost = () => new StreamrouteError('instance_lost', 'its wasm instance was lost');

/** `memory_limit_exceeded` for a whole call: a trap, or no room to begin (the glue asks first). */
export const __sr_oom = (why = 'no room') => new StreamrouteError('memory_limit_exceeded', `out of wasm memory (${why})`);

/** `init({ maxMemoryBytes })` (0: no cap); the glue applies it (crates/heap `__sr_heap_enter`). */
export let __sr_max_bytes = 0;

/**
 * `init`'s arguments (`init(input?, options?)` or `init(options)`, a plain object): the
 * options' cap is taken; returns `input`. A cap below 64 KiB or not a number is
 * `invalid_option`.
 */
export function __sr_init_args(input, options) {
  // biome-ignore lint/suspicious/noSparseArray: the hole is `input` made undefined
  if (input?.constructor === Object) [input, options] = [, input];
  const max = options?.maxMemoryBytes;
  if (max !== undefined) {
    if (!(max >= 65536)) throw new StreamrouteError('invalid_option', 'maxMemoryBytes < 65536');
    __sr_max_bytes = max;
  }
  return input;
}

// A result too long for a JS string (V8 stops at 2^29 - 24 characters, and Node's UTF-8
// decoding at that many bytes: ~180M characters of CJK text) is `memory_limit_exceeded`, not
// the engine's plain Error. The machines' result readers (pkg/entry/boundary.js) and the
// glue's string reading and its wrapper of every export (scripts/patch-glue.mjs) pass what
// they catch through here; a trap loses the instance (`__sr_gen`, above) and is the call's
// `memory_limit_exceeded`; other errors come back as they are.
export function __sr_string_error(err) {
  if (err instanceof StreamrouteError) return err;
  if (err instanceof WebAssembly.RuntimeError) return (__sr_gen++, __sr_oom('instance replaced'));
  const tooLong = err?.code === 'ERR_STRING_TOO_LONG' || (err instanceof RangeError && /string length/i.test(err.message));
  return tooLong
    ? new StreamrouteError('memory_limit_exceeded', `the result is longer than the longest string this JS engine makes (${err.message})`)
    : err;
}

// What wasm-bindgen's own checks say, in the words of this API. scripts/build points the
// glue's `__wbindgen_throw` here, so these are StreamrouteErrors (`invalid_state`) too.
const MISUSE = {
  'null pointer passed to rust': 'this object was freed (free() or the end of its `using` block); create a new one',
  'recursive use of an object detected which would lead to unsafe aliasing in rust':
    'this object is already in a call (a callback called back into it)',
  'attempted to take ownership of Rust value while it was borrowed': 'this object is in a call and cannot be freed now',
};
export function __sr_misuse(message) {
  return new StreamrouteError('invalid_state', MISUSE[message] ?? message);
}

// JSON text made by the wasm side (values, or an array of items) to JS values: plain
// objects, numbers as JS numbers.
export function __sr_json_parse(text) {
  return JSON.parse(text);
}

// Number text both ways for the wasm side, which has no float formatter or parser of its own
// (src/num.rs): `x` is finite, `text` is JSON number text.
export function __sr_number_text(x) {
  return String(x);
}
export function __sr_number(text) {
  return Number(text);
}

// FinalPayload checks: JS values to JSON text where a non-finite number must not pass as
// `null` (JSON.stringify's NaN and Infinity): it goes as its name ("NaN", "Infinity"), which
// fails a number field's check instead of meeting a default. `undefined` when the value has no
// JSON form; throws on a BigInt or a cycle (the caller catches).
export function __sr_stringify_finite(value) {
  return JSON.stringify(value, nonFiniteAsText);
}
function nonFiniteAsText(_key, value) {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
}

// Planning checks: JS values to JSON text for the wasm side. Typed arrays (embeddings) become
// plain arrays; a ToolIndex or CapabilityMap goes through its own toJSON().
function typedArraysAsArrays(_key, value) {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) ? Array.from(value) : value;
}
export function __sr_stringify(value) {
  return value === undefined ? undefined : JSON.stringify(value, typedArraysAsArrays);
}

// A catalog's per-tool embeddings read as numbers instead of JSON text: `{ json, vectors,
// lens }` with the catalog's JSON minus the tools' `embedding` members, every embedding in
// one Float64Array, and each tool's embedding length (-1: none). `null` (the caller then
// takes the whole catalog as JSON) when there are none or any is not an array of finite
// numbers, so that the JSON path reports it. `null` too when reading the catalog throws (a
// BigInt or a cycle makes JSON.stringify throw): the JSON path then reports that as a
// StreamrouteError, and no JS exception unwinds through wasm frames.
export function __sr_catalog_split(catalog) {
  try {
    return catalogSplit(catalog);
  } catch {
    return null;
  }
}

function catalogSplit(catalog) {
  const tools = Array.isArray(catalog)
    ? catalog
    : catalog !== null && typeof catalog === 'object' && Array.isArray(catalog.tools)
      ? catalog.tools
      : null;
  if (tools === null) return null;
  const lens = new Int32Array(tools.length).fill(-1);
  const holders = new Set();
  let total = 0;
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    if (t === null || typeof t !== 'object' || Array.isArray(t) || typeof t.toJSON === 'function') return null;
    const e = t.embedding;
    if (e === undefined || e === null) continue;
    if (!Array.isArray(e) && !(ArrayBuffer.isView(e) && !(e instanceof DataView))) return null;
    for (let j = 0; j < e.length; j++) if (typeof e[j] !== 'number' || !Number.isFinite(e[j])) return null;
    lens[i] = e.length;
    total += e.length;
    holders.add(t);
  }
  if (holders.size === 0) return null;
  const vectors = new Float64Array(total);
  let at = 0;
  for (let i = 0; i < tools.length; i++) {
    if (lens[i] > 0) {
      vectors.set(tools[i].embedding, at);
      at += lens[i];
    }
  }
  const json = JSON.stringify(catalog, function (key, value) {
    if (key === 'embedding' && holders.has(this)) return undefined;
    return typedArraysAsArrays(key, value);
  });
  return { json, vectors, lens };
}
