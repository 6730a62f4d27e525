// The JS half of the fast `feed` path (src/wasm/fast.rs). Each entry imports this module
// once. It replaces `feed`/`finish`/`reset` of the streaming classes with versions that
// write the chunk straight into wasm memory and read the result straight out of it: a small
// feed then costs two calls with number arguments. Behaviour is identical to the Rust-side
// `feed` (which stays as the fallback for other chunk types): a UTF-16 high surrogate that
// ends a string chunk is held for the next chunk; a lone one becomes U+FFFD.
import { AnswerExtractor, SseDecoder, StreamRouter, __sr_memory } from '../dist/streamroute.js';
import { routedEventsFrom, sseEventsFrom } from '../dist/runtime.js';

const FAILED = 0xffffffff;
const encoder = new TextEncoder();
// ignoreBOM: a U+FEFF at the start of the text is content, not a byte order mark.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
let memory;
let u8 = new Uint8Array(0);
let u32 = new Uint32Array(0);

function views() {
  memory ??= __sr_memory();
  if (u8.buffer !== memory.buffer) {
    u8 = new Uint8Array(memory.buffer);
    u32 = new Uint32Array(memory.buffer);
  }
}

// Writes `chunk` into the machine's input buffer; returns the byte length, or -1 when the
// chunk is not a string or Uint8Array (the caller then takes the Rust-side path).
function write(machine, chunk) {
  if (typeof chunk === 'string') {
    if (machine.__high !== undefined && machine.__high !== '') {
      chunk = machine.__high + chunk;
      machine.__high = '';
    }
    let n = chunk.length;
    if (n === 0) return 0;
    const last = chunk.charCodeAt(n - 1);
    if (last >= 0xd800 && last < 0xdc00) {
      machine.__high = chunk[n - 1];
      chunk = chunk.slice(0, --n);
    }
    const cap = n * 3;
    const ptr = machine.__inPtr(cap);
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
  if (chunk instanceof Uint8Array) {
    let pre = 0;
    if (machine.__high) {
      machine.__high = '';
      pre = 3; // the held high surrogate had no low half: U+FFFD
    }
    const ptr = machine.__inPtr(chunk.length + pre);
    views();
    if (pre) u8.set([0xef, 0xbf, 0xbd], ptr);
    u8.set(chunk, ptr + pre);
    return chunk.length + pre;
  }
  return -1;
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

function patch(Class, readOut) {
  const proto = Class.prototype;
  const slowFeed = proto.feed;
  const slowFinish = proto.finish;
  const slowReset = proto.reset;
  proto.feed = function feed(chunk) {
    const len = write(this, chunk);
    if (len < 0) return slowFeed.call(this, chunk);
    const n = this.__feedIn(len);
    if (n === FAILED) throw this.__takeError();
    return readOut(this, n);
  };
  proto.finish = function finish() {
    if (this.__high) {
      this.__high = '';
      const head = this.feed('\ufffd');
      const tail = slowFinish.call(this);
      return typeof head === 'string' ? head + tail : head.concat(tail);
    }
    return slowFinish.call(this);
  };
  if (slowReset) {
    proto.reset = function reset() {
      this.__high = '';
      return slowReset.call(this);
    };
  }
}

patch(AnswerExtractor, (machine, n) => (n === 0 ? '' : readText(machine.__outPtr(), n)));

patch(SseDecoder, (machine, count) => {
  if (count === 0) return [];
  const info = (machine.__info ??= machine.__infoPtr() >>> 2);
  views();
  const p = u32[info];
  const lens = u32.subarray(u32[info + 2] >>> 2, (u32[info + 2] >>> 2) + 3 * count);
  return sseEventsFrom(decoder.decode(u8.subarray(p, p + u32[info + 1])), lens, count);
});

patch(StreamRouter, (machine, count) => {
  if (count === 0) return [];
  const info = (machine.__info ??= machine.__infoPtr() >>> 2);
  views();
  const p = u32[info];
  const q = u32[info + 2] >>> 2;
  return routedEventsFrom(decoder.decode(u8.subarray(p, p + u32[info + 1])), u32.subarray(q, q + u32[info + 3]));
});
