// SseDecoder in JavaScript, for the client entry: the machine of src/sse/decoder.rs (the WHATWG
// "Interpreting an event stream" algorithm over bytes) line for line, so that a page that only
// reads a wire loads no SSE code in its .wasm. Same events, caps, error codes, messages and
// byte offsets as the wasm class (classes/sse.js) at every chunking; tests/js/sse-js.test.mjs
// feeds both every bundled sample stream and random ones, and compares every call.
//
// A string chunk is read as its UTF-8 (`TextEncoder`: a lone surrogate is U+FFFD), after the
// surrogate carry of boundary.js; bytes as they are. Lines are found in the bytes and a field
// is decoded (U+FFFD for malformed UTF-8, as `from_utf8_lossy`) once its line is complete.
// What it keeps between chunks: the unterminated line (at most `maxLineBytes`) and the event's
// data (at most `maxEventBytes`), as copies.
import { badChunk, chunkView, partial, REPLACEMENT, takeLone, takeText } from '../boundary.js';
import { disposable, requireInit } from '../handled.js';
import { misuse, StreamrouteError } from '../runtime.js';

const LF = 10;
const CR = 13;
const BOM = [0xef, 0xbb, 0xbf];
const encoder = new TextEncoder();
// The UTF-8 of a string chunk is written here (reused up to this size; nothing refers to it
// after the call).
const SCRATCH_MAX = 1 << 16;
let scratch = new Uint8Array(256);
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const decode = (bytes) => decoder.decode(bytes);
// A field kept as its string (from an ASCII string chunk) or as bytes.
const asText = (v) => (typeof v === 'string' ? v : decode(v));
// What `field` found besides a `data` value's start: nothing to keep, or data over the cap.
const DONE = -1;
const TOO_LARGE = -2;
// Before a stream's first byte that is not a BOM (the BOM bytes held: 0 to 2), then lines.
const LINES = 3;
const NAMES = ['maxLineBytes', 'maxEventBytes', 'flushOnFinish'];

const NL = new Uint8Array([LF]);

/**
 * Bytes kept between chunks, in one array that doubles (a line fed a byte at a time costs no
 * object per byte); past 64 KiB it is let go when emptied.
 */
class Kept {
  b = new Uint8Array(0);
  n = 0;
  add(src) {
    const need = this.n + src.length;
    if (need > this.b.length) {
      const b = new Uint8Array(Math.max(need, 2 * this.b.length, 64));
      b.set(this.b.subarray(0, this.n));
      this.b = b;
    }
    this.b.set(src, this.n);
    this.n = need;
  }
  view() {
    return this.b.subarray(0, this.n);
  }
  clear() {
    this.n = 0;
    if (this.b.length > 1 << 16) this.b = new Uint8Array(0);
  }
}

/** Whether `line[a, a + n)` is the field name `s`. */
function named(line, a, n, s) {
  if (n !== s.length) return false;
  for (let k = 0; k < n; k++) if (line[a + k] !== s.charCodeAt(k)) return false;
  return true;
}

/** Whether two byte arrays hold the same bytes. */
function same(x, y) {
  if (x.length !== y.length) return false;
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return false;
  return true;
}

/** What kind of value `v` is, as the wasm options reader says it. */
function kind(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return `boolean \`${v}\``;
  if (typeof v === 'number') return 'a number';
  if (typeof v === 'string') return 'a string';
  if (isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : 'another kind of value';
}

// `Array.isArray`, false where it throws (a revoked Proxy), as the wasm reader takes it.
function isArray(v) {
  try {
    return Array.isArray(v);
  } catch {
    return false;
  }
}

const optionError = (message) => new StreamrouteError('invalid_option', `invalid options: ${message}`);

/** The options, read as the wasm reader reads `SseDecoderOptions` (de.rs `options!`). */
function readOptions(o) {
  const out = { maxLineBytes: 1 << 20, maxEventBytes: 8 << 20, flushOnFinish: false };
  if (o === undefined || o === null) return out;
  if (typeof o !== 'object' || isArray(o)) throw optionError(`invalid type: ${kind(o)}, expected struct SseDecoderOptions`);
  const input = (m) => new StreamrouteError('invalid_input', `invalid options: ${m}`);
  let keys;
  try {
    keys = Object.keys(o);
  } catch (e) {
    throw input(threw("the options' keys", e));
  }
  for (const k of keys) if (!NAMES.includes(k)) throw input(`unknown option "${k}"`);
  for (const k of NAMES) {
    let v;
    try {
      v = o[k];
    } catch (e) {
      throw input(threw(`"${k}"`, e));
    }
    if (v === undefined || v === null) continue;
    if (k === 'flushOnFinish') {
      if (typeof v !== 'boolean') throw optionError(`${k}: invalid type: ${kind(v)}, expected a boolean`);
    } else if (typeof v !== 'number') {
      throw optionError(`${k}: invalid type: ${kind(v)}, expected f64`);
    } else if (!Number.isInteger(v) || v < 1 || v > 0xffffffff) {
      throw new StreamrouteError('invalid_option', `${k} must be a positive integer, got ${v}`);
    }
    out[k] = v;
  }
  return out;
}

function threw(what, e) {
  let m;
  try {
    m = e?.message;
  } catch {
    // A message getter that throws: none.
  }
  return typeof m === 'string' ? `reading ${what} threw: ${m}` : `reading ${what} threw`;
}

export class SseDecoder {
  #o;
  #freed = false;
  /** The decoder's error once a cap was hit: every later call throws it again. */
  #failure = null;
  #state = 0;
  #afterCr = false;
  /** Bytes consumed from the current stream (for error offsets). */
  #pos = 0;
  /** The unterminated line carried over, and where it starts in the stream. */
  #line = new Kept();
  #lineStart = 0;
  /** The event's data lines, each followed by LF. */
  #data = new Kept();
  /**
   * The event's one data line while it is `[#rangeFrom, #rangeTo)` of the chunk being read, not
   * copied (-1: none): an event whose data is one line of the chunk is decoded (or, for an
   * ASCII string chunk, sliced from the string) straight from it.
   */
  #rangeFrom = -1;
  #rangeTo = 0;
  #chunk = null;
  #text = null;
  #event = null;
  /** The last event name decoded, and its bytes. */
  #eventName = '';
  #eventBytes = null;
  #id = null;
  #lastId = '';
  #retry = undefined;
  /** The surrogate carry of string chunks (boundary.js `takeText`). */
  #carry = { high: '' };

  /** `new SseDecoder({ flushOnFinish?, maxLineBytes?, maxEventBytes? })`. */
  constructor(options) {
    requireInit();
    this.#o = readOptions(options);
  }

  feed(chunk) {
    this.#live();
    let bytes;
    let text = null;
    if (typeof chunk === 'string') {
      chunk = takeText(this.#carry, chunk);
      if (scratch.length < 3 * chunk.length) scratch = new Uint8Array(Math.max(3 * chunk.length, 2 * scratch.length));
      bytes = scratch.subarray(0, encoder.encodeInto(chunk, scratch).written);
      // All ASCII: every byte offset is the string's own.
      if (bytes.length === chunk.length) text = chunk;
    } else {
      let view = chunkView(chunk);
      if (view === null) throw badChunk();
      // Browsers' TextDecoder refuses views of shared memory; the data read from the chunk is
      // decoded from it.
      if (typeof SharedArrayBuffer === 'function' && view.buffer instanceof SharedArrayBuffer) view = view.slice();
      bytes = this.#carried(view);
    }
    const out = [];
    try {
      this.#feed(bytes, out, text);
    } catch (e) {
      throw partial(e, 'events', out);
    } finally {
      if (scratch.length > SCRATCH_MAX) scratch = new Uint8Array(256);
    }
    return out;
  }

  finish() {
    this.#live();
    const out = [];
    try {
      if (this.#carry.high !== '') this.#feed(this.#carried(new Uint8Array(0)), out, null);
      this.#finish(out);
    } catch (e) {
      throw partial(e, 'events', out);
    }
    return out;
  }

  /** Frees the decoder: later calls throw `invalid_state`, as for the wasm classes. */
  free() {
    this.#freed = true;
  }

  /** The last event ID string (`""` when none). */
  get lastEventId() {
    this.#live();
    return this.#lastId;
  }

  /** The id the frame being read gave, not yet in effect (`undefined`: none). */
  get pendingId() {
    this.#live();
    return this.#id === null ? undefined : asText(this.#id);
  }

  /** The last valid reconnection time in ms, `undefined` before any. */
  get retry() {
    this.#live();
    return this.#retry;
  }

  #live() {
    if (this.#freed) throw misuse('null pointer passed to rust');
  }

  /** `view`, after U+FFFD for a held high surrogate that no low one followed. */
  #carried(view) {
    if (!takeLone(this.#carry)) return view;
    const out = new Uint8Array(view.length + 3);
    out.set(REPLACEMENT);
    out.set(view, 3);
    return out;
  }

  #feed(chunk, out, text) {
    let from = 0;
    for (;;) {
      if (this.#failure) throw this.#again();
      if (this.#state === LINES) {
        if (this.#afterCr) {
          if (from === chunk.length) return;
          this.#afterCr = false;
          if (chunk[from] === LF) {
            this.#pos++;
            from++;
          }
          continue;
        }
        return this.#lines(chunk, from, out, text);
      }
      // At the start of the stream, this many bytes of a BOM held.
      const held = this.#state;
      if (from === chunk.length) return;
      if (chunk[from] === BOM[held]) {
        this.#pos++;
        from++;
        this.#state = held === 2 ? LINES : held + 1;
      } else {
        this.#unhold(out);
      }
    }
  }

  /** The BOM bytes held, not a BOM after all: ordinary (invalid) content. */
  #unhold(out) {
    const held = this.#state;
    this.#state = LINES;
    this.#pos -= held;
    this.#lines(new Uint8Array(BOM.slice(0, held)), 0, out, null);
  }

  #finish(out) {
    if (this.#state > 0 && this.#state < LINES) this.#unhold(out);
    if (this.#failure) throw this.#again();
    if (this.#o.flushOnFinish) {
      const line = this.#line.view();
      const r = line.length ? this.#field(line, 0, line.length) : DONE;
      if (r === TOO_LARGE) throw this.#tooLarge();
      if (r >= 0) this.#dataLine(line, r, line.length);
      this.#dispatch(out);
    }
    // An `id` of a discarded (unterminated) block never takes effect.
    this.#id = null;
    this.#line.clear();
    this.#data.clear();
    this.#event = null;
    this.#pos = 0;
    this.#state = 0;
    this.#afterCr = false;
  }

  #again() {
    const f = this.#failure;
    return new StreamrouteError(f.code, f.message, f.offset);
  }

  #fail(message, offset) {
    return (this.#failure = new StreamrouteError('sse_event_too_large', message, offset));
  }

  #lineTooLong() {
    const max = this.#o.maxLineBytes;
    return this.#fail(`SSE line longer than ${max} bytes`, this.#lineStart + max);
  }

  #tooLarge() {
    return this.#fail(`SSE event data longer than ${this.#o.maxEventBytes} bytes`, this.#lineStart);
  }

  /**
   * The line loop from `from` of `chunk` (`text`: the chunk as a string when it is all ASCII).
   * Every byte is looked at a constant number of times. A pending data range is copied out at
   * the end: nothing refers to the chunk after the call.
   */
  #lines(chunk, from, out, text) {
    this.#chunk = chunk;
    this.#text = text;
    try {
      this.#read(chunk, from, out);
    } finally {
      if (this.#rangeFrom >= 0) this.#keepRange();
      this.#chunk = this.#text = null;
    }
  }

  #keepRange() {
    this.#data.add(this.#chunk.subarray(this.#rangeFrom, this.#rangeTo));
    this.#data.add(NL);
    this.#rangeFrom = -1;
  }

  #read(chunk, from, out) {
    const n = chunk.length;
    const base = this.#pos - from;
    const max = this.#o.maxLineBytes;
    // The next LF and CR at or after `i` (`n`: none), found again only once passed.
    let lf = -1;
    let cr = -1;
    let i = from;
    while (i < n) {
      if (lf < i) lf = chunk.indexOf(LF, i) >>> 0;
      if (cr < i) cr = chunk.indexOf(CR, i) >>> 0;
      const p = Math.min(lf, cr, n);
      if (p === n) {
        if (this.#line.n === 0) this.#lineStart = base + i;
        if (this.#line.n + n - i > max) throw this.#lineTooLong();
        this.#line.add(chunk.subarray(i));
        this.#pos = base + n;
        return;
      }
      if (this.#line.n === 0) {
        if (p - i > max) {
          this.#lineStart = base + i;
          throw this.#lineTooLong();
        }
        if (p === i) this.#dispatch(out);
        else {
          const r = this.#field(chunk, i, p);
          if (r === TOO_LARGE) {
            this.#lineStart = base + i;
            throw this.#tooLarge();
          }
          if (r >= 0) this.#dataLine(chunk, r, p);
        }
      } else {
        // The end of a line carried from earlier chunks (`#lineStart` is set).
        if (this.#line.n + p - i > max) throw this.#lineTooLong();
        this.#line.add(chunk.subarray(i, p));
        const line = this.#line.view();
        const r = this.#field(line, 0, line.length);
        if (r === TOO_LARGE) throw this.#tooLarge();
        if (r >= 0) this.#dataLine(line, r, line.length);
        this.#line.clear();
      }
      i = p + 1;
      if (chunk[p] === CR) {
        if (i === n) this.#afterCr = true;
        else if (chunk[i] === LF) i++;
      }
    }
    this.#pos = base + n;
  }

  /**
   * Reads the non-empty line `[a, b)` of `line`: `DONE`, or for a `data` line where its value
   * starts (`TOO_LARGE` when it would take the event over its cap).
   */
  #field(line, a, b) {
    if (line[a] === 58) return DONE; // a comment
    let c = a;
    while (c < b && line[c] !== 58) c++;
    let from = c;
    if (c < b) from += line[c + 1] === 32 && c + 1 < b ? 2 : 1;
    const n = c - a;
    if (named(line, a, n, 'data')) return this.#dataBytes() + b - from > this.#o.maxEventBytes ? TOO_LARGE : from;
    if (named(line, a, n, 'event')) this.#event = line.slice(from, b);
    else if (named(line, a, n, 'id')) {
      const value = line.subarray(from, b);
      if (!value.includes(0)) this.#id = line === this.#chunk && this.#text !== null ? this.#text.slice(from, b) : value.slice();
    } else if (named(line, a, n, 'retry') && from < b) {
      let digits = true;
      for (let k = from; k < b; k++) digits &&= line[k] >= 48 && line[k] <= 57;
      // As a u64 that saturates, then the nearest number (Rust's `as f64`).
      if (digits) {
        const ms = BigInt(decode(line.subarray(from, b)));
        this.#retry = Number(ms > 0xffffffffffffffffn ? 0xffffffffffffffffn : ms);
      }
    }
    return DONE;
  }

  /** The event's data so far (each line with the LF after it), pending range included. */
  #dataBytes() {
    return this.#data.n + (this.#rangeFrom < 0 ? 0 : this.#rangeTo - this.#rangeFrom + 1);
  }

  #dataLine(line, from, to) {
    if (line === this.#chunk && this.#dataBytes() === 0) {
      this.#rangeFrom = from;
      this.#rangeTo = to;
    } else {
      if (this.#rangeFrom >= 0) this.#keepRange();
      this.#data.add(line.subarray(from, to));
      this.#data.add(NL);
    }
  }

  #dispatch(out) {
    if (this.#id !== null) {
      this.#lastId = asText(this.#id);
      this.#id = null;
    }
    const event = this.#event;
    this.#event = null;
    if (this.#dataBytes() === 0) return;
    let data;
    if (this.#rangeFrom >= 0) {
      const [a, b] = [this.#rangeFrom, this.#rangeTo];
      this.#rangeFrom = -1;
      data = this.#text === null ? decode(this.#chunk.subarray(a, b)) : this.#text.slice(a, b);
    } else data = decode(this.#data.b.subarray(0, this.#data.n - 1)); // without the last LF
    this.#data.clear();
    out.push({ event: event?.length ? this.#name(event) : 'message', data, id: this.#lastId });
  }

  /** An event name's text: the last one's when its bytes are the same. */
  #name(bytes) {
    const last = this.#eventBytes;
    if (last === null || !same(last, bytes)) {
      this.#eventName = decode(bytes);
      this.#eventBytes = bytes;
    }
    return this.#eventName;
  }
}
disposable(SseDecoder);
