// SseDecoder from the packed package (the main entry's over wasm, the client entry's in
// JavaScript) against a plain model of the WHATWG "interpreting an
// event stream" algorithm, on random streams (every field form, every line ending, comments,
// NUL, partial and whole BOMs, multi-byte, invalid UTF-8 and lone surrogates), each fed under
// every chunking of helpers/chunking.mjs: bytes and strings, whole, one unit or byte at a
// time, random pieces that cut UTF-8 sequences, surrogate pairs and CRLF pairs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as main from 'streamroute';
import * as client from 'streamroute/client';
import { SEED, byteSplitings, feedAll, rng, splitings, stringSplitings } from './helpers/chunking.mjs';
import { randomStream } from './helpers/sse-streams.mjs';

const ENTRIES = [
  ['streamroute', main],
  ['streamroute/client', client],
];

/**
 * The standard's algorithm over the whole decoded text (its one leading BOM already stripped
 * by TextDecoder): { events, lastEventId, retry }.
 */
function model(text, flush) {
  const lines = text.split(/\r\n|\r|\n/);
  const tail = lines.pop(); // unterminated ('' when the text ends with a line break)
  if (flush && tail !== '') lines.push(tail);
  let data = '';
  let type = '';
  let idBuffer = '';
  let lastEventId = '';
  let retry;
  const events = [];
  const dispatch = () => {
    lastEventId = idBuffer;
    if (data !== '') events.push({ event: type || 'message', data: data.slice(0, -1), id: lastEventId });
    data = '';
    type = '';
  };
  for (const line of lines) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const c = line.indexOf(':');
    const name = c < 0 ? line : line.slice(0, c);
    let value = c < 0 ? '' : line.slice(c + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') data += value + '\n';
    else if (name === 'event') type = value;
    else if (name === 'id' && !value.includes('\0')) idBuffer = value;
    else if (name === 'retry' && /^[0-9]+$/.test(value)) retry = Number(value);
  }
  if (flush) dispatch();
  return { events, lastEventId, retry };
}

function decodeAll(sr, chunks, flush) {
  const d = new sr.SseDecoder({ flushOnFinish: flush });
  const events = feedAll(d, chunks);
  return { events, lastEventId: d.lastEventId, retry: d.retry };
}

for (const [entry, sr] of ENTRIES)
  test(`${entry}: random streams: the decoder matches a plain model of the standard at every chunking`, async () => {
    await sr.init();
    const next = rng(SEED ^ 0x55e);
    for (let n = 0; n < 300; n++) {
      const withBadBytes = n % 2 === 1;
      const input = randomStream(next, withBadBytes);
      // The text the standard's decoding step gives: TextDecoder replaces invalid sequences as
      // the standard's UTF-8 decode does, and (like the standard) strips one leading BOM.
      const text = withBadBytes ? new TextDecoder().decode(input) : new TextDecoder().decode(new TextEncoder().encode(input));
      for (const flush of [false, true]) {
        const want = model(text, flush);
        const cases = withBadBytes ? byteSplitings(input, SEED + n) : [...splitings(input, SEED + n), ...mixed(input, next)];
        for (const [label, chunks] of cases) {
          assert.deepEqual(
            decodeAll(sr, chunks, flush),
            want,
            `stream #${n} ${JSON.stringify(typeof input === 'string' ? input : Array.from(input))}, ${label}, flush ${flush} (STREAMROUTE_SEED=${SEED})`,
          );
        }
      }
    }
  });

/** Strings and bytes in one stream: long string pieces (the UTF-16 route) between byte pieces. */
function mixed(text, next) {
  const enc = new TextEncoder();
  const out = [];
  for (const max of [8, 100, 300]) {
    const chunks = [];
    for (let i = 0; i < text.length; ) {
      let end = Math.min(text.length, i + 1 + next(max));
      // A piece that goes in as bytes must not cut a surrogate pair.
      while (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end++;
      const piece = text.slice(i, end);
      chunks.push(next(2) ? piece : enc.encode(piece));
      i = end;
    }
    out.push([`mixed string and byte pieces <=${max}`, chunks]);
  }
  return out;
}

// Long string chunks go into wasm as UTF-16 (`ROUTE_UNITS`), where a line's stream offset is
// counted from the chunk's UTF-8 length; an error's offset (and the events before it) must be
// what the same text fed as bytes gives.
for (const [entry, sr] of ENTRIES)
  test(`${entry}: the offset of a line over the caps is the same for long string chunks and for bytes`, () => {
    const outcome = (chunks) => {
      const d = new sr.SseDecoder({ maxLineBytes: 200 });
      const events = [];
      try {
        for (const c of chunks) events.push(...d.feed(c));
        events.push(...d.finish());
        return { events };
      } catch (e) {
        return { events: [...events, ...(e.events ?? [])], code: e.code, offset: e.offset };
      } finally {
        d.free();
      }
    };
    const wide = ['a', '\u00e9', '\u4e2d', '\u{1F600}', ' '];
    for (let round = 0; round < 40; round++) {
      let lines = '';
      for (let k = 0; k < 30 + round; k++) lines += `data: ${wide.map((w, i) => w.repeat((k + i + round) % 9)).join('')}\n\n`;
      // An over-long line after them (its own characters of every width).
      const text = `${lines}data: ${'x\u00e9\u4e2d'.repeat(60 + round)}\n\n`;
      const want = outcome([Buffer.from(text)]);
      assert.ok(['sse_line_too_long', 'sse_event_too_large'].includes(want.code) && want.offset > 0, `round ${round}`);
      for (const [label, chunks] of stringSplitings(text, SEED + round)) {
        assert.deepEqual(outcome(chunks), want, `round ${round}: ${label}`);
      }
    }
  });

// String chunks take their own routes into wasm (boundary.js `Input#write`: UTF-8, ASCII with
// ranges, UTF-16 units): every feed must return (or throw) exactly what the same text fed as
// bytes returns at that feed, and the getters must see every chunk fed so far.
for (const [entry, sr] of ENTRIES)
  test(`${entry}: string chunks: each feed returns what the same bytes return, and the getters agree`, () => {
    const enc = new TextEncoder();
    const step = (d, chunk) => {
      try {
        return { events: d.feed(chunk) };
      } catch (e) {
        return { code: e.code, offset: e.offset, events: e.events };
      }
    };
    const end = (d) => {
      try {
        return { events: d.finish() };
      } catch (e) {
        return { code: e.code, offset: e.offset, events: e.events };
      }
    };
    const next = rng(SEED ^ 0x401d);
    for (let n = 0; n < 300; n++) {
      const text = randomStream(next, false);
      const caps = [{}, { maxLineBytes: 9 + next(30) }, { maxEventBytes: 9 + next(40) }][n % 3];
      for (const max of [1, 3, 8, 40, 300]) {
        // Pieces that never cut a surrogate pair (bytes cannot hold half of one).
        const pieces = [];
        for (let i = 0; i < text.length; ) {
          let e = Math.min(text.length, i + 1 + next(max));
          while (e < text.length && /[\uD800-\uDBFF]/.test(text[e - 1])) e++;
          pieces.push(text.slice(i, e));
          i = e;
        }
        for (const flushOnFinish of [false, true]) {
          const opts = { ...caps, flushOnFinish };
          const bytes = new sr.SseDecoder(opts);
          const strings = new sr.SseDecoder(opts);
          const asked = new sr.SseDecoder(opts);
          const label = `stream #${n} ${JSON.stringify(text)}, pieces <=${max}, ${JSON.stringify(opts)} (STREAMROUTE_SEED=${SEED})`;
          for (const [k, piece] of pieces.entries()) {
            const want = step(bytes, enc.encode(piece));
            assert.deepEqual(step(strings, piece), want, `${label}: feed ${k}`);
            assert.deepEqual(step(asked, piece), want, `${label}: feed ${k}, getters read`);
            const getters = (d) => [d.retry, d.lastEventId, d.pendingId];
            if (want.code) {
              assert.deepEqual(getters(asked), getters(bytes), `${label}: getters after the error`);
              break;
            }
            assert.deepEqual(getters(asked), getters(bytes), `${label}: getters after feed ${k}`);
          }
          assert.deepEqual(end(strings), end(bytes), `${label}: finish`);
          for (const d of [bytes, strings, asked]) d.free();
        }
      }
    }
  });

// `pendingId`: the id of the frame being read, in effect only at its blank line; after a frame
// over the cap, the id it gave before the line that broke the cap (lastEventId unchanged).
for (const [entry, sr] of ENTRIES)
  test(`${entry}: pendingId: the frame being read, and the one over the cap`, () => {
    const big = 'x'.repeat(40);
    const text = `id: 7\ndata: a\n\nid: 9\ndata: b\n\nid: 11\ndata: ${big}\n\n`;
    for (const [how, chunks] of splitings(text)) {
      const d = new sr.SseDecoder({ maxEventBytes: 16 });
      const seen = [];
      let error = null;
      for (const c of chunks) {
        try {
          for (const e of d.feed(c)) seen.push(e.id);
        } catch (e) {
          // The events the failing feed completed are on the error.
          for (const ev of e.events ?? []) seen.push(ev.id);
          error = e;
          break;
        }
      }
      assert.deepEqual(seen, ['7', '9'], how);
      assert.equal(error?.code, 'sse_event_too_large', how);
      assert.equal(d.lastEventId, '9', how);
      assert.equal(d.pendingId, '11', how);
      d.free();
    }
    const d = new sr.SseDecoder();
    assert.equal(d.pendingId, undefined);
    d.feed('id: 3\ndata: a\n');
    assert.deepEqual([d.pendingId, d.lastEventId], ['3', '']);
    d.feed('\n');
    assert.deepEqual([d.pendingId, d.lastEventId], [undefined, '3']);
    d.feed('id: 4\n');
    d.finish();
    assert.deepEqual([d.pendingId, d.lastEventId], [undefined, '3'], "an unterminated frame's id is dropped by finish");
    d.free();
  });
