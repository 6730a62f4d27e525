// The client entry's SseDecoder is JavaScript (pkg/entry/classes/decoder.js); every other
// entry's runs in wasm (src/sse/decoder.rs). The two must be one machine: here both read every
// bundled sample stream and the same random streams (every field form, line endings, BOMs, invalid UTF-8, lone surrogates,
// caps hit at every place) at every chunking of helpers/chunking.mjs, and each call's events
// or error (code, message, offset, `error.events`) and the getters after it are compared, as
// are the errors of bad options, bad chunks and calls after `free()`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'streamroute/client';
import * as sse from 'streamroute/sse';
import { SEED, byteSplitings, rng, splitings } from './helpers/chunking.mjs';
import { PIECES, randomStream } from './helpers/sse-streams.mjs';
import { SAMPLES } from './helpers/streams.mjs';

// Past 2^64 - 1 a retry saturates; the rest as the model test's streams.
const PIECES_AND_HUGE = [...PIECES, '99999999999999999999999'];

/** What a call gave: its events, or its error's code, message, offset and events. */
function outcome(call) {
  try {
    return { events: call() };
  } catch (e) {
    return { code: e.code, message: e.message, offset: e.offset, events: e.events, name: e.name };
  }
}

/** Every call's outcome and the getters after it, for `chunks` as two streams (a reconnection). */
function transcript(mod, options, chunks) {
  const d = new mod.SseDecoder(options);
  const out = [];
  const getters = () => [d.lastEventId, d.pendingId, d.retry];
  for (let round = 0; round < 2; round++) {
    for (const c of chunks)
      out.push(
        outcome(() => d.feed(c)),
        getters(),
      );
    out.push(
      outcome(() => d.finish()),
      getters(),
    );
  }
  d.free();
  return out;
}

/** The events of a stream, where and how a call failed, and the getters at the end. */
function summary(mod, options, chunks) {
  const d = new mod.SseDecoder(options);
  const events = [];
  const errors = [];
  const call = (k, f) => {
    const r = outcome(f);
    events.push(...r.events);
    if (r.code) errors.push(k, r);
  };
  chunks.forEach((c, k) => call(k, () => d.feed(c)));
  call('finish', () => d.finish());
  const end = [d.lastEventId, d.pendingId, d.retry];
  d.free();
  return { events, errors, end };
}

test('client SseDecoder (JavaScript) and the wasm SseDecoder: the same calls give the same results', async () => {
  await client.init();
  await sse.init();
  const next = rng(SEED ^ 0x5e5e);
  for (let n = 0; n < 240; n++) {
    const bytes = n % 2 === 1;
    const input = randomStream(next, bytes, PIECES_AND_HUGE);
    const length = bytes ? input.length : new TextEncoder().encode(input).length;
    const cap = () => 1 + next(Math.max(2, length));
    const options = [
      undefined,
      { flushOnFinish: true },
      { maxLineBytes: cap() },
      { maxEventBytes: cap(), flushOnFinish: next(2) === 1 },
      { maxLineBytes: cap(), maxEventBytes: cap(), flushOnFinish: true },
    ][n % 5];
    const cases = bytes ? byteSplitings(input, SEED + n) : splitings(input, SEED + n);
    for (const [label, chunks] of cases) {
      assert.deepEqual(
        transcript(client, options, chunks),
        transcript(sse, options, chunks),
        `stream #${n} ${JSON.stringify(bytes ? Array.from(input) : input)}, ${JSON.stringify(options)}, ${label} (STREAMROUTE_SEED=${SEED})`,
      );
    }
  }
});

function shared(text) {
  const bytes = new TextEncoder().encode(text);
  const view = new Uint8Array(new SharedArrayBuffer(bytes.length));
  view.set(bytes);
  return view;
}

test('client SseDecoder and the wasm one on every bundled sample stream, at every chunking and with caps hit', async () => {
  await client.init();
  await sse.init();
  for (const [n, s] of SAMPLES.entries()) {
    const cases = s.binary ? byteSplitings(s.bytes, SEED + n) : splitings(s.text, SEED + n);
    const half = Math.max(1, s.bytes.length >> 1);
    for (const options of [undefined, { maxLineBytes: 64 }, { maxEventBytes: half, flushOnFinish: true }]) {
      for (const [label, chunks] of cases) {
        assert.deepEqual(
          summary(client, options, chunks),
          summary(sse, options, chunks),
          `${s.file}, ${JSON.stringify(options)}, ${label} (STREAMROUTE_SEED=${SEED})`,
        );
      }
    }
  }
});

test('client SseDecoder: option errors, chunks of every kind and calls after free() as the wasm one', () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const options = [
    null,
    {},
    { maxLineBytes: 0 },
    { maxLineBytes: -1 },
    { maxLineBytes: 1.5 },
    { maxLineBytes: 2 ** 32 },
    { maxLineBytes: 2 ** 32 - 1 },
    { maxEventBytes: Number.NaN },
    { maxEventBytes: Number.POSITIVE_INFINITY },
    { maxEventBytes: '8' },
    { maxEventBytes: null, maxLineBytes: undefined },
    { flushOnFinish: 1 },
    { flushOnFinish: 'yes' },
    { flushOnFinish: [] },
    { flushOnFinish: {} },
    { other: 1 },
    { maxLineBytes: 1, other: 1 },
    {
      get maxLineBytes() {
        throw new Error('no');
      },
    },
    {
      get maxEventBytes() {
        throw 7;
      },
    },
    [],
    'options',
    5,
    true,
    () => {},
    Object.create({ maxLineBytes: 0 }),
    revoked.proxy,
  ];
  const made = (mod, o) => {
    try {
      new mod.SseDecoder(o).free();
      return 'made';
    } catch (e) {
      return { code: e.code, message: e.message };
    }
  };
  for (const [i, o] of options.entries()) assert.deepEqual(made(client, o), made(sse, o), `options #${i}`);

  const detached = new ArrayBuffer(4);
  structuredClone(detached, { transfer: [detached] });
  const chunks = [
    5,
    null,
    undefined,
    {},
    [1, 2],
    new ArrayBuffer(3),
    new DataView(new TextEncoder().encode('data: a\n\n').buffer),
    new Uint16Array([0x6164, 0x6174]),
    detached,
    new Uint8Array(0),
    // Shared memory (a browser's TextDecoder refuses to decode from it).
    shared('data: hi\n\n'),
  ];
  for (const c of chunks) {
    const feed = (mod) => {
      const d = new mod.SseDecoder();
      const r = outcome(() => d.feed(c));
      d.free();
      return r;
    };
    assert.deepEqual(feed(client), feed(sse), Object.prototype.toString.call(c));
  }

  for (const mod of [client, sse]) {
    const d = new mod.SseDecoder();
    d.free();
    d.free();
    for (const call of [() => d.feed('data: a\n\n'), () => d.finish(), () => d.lastEventId, () => d.pendingId, () => d.retry]) {
      assert.throws(call, (e) => e instanceof client.StreamrouteError && e.code === 'invalid_state');
    }
  }
  for (const mod of [client, sse]) {
    const d = new mod.SseDecoder();
    assert.equal(typeof d[Symbol.dispose], 'function');
    d[Symbol.dispose]();
    assert.throws(() => d.feed(''), { code: 'invalid_state' });
  }
});

test('client SseDecoder: what it keeps between chunks is its bytes, not an object per chunk or line', () => {
  // A line at the 1 MiB cap fed a byte at a time, then an event of 200,000 empty data lines:
  // kept as one growing array each, a few MiB; as a piece per chunk or line, over 100 MiB.
  const d = new client.SseDecoder();
  const before = process.memoryUsage().heapUsed;
  const byte = new Uint8Array([0x78]);
  d.feed('data: ');
  for (let i = 0; i < (1 << 20) - 6; i++) d.feed(byte);
  const line = process.memoryUsage().heapUsed - before;
  d.feed('\n');
  d.feed('data:\n'.repeat(200_000));
  const lines = process.memoryUsage().heapUsed - before;
  const events = d.feed('\n');
  assert.equal(events.length, 1);
  assert.equal(events[0].data.length, (1 << 20) - 6 + 200_000);
  assert.ok(line < 48 * 1024 * 1024 && lines < 64 * 1024 * 1024, `heap grew ${line} and ${lines} bytes`);
  d.free();
});

test("client SseDecoder: the default caps are buildInfo()'s, as for the wasm one", () => {
  const { sseMaxLineBytes: line, sseMaxEventBytes: event } = client.buildInfo().limits;
  assert.deepEqual(sse.buildInfo().limits, { sseMaxLineBytes: line, sseMaxEventBytes: event });
  const field = 'data: ';
  // A line at the cap and one past it; an event of lines under the line cap, at the event cap
  // and one past it (each line's LF but the last counts).
  const lineAt = `${field}${'x'.repeat(line - field.length)}\n\n`;
  const linePast = `${field}${'x'.repeat(line - field.length + 1)}\n\n`;
  const piece = line - field.length - 1;
  const count = Math.floor(event / (piece + 1));
  const rest = event - count * (piece + 1);
  const lines = (extra) => `${`${field}${'y'.repeat(piece)}\n`.repeat(count)}${field}${'z'.repeat(rest + extra)}\n\n`;
  for (const [label, text, ok] of [
    ['a line at the cap', lineAt, true],
    ['a line past the cap', linePast, false],
    ['an event at the cap', lines(0), true],
    ['an event past the cap', lines(1), false],
  ]) {
    const got = (mod) => summary(mod, undefined, [text]);
    const want = got(sse);
    assert.equal(want.errors.length === 0, ok, label);
    assert.deepEqual(got(client), want, label);
  }
});
