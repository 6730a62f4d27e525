// The JS half of the fast `feed` path (src/wasm/fast.rs). scripts/build copies this module
// next to each entry's glue, so it patches the classes of that build, with that build's
// memory. One function per class (`fastSseDecoder`, ...); each entry's generated
// `fast-set.js` calls those of its classes (scripts/entries.json `fast`), so an entry's bundle
// carries only their code. Each replaces `feed`/`finish`/`reset` of its class with versions that
// write the chunk straight into wasm memory and read the result straight out of it: a small
// feed then costs two calls with number arguments. Behaviour is identical to the Rust-side
// `feed` (which stays as the fallback for other chunk types): a UTF-16 high surrogate that
// ends a string chunk is held for the next chunk; a lone one becomes U+FFFD.
import * as glue from './streamroute.js';
import { chunkView, jsonEventsFrom, routedEventsFrom, sseEventsFrom, stringError, u8Length } from './runtime.js';

const { AnswerExtractor, PartialJson, SseDecoder, StreamRouter, TagFilter, __sr_memory } = glue;

const FAILED = 0xffffffff;
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
const NodeBuffer =
  typeof globalThis.process === 'object' && globalThis.process?.versions?.node && typeof globalThis.Buffer === 'function'
    ? globalThis.Buffer
    : null;
let memory;
let u8 = new Uint8Array(0);
let u16 = new Uint16Array(0);
let u32 = new Uint32Array(0);
let nodeBuf = null;

function views() {
  // Growing wasm memory detaches the old buffer (its views get length 0): only then are the
  // views made again (reading `memory.buffer` on every call costs more than this test).
  if (u8.length !== 0) return;
  memory ??= __sr_memory();
  u8 = new Uint8Array(memory.buffer);
  u16 = new Uint16Array(memory.buffer);
  u32 = new Uint32Array(memory.buffer);
  nodeBuf = NodeBuffer ? NodeBuffer.from(memory.buffer) : null;
}

// The string of `units` UTF-16 code units at `ptr` (2-aligned) in wasm memory.
function readText16(ptr, units) {
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

// Where the machine's input buffer takes `cap` bytes. The buffer only moves when it grows
// (in `__inPtr`), so its address is kept and asked for again only for a larger chunk. When
// wasm memory cannot hold the chunk, `__inPtr` gives 0 and the machine's error
// (`memory_limit_exceeded`) is thrown; nothing was fed.
function inPtr(machine, cap) {
  if (cap <= machine.__cap) return machine.__ptr;
  const ptr = machine.__inPtr(cap);
  if (ptr === 0) throw machine.__takeError();
  machine.__ptr = ptr;
  machine.__cap = cap;
  return ptr;
}

// Writes `chunk` into the machine's input buffer; returns the byte length, or -1 when the
// chunk is not a string or a genuine ArrayBuffer view or buffer, or the machine was freed
// (the caller then takes the Rust-side path, which throws: nothing is written to freed
// memory). A chunk is read by `chunkView` (runtime.js): no code of the caller's (a Proxy's
// traps, a getter) runs between asking for the buffer and writing into it, so nothing can
// re-enter the machine, move its buffer or grow the memory under this write.
function write(machine, chunk) {
  if (machine.__wbg_ptr === 0) return -1;
  if (typeof chunk === 'string') return writeString(machine, takeString(machine, chunk));
  // A genuine Uint8Array is copied as it is; any other view or buffer through a fresh view.
  let length = u8Length(chunk);
  let view = chunk;
  if (length < 0) {
    view = chunkView(chunk);
    if (view === null) return -1;
    length = view.length;
  }
  let pre = 0;
  if (machine.__high) {
    machine.__high = '';
    pre = 3; // the held high surrogate had no low half: U+FFFD
  }
  const ptr = inPtr(machine, length + pre);
  views();
  if (pre) u8.set([0xef, 0xbf, 0xbd], ptr);
  u8.set(view, ptr + pre);
  return length + pre;
}

// The text of string `chunk` to write now: after a high surrogate held from the last chunk,
// without a high surrogate that ends it (held for the next one). Kept as `machine.__str`
// (machines that slice it: TagFilter).
function takeString(machine, chunk) {
  if (machine.__high !== undefined && machine.__high !== '') {
    chunk = machine.__high + chunk;
    machine.__high = '';
  }
  const n = chunk.length;
  if (n > 0) {
    const last = chunk.charCodeAt(n - 1);
    if (last >= 0xd800 && last < 0xdc00) {
      machine.__high = chunk[n - 1];
      chunk = chunk.slice(0, n - 1);
    }
  }
  machine.__str = chunk;
  return chunk;
}

// Strings at least this long go in as UTF-16 where the runtime has Node's Buffer.
const UNITS_MIN = 64;

// Writes the UTF-8 of `str` (from takeString) into the input buffer; returns its length. In
// Node a long string may go in as UTF-16 (`Buffer#write`, ~10 GB/s) with wasm making the
// UTF-8 in place (`__fromUnits`, ASCII eight units at a time with SIMD, other units one by
// one). Measured on 4 KiB chunks against `TextEncoder.encodeInto`: 1.8x faster for text
// with a character beyond ASCII here and there (SSE of chat deltas, 0.7% more bytes than
// units), slower once they are dense (JSON with CJK answers, 10% more bytes), and for an
// all-ASCII (one-byte) string `encodeInto` is a plain copy. So each chunk picks the route by
// the one before it: UTF-16 while chunks have beyond-ASCII characters but at most ~3% more
// bytes than units, TextEncoder otherwise.
function writeString(machine, str) {
  const n = str.length;
  if (n < UNITS_MIN) return writeUtf8(machine, str);
  let len;
  if (NodeBuffer !== null && !machine.__viaUtf8) {
    const ptr = inPtr(machine, 3 * n);
    views();
    nodeBuf.write(str, ptr + n, 2 * n, 'utf16le');
    len = machine.__fromUnits(n);
  } else {
    len = writeUtf8(machine, str);
  }
  machine.__viaUtf8 = len === n || len > n + (n >>> 5);
  return len;
}

// Node only: writes `str` (from takeString) into the input buffer as UTF-16LE code units
// (room is made for its UTF-8 too, which a declined chunk is then written as); returns the
// number of units.
function writeUnits(machine, str) {
  const n = str.length;
  const ptr = inPtr(machine, 3 * n);
  views();
  nodeBuf.write(str, ptr, 2 * n, 'utf16le');
  return n;
}

// Writes the UTF-8 of `chunk` (from takeString) into the input buffer; returns its length.
function writeUtf8(machine, chunk) {
  const n = chunk.length;
  if (n === 0) return 0;
  const cap = n * 3;
  const ptr = inPtr(machine, cap);
  views();
  if (n > 32) return encoder.encodeInto(chunk, u8.subarray(ptr, ptr + cap)).written;
  let i = 0;
  for (; i < n; i++) {
    const c = chunk.charCodeAt(i);
    if (c > 0x7f) break;
    u8[ptr + i] = c;
  }
  if (i === n) return n;
  return i + encoder.encodeInto(chunk.slice(i), u8.subarray(ptr + i, ptr + cap)).written;
}

function readText(ptr, n) {
  views();
  if (n <= 24) {
    let s = '';
    for (let i = 0; i < n; i++) {
      const c = u8[ptr + i];
      if (c > 0x7f) return decoder.decode(u8.subarray(ptr, ptr + n));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decoder.decode(u8.subarray(ptr, ptr + n));
}

// A method whose result is made here, with the engine's error for a result too long to be a
// string as a StreamrouteError (runtime.js `__sr_string_error`).
const guarded = (method) =>
  function (chunk) {
    try {
      return method.call(this, chunk);
    } catch (e) {
      throw stringError(e);
    }
  };

// `finishValue`: `finish()` returns a value, not more of what `feed` returns (PartialJson).
// `longString`: a route of its own for a string chunk of at least `longMin` code units.
function patch(Class, readOut, finishValue = false, longString = null, longMin = 0) {
  if (Class === undefined) return;
  const proto = Class.prototype;
  const slowFeed = proto.feed;
  const slowFinish = proto.finish;
  const slowReset = proto.reset;
  // The hot path: the `guarded` rule written out here rather than through its wrapper (one
  // call fewer per feed).
  proto.feed = function feed(chunk) {
    try {
      if (longString !== null && typeof chunk === 'string' && chunk.length >= longMin && this.__wbg_ptr !== 0) {
        return longString(this, chunk);
      }
      const len = write(this, chunk);
      if (len < 0) return slowFeed.call(this, chunk);
      const n = this.__feedIn(len);
      if (n === FAILED) throw this.__takeError();
      return readOut(this, n);
    } catch (e) {
      throw stringError(e);
    }
  };
  proto.finish = guarded(function finish() {
    if (this.__high) {
      this.__high = '';
      const head = this.feed('\ufffd');
      const tail = slowFinish.call(this);
      if (finishValue) return tail;
      if (typeof head === 'string') return head + tail;
      if (Array.isArray(tail)) return head.concat(tail);
      tail.deltas = head.concat(tail.deltas); // a result object (TagFilter)
      return tail;
    }
    return slowFinish.call(this);
  });
  if (slowReset) {
    proto.reset = function reset() {
      this.__high = '';
      return slowReset.call(this);
    };
  }
}

export function fastAnswerExtractor() {
  patch(AnswerExtractor, (machine, n) => {
    if (n === 0) return '';
    views();
    const info = (machine.__info ??= machine.__infoPtr() >>> 2);
    return u32[info + 2] ? readText16(u32[info], n) : readText(u32[info], n);
  });
}

// SseDecoder with a long string in Node: written as UTF-16 (`Buffer#write`), read by wasm
// through its skeleton, and an event whose data is one line of the chunk comes back as a
// range that is sliced from the string (no copy, no decoding). A chunk wasm declines (a lone
// surrogate, a byte order mark begun by bytes) goes in as UTF-8. Shorter strings take the
// UTF-8 route: below SSE_UNITS_MIN the per-call cost of this one (the skeleton, the UTF-8
// offsets worked out per chunk) outweighs what slicing saves.
const SSE_UNITS_MIN = 256;
const NOT_UNITS = 0xfffffffe;
function sseLongString(machine, chunk) {
  const str = takeString(machine, chunk);
  const count = machine.__feedUnits(writeUnits(machine, str));
  if (count === NOT_UNITS) {
    const k = machine.__feedIn(writeUtf8(machine, str));
    if (k === FAILED) throw machine.__takeError();
    return sseEvents(machine, k, null);
  }
  if (count === FAILED) {
    views();
    const e = machine.__takeError();
    e.events = sseEvents(machine, u32[(machine.__info ??= machine.__infoPtr() >>> 2) + 5], str);
    throw e;
  }
  return sseEvents(machine, count, str);
}

export function fastSseDecoder() {
  patch(SseDecoder, (machine, count) => sseEvents(machine, count, null), false,
    NodeBuffer !== null ? sseLongString : null, SSE_UNITS_MIN);
}

// The events `__feedIn`/`__feedUnits` packed (see `Packed` in src/wasm/sse.rs); `str` is the
// string chunk whose ranges are event data (`__feedUnits`), else null.
function sseEvents(machine, count, str) {
  if (count === 0) return [];
  const info = (machine.__info ??= machine.__infoPtr() >>> 2);
  views();
  const p = u32[info];
  const n = u32[info + 1];
  const lens = u32.subarray(u32[info + 2] >>> 2, (u32[info + 2] >>> 2) + 3 * count);
  // The packed text: UTF-16 code units (flag 1) or all-ASCII UTF-8 bytes. Data ranges are
  // read from `u32` itself (readText16 and decode never grow the memory).
  const text = n === 0 ? '' : u32[info + 3] ? readText16(p, n) : decoder.decode(u8.subarray(p, p + n));
  return sseEventsFrom(text, lens, count, str, u32, u32[info + 4] >>> 2);
}

export function fastStreamRouter() {
  patch(StreamRouter, (machine, count) => {
    if (count === 0) return [];
    const info = (machine.__info ??= machine.__infoPtr() >>> 2);
    views();
    const p = u32[info];
    const q = u32[info + 2] >>> 2;
    return routedEventsFrom(decoder.decode(u8.subarray(p, p + u32[info + 1])), u32.subarray(q, q + u32[info + 3]));
  });
}

export function fastPartialJson() {
  patch(PartialJson, (machine, n) => {
    if (n === 0) return [];
    const info = (machine.__info ??= machine.__infoPtr() >>> 2);
    views();
    const text = readText(u32[info], u32[info + 1]);
    const q = u32[info + 2] >>> 2;
    return jsonEventsFrom((machine.__state ??= machine.__jsState()), text, u32.subarray(q, q + n));
  }, true);
}

// TagFilter. `__feedIn` describes each piece of text as `[block, kind, a, b]` (see
// `RangeSink` in src/wasm/tags.rs): kind 0 is `chunk.slice(a, b)` of the very string just
// fed, kind 1 the UTF-8 bytes at wasm memory [a, b), kind 3 UTF-16 code units there. No text is copied inside wasm for a
// chunk of block text, and wasm keeps no block text: the blocks of `finish()` are assembled
// here from the deltas (`__acc`, one string per block).
export function fastTagFilter() {
  if (TagFilter === undefined) return;
  const nodeUtf16 = NodeBuffer !== null;
  const proto = TagFilter.prototype;
  const slowFeed = proto.feed;
  const slowFinish = proto.finish;
  const setup = (m) => {
    if (m.__acc === undefined) {
      m.__acc = m.__stopKeeping();
      m.__types = m.__typeNames();
      m.__info = m.__infoPtr() >>> 2;
    }
  };
  // Deltas built elsewhere (the Rust-side feed, finish, errors) are added to the blocks too.
  const keep = (m, deltas) => {
    for (const d of deltas) m.__acc[m.__types.indexOf(d.type)] += d.text;
  };
  const read = (m, count, str) => {
    const out = [];
    if (count === 0) return out;
    views();
    const acc = m.__acc;
    let last = -1;
    // readText never grows the memory, so `u32` stays valid for the whole loop.
    for (let k = u32[m.__info] >>> 2, end = k + 4 * count; k < end; k += 4) {
      const block = u32[k];
      const a = u32[k + 2];
      const b = u32[k + 3];
      const kind = u32[k + 1];
      const text =
        kind === 0 ? (a === 0 && b === str.length ? str : str.slice(a, b))
        : kind === 3 ? readText16(a, (b - a) >>> 1)
        : readText(a, b - a);
      acc[block] += text;
      if (block === last) out[out.length - 1].text += text;
      else out.push({ type: m.__types[block], text });
      last = block;
    }
    return out;
  };
  proto.feed = guarded(function feed(chunk) {
    setup(this);
    if (nodeUtf16 && typeof chunk === 'string' && chunk.length >= UNITS_MIN && this.__wbg_ptr !== 0 && !this.__asciiRun) {
      // Node writes a string as UTF-16 several times faster than as UTF-8 (when it has
      // characters beyond Latin-1); wasm reads its skeleton (see `__feedUnits`). After an
      // all-ASCII chunk the next goes in as UTF-8 (faster for ASCII) until one is not.
      const str = takeString(this, chunk);
      const n = writeUnits(this, str);
      const r = this.__feedUnits(n);
      if (r !== NOT_UNITS) {
        views();
        this.__asciiRun = u32[this.__info + 2] === 1;
        return done(this, r);
      }
      // A lone surrogate (U+FFFD in UTF-8) or a carried UTF-8 sequence: as UTF-8.
      return done(this, this.__feedIn(writeUtf8(this, str), n));
    }
    // A string not read as UTF-16 here: short, or after an all-ASCII chunk (TextEncoder).
    const len = typeof chunk === 'string' && this.__wbg_ptr !== 0 ? writeUtf8(this, takeString(this, chunk)) : write(this, chunk);
    if (len < 0) {
      try {
        const deltas = slowFeed.call(this, chunk);
        keep(this, deltas);
        return deltas;
      } catch (e) {
        if (e && e.deltas) keep(this, e.deltas);
        throw e;
      }
    }
    const units = typeof chunk === 'string' ? this.__str.length : -1;
    if (units >= 0) this.__asciiRun = len === units;
    return done(this, this.__feedIn(len, units));
  });
  // `__feedIn`/`__feedUnits` returned `n`: the deltas, or the error with the deltas before it.
  const done = (m, n) => {
    if (n !== FAILED) return read(m, n, m.__str);
    views();
    const deltas = read(m, u32[m.__info + 1], m.__str);
    const e = m.__takeError();
    e.deltas = deltas;
    throw e;
  };
  proto.finish = guarded(function finish() {
    setup(this);
    let head = [];
    if (this.__high) {
      // A high surrogate ended the text: U+FFFD. Should that pass the cap, finish reports
      // ok: false with the text before it, as the Rust-side finish does.
      this.__high = '';
      try {
        head = this.feed('\ufffd');
      } catch (e) {
        if (!e?.deltas) throw e;
        head = e.deltas;
      }
    }
    const r = slowFinish.call(this);
    // The input buffer was given back (see `finish` in src/wasm/tags.rs).
    this.__cap = 0;
    keep(this, r.deltas);
    r.deltas = head.concat(r.deltas);
    // By block index (the keys of `r.blocks` are not in contract order: JS lists names of
    // digits first), as own properties (`__proto__` too), as `blocks_js` in src/wasm/tags.rs.
    r.blocks = Object.fromEntries(this.__types.map((type, i) => [type.slice(0, -'_delta'.length), this.__acc[i]]));
    return r;
  });
}
