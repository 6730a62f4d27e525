// The JavaScript half of the boundary with wasm (src/flat/abi.rs is the other half).
//
// Each streaming class (classes/*.js) is a small class over a wasm handle: a `Machine` that
// holds an `Input`. Every rule about wasm memory lives in this file, but for rule 5, which
// handled.js holds (the classes that are not streaming machines need only that one):
//
// 1. A chunk is written into the handle's input buffer by `Input#write` and nowhere else, which
//    also picks how (the route: bytes, a string's UTF-8, or its UTF-16 units where the handle
//    reads them) and, for a handle that reads more than bytes, says so in the header's ROUTE
//    slot (abi.rs): every handle has the one `feed(len)`. Only a string or a genuine ArrayBuffer view or buffer is written, read with
//    the built-in getters (`chunkView` below): no code of the caller's (a Proxy's traps, a
//    getter) runs between asking for the buffer and writing into it, so nothing can re-enter
//    the machine, free it, move its buffer or grow the memory under the write.
// 2. The views of wasm memory are made again only after the memory grew (a grown memory
//    detaches the old buffer, whose views then have length 0): `views()` before every access.
//    `Input#view`, the input buffer's own view, is made again when it has length 0 too, and
//    dropped when the buffer moves (rule 3).
// 3. The input buffer only moves when it grows or is given back: its address is kept, asked
//    for again for a larger chunk, and forgotten after `finish()` (a finished handle may give
//    its scratch memory back).
// 4. A result is read from the header (abi.rs) and the memory it points at before any other
//    call on the handle; reading never calls into wasm, so the memory cannot move meanwhile.
// 5. A freed machine never reaches its handle: every call checks first (handled.js `live`);
//    nor does one of a wasm instance that was lost (`instance_lost`). After a loss, the views
//    are of the fresh instance's memory (`views`).
//
// One surrogate carry: a string chunk that ends with a UTF-16 high surrogate keeps it for the
// next chunk (so a pair split between chunks is one character); a high surrogate with no low
// one after it becomes U+FFFD, as `TextEncoder` makes of it. Bytes are passed as they are.
import { __sr_memory } from './streamroute.js';
import { gen, StreamrouteError, stringError } from './runtime.js';
import { disposable, HANDLE, live } from './handled.js';
import {
  COUNT,
  FAILED,
  FLAGS,
  NOT_UNITS,
  ROUTE,
  ROUTE_ASCII,
  ROUTE_BYTES,
  ROUTE_UNITS,
  ROUTE_UTF8,
  TEXT,
  TEXT_ASCII,
  TEXT_LEN,
  TEXT_UTF16,
  WIDE,
} from './abi.js';
import { decodeShort } from './utf8.js';

// A chunk's bytes as a Uint8Array, read without running any code of the caller's: only a
// genuine ArrayBuffer view or ArrayBuffer qualifies (a Proxy, an array-like or a subclass's
// getters never run), and its buffer, offset and length are read with the built-in getters.
// So no callback can re-enter or free a machine while its chunk is being copied into wasm
// memory. `null` for anything else (the caller throws invalid_input). Strings are the
// callers' own business (a primitive string runs no code either).
const builtinGetter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const VIEW = {
  ta: [
    builtinGetter(TypedArrayProto, 'buffer'),
    builtinGetter(TypedArrayProto, 'byteOffset'),
    builtinGetter(TypedArrayProto, 'byteLength'),
  ],
  dv: [
    builtinGetter(DataView.prototype, 'buffer'),
    builtinGetter(DataView.prototype, 'byteOffset'),
    builtinGetter(DataView.prototype, 'byteLength'),
  ],
};
const taTag = builtinGetter(TypedArrayProto, Symbol.toStringTag);
const abLength = builtinGetter(ArrayBuffer.prototype, 'byteLength');
const sabLength = typeof SharedArrayBuffer === 'function' ? builtinGetter(SharedArrayBuffer.prototype, 'byteLength') : null;
// The length of a genuine, attached, non-empty Uint8Array (read with the built-in getter), else
// -1. Such a chunk is copied into wasm memory as it is, by `TypedArray.prototype.set`, which
// reads its internal slots only: no code of the caller's runs, and no view is made per feed.
const taLength = builtinGetter(TypedArrayProto, 'length');
function u8Length(chunk) {
  if (!ArrayBuffer.isView(chunk) || taTag.call(chunk) !== 'Uint8Array') return -1;
  const n = taLength.call(chunk);
  return n === 0 ? -1 : n; // 0 may be a detached buffer: the general path tells
}

export function chunkView(chunk) {
  if (chunk === null || typeof chunk !== 'object') return null;
  try {
    if (ArrayBuffer.isView(chunk)) {
      const [buffer, offset, length] = taTag.call(chunk) === undefined ? VIEW.dv : VIEW.ta;
      return new Uint8Array(buffer.call(chunk), offset.call(chunk), length.call(chunk));
    }
  } catch {
    return null; // a detached buffer
  }
  for (const byteLength of [abLength, sabLength]) {
    try {
      if (byteLength !== null) return new Uint8Array(chunk, 0, byteLength.call(chunk));
    } catch {
      // Not this kind of buffer (or detached).
    }
  }
  return null;
}

const encoder = new TextEncoder();
// ignoreBOM: a U+FEFF at the start of the text is content, not a byte order mark.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
// Text with characters beyond ASCII comes out of wasm as UTF-16 code units: turning those
// into a string is several times faster than decoding UTF-8 (in Node 20 on CJK-heavy text,
// TextDecoder: UTF-8 ~240 MB/s, UTF-16LE ~1 GB/s; Buffer#toString('utf16le') ~6 GB/s).
let decoder16 = null;
try {
  decoder16 = new TextDecoder('utf-16le', { ignoreBOM: true });
} catch {
  // A runtime without UTF-16 decoding: String.fromCharCode below.
}
// Node's (and Deno's, Bun's) own Buffer, not a bundler's polyfill.
export const NodeBuffer =
  typeof globalThis.process === 'object' && globalThis.process?.versions?.node && typeof globalThis.Buffer === 'function'
    ? globalThis.Buffer
    : null;

let memory;
let seen = -1;
let u8 = new Uint8Array(0);
export let u32 = new Uint32Array(0);
let u16 = new Uint16Array(0);
let nodeBuf = null;

/** Makes the views of wasm memory again if it grew, or is another instance's (rule 2). */
export function views() {
  if (seen !== gen) {
    memory = __sr_memory();
    seen = gen;
  } else if (u8.length !== 0) return;
  u8 = new Uint8Array(memory.buffer);
  u16 = new Uint16Array(memory.buffer);
  u32 = new Uint32Array(memory.buffer);
  nodeBuf = NodeBuffer ? NodeBuffer.from(memory.buffer) : null;
}

/** The string of `units` UTF-16 code units at byte address `ptr` (2-aligned). */
export function readText16(ptr, units) {
  views();
  if (units <= 16) {
    let s = '';
    for (let i = ptr >>> 1, end = i + units; i < end; i++) s += String.fromCharCode(u16[i]);
    return s;
  }
  if (nodeBuf) return nodeBuf.toString('utf16le', ptr, ptr + 2 * units);
  if (decoder16) return decoder16.decode(u8.subarray(ptr, ptr + 2 * units));
  let s = '';
  for (let i = ptr >>> 1, end = i + units; i < end; i += 4096) {
    s += String.fromCharCode.apply(null, u16.subarray(i, Math.min(i + 4096, end)));
  }
  return s;
}

/** The string of the `n` UTF-8 bytes at `ptr` (malformed sequences become U+FFFD). */
export function readText(ptr, n) {
  views();
  // A TextDecoder call costs more than decoding a few characters in JS.
  return (n <= 32 ? decodeShort(u8, ptr, ptr + n) : null) ?? decoder.decode(u8.subarray(ptr, ptr + n));
}

/** A result's text (abi.rs `TEXT`, `TEXT_LEN`, `WIDE`) as a string. */
export function headerText(h) {
  views();
  const n = u32[h + TEXT_LEN];
  if (n === 0) return '';
  const ptr = u32[h + TEXT];
  switch (u32[h + WIDE]) {
    case TEXT_UTF16:
      return readText16(ptr, n);
    // ASCII is its own Latin-1: in Node, Buffer decodes that in about half the time of a
    // `TextDecoder` call (~85 against ~150 ns for 200 bytes).
    case TEXT_ASCII:
      return n > 32 && nodeBuf !== null ? nodeBuf.toString('latin1', ptr, ptr + n) : readText(ptr, n);
    default:
      return readText(ptr, n);
  }
}

/** The error `e` with the results before it as `e[key]`: every partial result goes on here. */
export function partial(e, key, value) {
  e[key] = value;
  return e;
}

/**
 * The surrogate carry (the rule above) of `holder.high` (a held high surrogate, or ''): the text
 * of string `chunk` to read now, after the held surrogate and without a high surrogate that ends
 * it, which `holder.high` then holds. For `Input` and the client's JavaScript `SseDecoder`.
 */
export function takeText(holder, chunk) {
  if (holder.high !== '') {
    chunk = holder.high + chunk;
    holder.high = '';
  }
  const n = chunk.length;
  if (n > 0) {
    const last = chunk.charCodeAt(n - 1);
    if (last >= 0xd800 && last < 0xdc00) {
      holder.high = chunk[n - 1];
      chunk = chunk.slice(0, n - 1);
    }
  }
  return chunk;
}

/**
 * Whether `holder.high` held a surrogate that no low one followed (bytes came, or the end),
 * which is U+FFFD (`REPLACEMENT`) before what comes; forgets it.
 */
export function takeLone(holder) {
  const lone = holder.high !== '';
  holder.high = '';
  return lone;
}

/** U+FFFD in UTF-8. */
export const REPLACEMENT = [0xef, 0xbf, 0xbd];

export const badChunk = () =>
  new StreamrouteError('invalid_input', 'a chunk must be a string, a Uint8Array (or other ArrayBuffer view) or an ArrayBuffer');

// Strings at least this long go in as UTF-16 where the runtime has Node's Buffer.
const UNITS_MIN = 64;

/**
 * A wasm handle's input side: its buffer, the held surrogate and the header's address.
 * `units`: for a handle that reads a string's UTF-16 code units itself (ROUTE_UNITS), the
 * shortest string that goes in so where the runtime has Node's Buffer; 0 for the others.
 */
export class Input {
  constructor(handle, units = 0) {
    this.h = handle;
    this.units = units;
    /** The last chunk went in as ROUTE_UNITS (see `fed`). */
    this.wide = false;
    /** The instance's generation it was made in (handled.js `live`). */
    this.g = gen;
    /** The header's index in `u32` (abi.rs `HEADER_LEN` slots). */
    this.header = handle.header() >>> 2;
    this.ptr = 0;
    this.cap = 0;
    /** The input buffer as a view for `encodeInto`, kept while the buffer stays (rules 2, 3). */
    this.view = null;
    /** A held UTF-16 high surrogate, or ''. */
    this.high = '';
    /** The text of the last string chunk written (without a held surrogate). */
    this.str = '';
    /** The next long string goes in as UTF-8 (see `writeString`). */
    this.viaUtf8 = false;
  }

  /** The live handle; `invalid_state` once freed (rule 5). */
  handle() {
    return live(this.h, this.g);
  }

  free() {
    const h = this.h;
    this.h = null;
    if (this.g === gen) h?.free(); // not into another instance
  }

  /** `reset()` of a machine that has one: the handle's, and the held surrogate forgotten. */
  reset() {
    this.handle().reset();
    this.forget();
  }

  /** Forgets the held surrogate and the buffer's address (rule 3): for `reset()` and after `finish()`. */
  forget() {
    this.high = '';
    this.cap = 0;
  }

  /** Where the input buffer takes `cap` bytes (rule 3). Out of wasm memory: the handle's error. */
  at(cap) {
    if (cap <= this.cap) return this.ptr;
    const ptr = this.h.inPtr(cap);
    if (ptr === 0) throw this.h.takeError();
    this.ptr = ptr;
    this.cap = cap;
    this.view = null;
    return ptr;
  }

  /**
   * Writes `chunk` into the input buffer (rule 1); returns its byte length. A string chunk is
   * written as UTF-8, after the surrogate carry.
   */
  write(chunk) {
    if (typeof chunk === 'string') return this.writeString(this.take(chunk));
    // A genuine Uint8Array is copied as it is; any other view or buffer through a fresh view.
    let length = u8Length(chunk);
    let view = chunk;
    if (length < 0) {
      view = chunkView(chunk);
      if (view === null) throw badChunk();
      length = view.length;
    }
    // A held high surrogate had no low half: U+FFFD before the bytes.
    const pre = takeLone(this) ? 3 : 0;
    const ptr = this.at(length + pre);
    views();
    if (pre) u8.set(REPLACEMENT, ptr);
    u8.set(view, ptr + pre);
    u32[this.header + ROUTE] = ROUTE_BYTES;
    return length + pre;
  }

  /** Writes what the stream still holds at its end (U+FFFD for a held surrogate); its length. */
  writeEnd() {
    if (!takeLone(this)) return 0;
    const ptr = this.at(3);
    views();
    u8.set(REPLACEMENT, ptr);
    return 3;
  }

  /**
   * The result of `feed` for the chunk just written: one the handle read as units tells
   * (FLAGS) whether it was all ASCII, and then the next long string goes in as UTF-8
   * (`TextEncoder` writes ASCII faster than wasm reads UTF-16); one it declined (NOT_UNITS: a
   * lone surrogate, state that needs bytes) is written as UTF-8 and fed again.
   */
  fed(n) {
    if (!this.wide) return n;
    this.wide = false;
    if (n === NOT_UNITS) return this.h.feed(this.writeText(this.str));
    views();
    this.viaUtf8 = u32[this.header + FLAGS] === 1;
    return n;
  }

  /**
   * The text of string `chunk` to write now: after the high surrogate held from the last
   * chunk, without a high surrogate that ends it (held for the next one). Kept as `str`.
   */
  take(chunk) {
    this.str = takeText(this, chunk);
    return this.str;
  }

  /**
   * Writes string `str` (from `take`); returns its length for `feed`. A handle that reads
   * UTF-16 (`units`) gets a long string as code units (`Buffer#write`, ~10 GB/s) in Node,
   * unless the last one was all ASCII, and any other string as UTF-8 (ROUTE_ASCII when it is
   * all ASCII: its offsets are then the string's).
   *
   * For the other handles the string goes in as UTF-8. In Node a long one may be written as
   * UTF-16 with wasm making the UTF-8 in place (`fromUnits`, ASCII eight units at a time with
   * SIMD, other units one by one). Measured on 4 KiB chunks against `TextEncoder.encodeInto`:
   * 1.8x faster for text with a character beyond ASCII here and there (SSE of chat deltas,
   * 0.7% more bytes than units), slower once they are dense (JSON with CJK answers, 10% more
   * bytes), and for an all-ASCII string `encodeInto` is a plain copy. So each chunk picks the
   * route by the one before it: UTF-16 while chunks have beyond-ASCII characters but at most
   * ~3% more bytes than units, TextEncoder otherwise.
   */
  writeString(str) {
    const n = str.length;
    if (this.units > 0) {
      if (n >= this.units && NodeBuffer !== null && !this.viaUtf8) {
        const ptr = this.at(2 * n);
        views();
        nodeBuf.write(str, ptr, 2 * n, 'utf16le');
        u32[this.header + ROUTE] = ROUTE_UNITS;
        this.wide = true;
        return n;
      }
      const len = this.writeText(str);
      this.viaUtf8 = len === n;
      return len;
    }
    let len;
    if (n >= UNITS_MIN && NodeBuffer !== null && !this.viaUtf8) {
      const ptr = this.at(3 * n);
      views();
      nodeBuf.write(str, ptr + n, 2 * n, 'utf16le');
      len = this.h.fromUnits(n);
    } else {
      len = this.writeUtf8(str);
    }
    this.viaUtf8 = len === n || len > n + (n >>> 5);
    return len;
  }

  /** Writes the UTF-8 of `str` (from `take`) with its route (ROUTE_ASCII or ROUTE_UTF8); returns its length. */
  writeText(str) {
    const n = str.length;
    const len = this.writeUtf8(str);
    views();
    u32[this.header + ROUTE] = len === n ? ROUTE_ASCII : ROUTE_UTF8;
    return len;
  }

  /** Writes the UTF-8 of `str` (from `take`); returns its length. */
  writeUtf8(str) {
    const n = str.length;
    if (n === 0) return 0;
    const cap = n * 3;
    const ptr = this.at(cap);
    views();
    if (n > 32) {
      // One view of the buffer for every chunk (a view per call cost ~25 ns a chunk); a grown
      // memory detaches it (length 0), a moved buffer drops it (`at`).
      let view = this.view;
      if (view === null || view.length === 0) view = this.view = u8.subarray(ptr, ptr + this.cap);
      return encoder.encodeInto(str, view).written;
    }
    let i = 0;
    for (; i < n; i++) {
      const c = str.charCodeAt(i);
      if (c > 0x7f) break;
      u8[ptr + i] = c;
    }
    if (i === n) return n;
    return i + encoder.encodeInto(str.slice(i), u8.subarray(ptr + i, ptr + cap)).written;
  }
}

// The protocol between `Machine` and its classes, by symbols: no name of it is a property a
// user sees (or calls) on a machine.
export const INPUT = Symbol('input');
export const READ = Symbol('read');
export const SETTLE = Symbol('settle');
export const FINISHED = Symbol('finished');
export const PARTIAL = Symbol('partial');
export const NONE = Symbol('none');

/**
 * The base of the streaming classes: `feed`, `finish` and `free` over a handle whose
 * `feed(len)`/`finish(len)` follow abi.rs. A class gives `[READ](input, count)` (its results
 * from the header, for the string chunk `input.str` when one was just fed) and may give
 * `static [NONE]()` (no results: `[]`), `static [PARTIAL]` (the property that carries the
 * results before an error: `error.events`; null for none) and `[FINISHED](results)` (what
 * `finish()` returns).
 */
export class Machine {
  #in;

  /** `units`: see `Input`. */
  constructor(handle, units = 0) {
    this.#in = new Input(handle, units);
  }

  /** The input side, for the class's own methods. */
  get [INPUT]() {
    return this.#in;
  }

  /** The live handle (handled.js `forward` passes getters and methods to it). */
  get [HANDLE]() {
    return this.#in.handle();
  }

  // Most machines give an array of results and carry those before an error as
  // `error.events`; a class says otherwise.
  static [PARTIAL] = 'events';

  static [NONE]() {
    return [];
  }

  feed(chunk) {
    try {
      const i = this.#in;
      const h = i.handle();
      return this[SETTLE](i.fed(h.feed(i.write(chunk))));
    } catch (e) {
      throw stringError(e);
    }
  }

  finish() {
    try {
      const i = this.#in;
      const h = i.handle();
      const n = h.finish(i.writeEnd());
      i.forget();
      return this[FINISHED](this[SETTLE](n));
    } catch (e) {
      throw stringError(e);
    }
  }

  /** Frees the wasm memory now (`using` does it at the end of the block); later calls throw `invalid_state`. */
  free() {
    this.#in.free();
  }

  /** The results of a call that returned `n` (abi.rs): read, or thrown on the error. */
  [SETTLE](n) {
    const i = this.#in;
    if (n !== FAILED) return n === 0 ? this.constructor[NONE]() : this[READ](i, n);
    const e = i.h.takeError();
    const key = this.constructor[PARTIAL];
    if (key === null) throw e;
    views();
    const count = u32[i.header + COUNT];
    throw partial(e, key, count === 0 ? this.constructor[NONE]() : this[READ](i, count));
  }

  /** What `finish()` returns, from the results of its call. */
  [FINISHED](results) {
    return results;
  }
}
disposable(Machine);

export { stringError };
