// The wire profiles of the client half, hardened: every profile round-trips every bundled
// sample at every chunking (toSse from 'streamroute', fromSse from 'streamroute/client'); a
// frame over maxEventBytes is one wire_invalid and skipped through its blank line, whatever
// its tail holds and wherever the chunks are cut; a wire that is not the profile's is one
// wire_invalid and a done {ok: false}; frame members named __proto__, constructor and
// prototype change no event; hostile values never break a reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as main from 'streamroute';
import * as client from 'streamroute/client';
import { SEED, rng, splitings } from './helpers/chunking.mjs';
import { NONCE, SAMPLES, coalesce } from './helpers/streams.mjs';
import { PROFILES, casesOf, collect, streamOf, wireText, withRun } from './helpers/client-roundtrip.mjs';
import { listen } from './helpers/runtimes.mjs';
import { typecheck } from './helpers/typecheck.mjs';

// toSse writes, the client entry reads.
const sr = { toSse: main.toSse, StreamRouter: main.StreamRouter, fromSse: client.fromSse, StreamState: client.StreamState };
const { fromSse, StreamState } = client;
const CASES = casesOf(sr, SAMPLES, NONCE);

/** What fromSse(profile, options) reads from `chunks`. */
const read = (profile, chunks, options) => collect(streamOf([...chunks]).pipeThrough(fromSse(profile, options)));

const frames = (list) =>
  list
    .map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
    .join('');

/**
 * The events as the wire gives them back: a `done` with toSse's defaults (the artifact
 * stream's carries only the payload), in the ai-sdk wire errors held to just before it, in the
 * ag-ui wire each with its run's ids.
 */
const expected = (profile, list) => {
  const events = withRun(
    profile,
    list.map((e) => (e.type === 'done' ? { ok: true, parse_ok: true, finish_reason: null, ...e } : e)),
  );
  return profile === 'ai-sdk'
    ? [
        ...events.filter((e) => e.type !== 'error' && e.type !== 'done'),
        ...events.filter((e) => e.type === 'error'),
        ...events.filter((e) => e.type === 'done'),
      ]
    : events;
};

for (const profile of PROFILES) {
  test(`round trip, ${profile}: every sample's routed events → toSse → fromSse at every chunking are the same events`, async () => {
    let compared = 0;
    for (const [name, events] of CASES) {
      const want = coalesce(expected(profile, events));
      const text = await wireText(sr, events, profile);
      for (const [label, chunks] of splitings(text)) {
        const got = await read(profile, chunks);
        assert.deepEqual(coalesce(got), want, `${name} ${label} (seed ${SEED})`);
        compared++;
      }
      assert.ok(!(await read(profile, [text])).some((e) => e.code === 'wire_invalid'), name);
    }
    assert.equal(compared, CASES.length * splitings('x').length);
  });
}

// ---------------------------------------------------------------------------------------
// Frame caps

const LINE_ENDS = { LF: '\n', CR: '\r', CRLF: '\r\n' };

/** `text` with every LF turned into `eol`. */
const withEol = (text, eol) => text.replaceAll('\n', eol);

/**
 * Per profile: [an oversized frame whose tail lines try to inject an answer, the real frames
 * after it, the texts the real frames give]. The huge line is `size` bytes of data.
 */
function injection(profile, size) {
  const huge = 'x'.repeat(size);
  const inject = {
    planner: 'event: llm_stream_chunk\ndata: {"text":"INJECT","phase":"answer","channel":"answer"}\n',
    tagged: 'event: user_delta\ndata: {"text":"INJECT","source":"answer"}\n',
    'ai-sdk': 'data: {"type":"text-delta","id":"t","delta":"INJECT"}\n',
    'ag-ui': 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"t","delta":"INJECT"}\n',
  }[profile];
  const head = {
    planner: 'event: llm_stream_chunk\n',
    tagged: 'event: user_delta\n',
    'ai-sdk': '',
    'ag-ui': '',
  }[profile];
  const real = {
    planner: frames([['llm_stream_chunk', { text: 'before ', phase: 'answer', channel: 'answer' }]]),
    tagged: frames([['user_delta', { text: 'before ', source: 'answer' }]]),
    'ai-sdk': frames([
      [null, { type: 'start' }],
      [null, { type: 'text-start', id: 't' }],
      [null, { type: 'text-delta', id: 't', delta: 'before ' }],
    ]),
    'ag-ui': frames([
      [null, { type: 'RUN_STARTED', threadId: 'th', runId: 'r' }],
      [null, { type: 'TEXT_MESSAGE_START', messageId: 't', role: 'assistant' }],
      [null, { type: 'TEXT_MESSAGE_CONTENT', messageId: 't', delta: 'before ' }],
    ]),
  }[profile];
  const after = {
    planner: frames([
      ['llm_stream_chunk', { text: 'after', phase: 'answer', channel: 'answer' }],
      ['done', { metadata: { ok: true } }],
    ]),
    tagged: frames([
      ['user_delta', { text: 'after', source: 'answer' }],
      ['done', { ok: true }],
    ]),
    'ai-sdk': frames([
      [null, { type: 'text-delta', id: 't', delta: 'after' }],
      [null, { type: 'finish' }],
      [null, '[DONE]'],
    ]),
    'ag-ui': frames([
      [null, { type: 'TEXT_MESSAGE_CONTENT', messageId: 't', delta: 'after' }],
      [null, { type: 'TEXT_MESSAGE_END', messageId: 't' }],
      [null, { type: 'RUN_FINISHED', threadId: 'th', runId: 'r' }],
    ]),
  }[profile];
  // The tail of the oversized frame: an injected frame in every form a decoder that lost its
  // place could take for a frame of its own.
  const tail = `${inject}data: {"text":"INJECT"}\nid: 999\n: comment\n${inject}`;
  return `${real}${head}data: ${huge}\n${tail}\n${after}`;
}

test('a frame over maxEventBytes is one wire_invalid and skipped through its blank line: no injection from its tail, at every chunking and line end', async () => {
  const cap = 256;
  for (const profile of PROFILES) {
    for (const [eolName, eol] of Object.entries(LINE_ENDS)) {
      // A huge line (the line cap), a line just over the event cap, and a line of multi-byte text.
      for (const size of [4 * cap, cap + 1]) {
        const text = withEol(injection(profile, size), eol);
        for (const [label, chunks] of splitings(text)) {
          const events = await read(profile, chunks, { maxEventBytes: cap });
          const where = `${profile} ${eolName} ${size} ${label}`;
          assert.equal(events.filter((e) => e.code === 'wire_invalid').length, 1, `${where}: ${JSON.stringify(events)}`);
          assert.match(events.find((e) => e.code === 'wire_invalid').message, /sse_event_too_large/, where);
          assert.ok(!JSON.stringify(events).includes('INJECT'), `${where}: ${JSON.stringify(events)}`);
          const answer = events
            .filter((e) => e.type === 'answer_delta')
            .map((e) => e.text)
            .join('');
          assert.equal(answer, 'before after', where);
          assert.equal(events.at(-1).type, 'done', where);
          assert.equal(events.at(-1).ok, true, where);
        }
      }
    }
  }
});

test('the event cap hit by many data lines, a comment line over the cap, and multi-byte text: skipped the same way', async () => {
  const cap = 64;
  const real = (text) => frames([['user_delta', { text }]]);
  const cases = [
    ['many data lines', `event: user_delta\n${'data: {"text":"INJECT"}\n'.repeat(10)}\n`],
    ['a comment over the cap', `: ${'c'.repeat(500)}\nevent: user_delta\ndata: {"text":"INJECT"}\n\n`],
    ['an id line over the cap', `id: ${'9'.repeat(500)}\nevent: user_delta\ndata: {"text":"INJECT"}\n\n`],
    ['multi-byte text', `event: user_delta\ndata: {"text":"${'é😀'.repeat(40)}"}\ndata: {"text":"INJECT"}\n\n`],
  ];
  for (const [name, bad] of cases) {
    for (const eol of Object.values(LINE_ENDS)) {
      const text = withEol(`${real('a')}${bad}${real('b')}${bad}${bad}${real('c')}`, eol);
      for (const [label, chunks] of splitings(text)) {
        const events = await read('tagged', chunks, { maxEventBytes: cap });
        assert.deepEqual(
          events.map((e) => e.text ?? e.code),
          ['a', 'wire_invalid', 'b', 'wire_invalid', 'wire_invalid', 'c'],
          `${name} ${JSON.stringify(eol)} ${label}`,
        );
      }
    }
  }
});

test('a frame up to maxEventBytes is read whole whatever its line length; one byte more is wire_invalid', async () => {
  const cap = 4096;
  // The data of the frame is exactly `n` bytes.
  const frame = (n) => {
    const pad = n - JSON.stringify({ text: '' }).length;
    return `event: user_delta\ndata: ${JSON.stringify({ text: 'y'.repeat(pad) })}\n\n`;
  };
  for (const [n, want] of [
    [cap, 'text'],
    [cap + 1, 'wire_invalid'],
  ]) {
    const text = frame(n) + frames([['done', { ok: true }]]);
    for (const [label, chunks] of splitings(text)) {
      const events = await read('tagged', chunks, { maxEventBytes: cap });
      assert.deepEqual(
        events.map((e) => e.code ?? (e.text === undefined ? e.type : 'text')),
        [want, 'done'],
        `${n} ${label}`,
      );
    }
  }
  // The default cap (8 MiB): a 3 MiB line (past the decoder's default line cap of 1 MiB).
  const big = 'z'.repeat(3 << 20);
  const text = frames([
    ['user_delta', { text: big }],
    ['done', { ok: true }],
  ]);
  const bytes = new TextEncoder().encode(text);
  for (const chunks of [
    [text],
    [bytes],
    Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536)),
  ]) {
    const events = await read('tagged', chunks);
    assert.equal(events.length, 2);
    assert.equal(events[0].text, big);
  }
  assert.throws(
    () => fromSse('tagged', { maxEventBytes: 0 }),
    (e) => e.code === 'invalid_option',
  );
  assert.throws(
    () => fromSse('tagged', { maxEventBytes: 1.5 }),
    (e) => e.code === 'invalid_option',
  );
  assert.throws(
    () => fromSse('tagged', { maxEventBytes: 64, maxEventByte: 1 }),
    (e) => e.code === 'invalid_input' && /maxEventByte/.test(e.message),
  );
  assert.throws(
    () => fromSse('xml', { nonsense: 1 }),
    (e) => e.code === 'invalid_option',
  );
  for (const o of [undefined, null, {}, { maxEventBytes: undefined }, { maxEventBytes: null }]) fromSse('planner', o);
});

test('the skip survives a CR at a chunk end followed by an LF, a BOM, and a stream that ends inside the skipped frame', async () => {
  const cap = 32;
  const bad = `event: user_delta\ndata: ${'q'.repeat(100)}\r`;
  // The frame's blank line is a CR at the end of one chunk and an LF at the start of the next:
  // the LF belongs to the CR, it is no second blank line.
  let events = await read('tagged', [bad, '\r', '\nevent: user_delta\ndata: {"text":"ok"}\n\n'], { maxEventBytes: cap });
  assert.deepEqual(
    events.map((e) => e.text ?? e.code),
    ['wire_invalid', 'ok'],
  );
  events = await read('tagged', [`\ufeff${bad}`, '\n\r\ndata: {"text":"INJECT"}\n\nevent: user_delta\ndata: {"text":"ok"}\n\n'], {
    maxEventBytes: cap,
  });
  assert.deepEqual(
    events.map((e) => e.text ?? e.code),
    ['wire_invalid', 'ok'],
    JSON.stringify(events),
  );
  events = await read('tagged', ['event: user_delta\ndata: {"text":"a"}\n\n', bad, 'data: {"text":"INJECT"}\n'], { maxEventBytes: cap });
  assert.deepEqual(
    events.map((e) => e.text ?? e.code),
    ['a', 'wire_invalid'],
  );
  // A surrogate pair cut between string chunks around a skip.
  events = await read(
    'tagged',
    [
      'event: user_delta\ndata: {"text":"\ud83d',
      '\ude00"}\n\n',
      bad,
      '\n',
      '\r\n',
      'event: user_delta\ndata: {"text":"\ud83d',
      '\ude01"}\n\n',
    ],
    { maxEventBytes: cap },
  );
  assert.deepEqual(
    events.map((e) => e.text ?? e.code),
    ['😀', 'wire_invalid', '😁'],
  );
});

/**
 * A random tagged stream around the cap: frames of one or several data lines (JSON cut where
 * whitespace may go), some over the cap, comments, ids, pings, every line end; and what a
 * decoder reading it whole gives, frame by frame (the text, or `wire_invalid` for a frame over
 * the cap or with a line over the line cap).
 */
function capStream(next, cap) {
  const enc = new TextEncoder();
  const eols = ['\n', '\r', '\r\n'];
  // A line end after a CR is never an LF alone (CR LF would be one line end).
  let last = '';
  const eol = () => (last = last === '\r' ? eols[2 - next(2)] : eols[next(3)]);
  const alphabet = ['a', 'b', 'é', '😀', ' ', '"'];
  let text = '';
  const want = [];
  for (let f = 0, n = 1 + next(12); f < n; f++) {
    let body = '';
    for (let i = 0, len = next(next(4) === 0 ? 3 * cap : cap / 2); i < len; i++) body += alphabet[next(alphabet.length)];
    const json = JSON.stringify({ text: body });
    // Cut into data lines after the colon and inside no string: `{"text":` and the rest.
    const lines = next(2) ? [json] : ['{"text":', JSON.stringify(body) + '}'];
    const data = lines.join('\n');
    const over = enc.encode(data).length > cap || lines.some((l) => enc.encode(`data: ${l}`).length > cap + 64);
    if (next(3) === 0) text += `: ${'c'.repeat(next(10))}${eol()}`;
    if (next(3) === 0) text += `id: ${f}${eol()}`;
    text += `event: user_delta${eol()}`;
    for (const l of lines) text += `data: ${l}${eol()}`;
    if (over && next(2)) text += `data: {"text":"INJECT"}${eol()}`;
    text += eol();
    if (next(4) === 0) text += `event: ping${eol()}data: {}${eol()}${eol()}`;
    want.push(over ? 'wire_invalid' : body);
  }
  return { text, want };
}

test('random streams around the cap: fromSse gives what a whole read gives, at every chunking', async () => {
  const cap = 48;
  const next = rng(SEED);
  for (let round = 0; round < 60; round++) {
    const { text, want } = capStream(next, cap);
    for (const [label, chunks] of splitings(text, SEED + round)) {
      const events = await read('tagged', chunks, { maxEventBytes: cap });
      const got = events.map((e) => e.text ?? e.code);
      assert.deepEqual(got, want, `round ${round} ${label} (seed ${SEED}): ${JSON.stringify(text)}`);
    }
  }
});

test('connectSse with a profile: the frame cap, the skip and maxEventBytes; without one, maxEventBytes caps the decoder', async () => {
  const cap = 256;
  const text = injection('planner', 3 * cap);
  const bytes = new TextEncoder().encode(text);
  const next = rng(SEED);
  const server = await listen((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Written in random pieces, so the skip meets every kind of cut.
    let i = 0;
    const write = () => {
      if (i >= bytes.length) return res.end();
      const n = 1 + next(40);
      res.write(bytes.subarray(i, i + n));
      i += n;
      setImmediate(write);
    };
    write();
  });
  try {
    for (const connectSse of [main.connectSse, client.connectSse]) {
      const got = [];
      for await (const e of connectSse(`${server.origin}/`, {}, { profile: 'planner', maxEventBytes: cap })) got.push(e);
      assert.equal(got.filter((e) => e.code === 'wire_invalid').length, 1, `seed ${SEED}`);
      assert.ok(!JSON.stringify(got).includes('INJECT'), `seed ${SEED}`);
      assert.equal(
        got
          .filter((e) => e.type === 'answer_delta')
          .map((e) => e.text)
          .join(''),
        'before after',
      );
      // The default cap reads the frame whole: its data (every data line) is no JSON.
      const whole = [];
      for await (const e of connectSse(`${server.origin}/`, {}, { profile: 'planner' })) whole.push(e);
      const invalid = whole.filter((e) => e.code === 'wire_invalid');
      assert.equal(invalid.length, 1);
      assert.match(invalid[0].message, /^llm_stream_chunk frame: data is not JSON/);
      assert.equal(
        whole
          .filter((e) => e.type === 'answer_delta')
          .map((e) => e.text)
          .join(''),
        'before after',
      );
      await assert.rejects(
        async () => {
          for await (const e of connectSse(`${server.origin}/`, {}, { profile: 'planner', maxEventBytes: -1 })) void e;
        },
        (e) => e.code === 'invalid_option',
      );
    }
    // Without a profile, an event over the cap is the decoder's error; under it, read whole.
    await assert.rejects(
      async () => {
        for await (const e of main.connectSse(`${server.origin}/`, {}, { maxEventBytes: cap })) void e;
      },
      (e) => e.code === 'sse_event_too_large',
    );
    const events = [];
    for await (const e of main.connectSse(`${server.origin}/`, {}, { maxEventBytes: 8 * cap })) events.push(e);
    assert.ok(events.some((e) => e.data.length > 3 * cap));
  } finally {
    await server.close();
  }
});

test('connectSse with a profile: a connection that drops inside a frame over the cap resumes after the last frame read', async () => {
  const cap = 64;
  const chunk = (id, text) =>
    `id: ${id}\nevent: llm_stream_chunk\ndata: ${JSON.stringify({ text, phase: 'answer', channel: 'answer' })}\n\n`;
  const huge = `id: 3\nevent: llm_stream_chunk\ndata: ${'x'.repeat(500)}\ndata: {"text":"INJECT","phase":"answer","channel":"answer"}\n\n`;
  const all = [chunk(1, 'a'), chunk(2, 'b'), huge, chunk(4, 'c'), `id: 5\nevent: done\ndata: {"metadata":{"ok":true}}\n\n`];
  const seen = [];
  const server = await listen((req, res) => {
    const last = req.headers['last-event-id'] ?? null;
    seen.push(last);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (last === null) {
      // Two frames, then the first 300 bytes of the one over the cap, and the connection drops.
      res.write(all[0] + all[1] + huge.slice(0, 300));
      setTimeout(() => res.socket.destroy(), 20);
      return;
    }
    res.end(all.slice(Number(last)).join(''));
  });
  try {
    const got = [];
    for await (const e of client.connectSse(`${server.origin}/`, {}, { profile: 'planner', maxEventBytes: cap, retryMs: 1 })) got.push(e);
    assert.deepEqual(seen, [null, '2']);
    assert.deepEqual(
      got.map((e) => e.text ?? e.code ?? e.type),
      ['a', 'b', 'wire_invalid', 'wire_invalid', 'c', 'done'],
    );
  } finally {
    await server.close();
  }
});

// ---------------------------------------------------------------------------------------
// A wire that is not the profile's

const looksWrong = (events, like) => {
  assert.equal(events.length, 2, JSON.stringify(events));
  assert.equal(events[0].type, 'error');
  assert.equal(events[0].code, 'wire_invalid');
  if (like) assert.match(events[0].message, new RegExp(`"${like}"`));
  assert.deepEqual({ ...events[1] }, { type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error' });
  const state = new StreamState();
  state.apply(events);
  assert.notEqual(state.snapshot().status, 'streaming');
};

test("a wire that is not the profile's: one wire_invalid naming the profile it looks like, done {ok: false}, then nothing", async () => {
  const pairs = PROFILES.flatMap((written) => PROFILES.filter((p) => p !== written).map((readAs) => [written, readAs]));
  for (const [written, readAs] of pairs) {
    for (const [name, events] of CASES) {
      const text = await wireText(sr, events, written);
      for (const [label, chunks] of splitings(text).filter(([l]) => !l.startsWith('single'))) {
        const got = await read(readAs, chunks);
        try {
          looksWrong(got, written);
        } catch (e) {
          e.message = `${written} read as ${readAs}, ${name}, ${label}: ${e.message}`;
          throw e;
        }
      }
    }
  }
  // Planner and tagged share `done`, `error` and `tool_call_start`, told apart by their shape:
  // a hand-written frame of neither shape is of both; 16 frames of one's own names tell them apart.
  for (const profile of ['planner', 'tagged']) {
    const events = await read(profile, [frames([['done', {}]])]);
    assert.deepEqual(
      events.map((e) => e.type),
      ['done'],
      profile,
    );
    assert.equal(events[0].ok, true);
  }
  const chunks = Array.from({ length: 20 }, (_, i) => ['llm_stream_chunk', { text: `p${i}`, phase: 'answer', channel: 'answer' }]);
  looksWrong(await read('tagged', [frames(chunks)]), 'planner');
  const users = Array.from({ length: 20 }, (_, i) => ['user_delta', { text: `u${i}` }]);
  looksWrong(await read('planner', [frames(users)]), 'tagged');
  // After the verdict, frames of the vocabulary change nothing.
  const late = frames([
    ...Array.from({ length: 16 }, () => ['mystery', { x: 1 }]),
    ['user_delta', { text: 'late' }],
    ['done', { ok: true }],
  ]);
  for (const [, c] of splitings(late)) looksWrong(await read('tagged', c), null);
  // A short stream with no frame of the vocabulary: the same at its end.
  looksWrong(
    await read('ai-sdk', [
      frames([
        ['llm_stream_chunk', { text: 'x' }],
        ['done', {}],
      ]),
    ]),
    'planner',
  );
  looksWrong(
    await read('planner', [
      frames([
        [null, 'not json'],
        [null, 'neither'],
      ]),
    ]),
    null,
  );
});

test("the profile check counts frames, not pings or comments, and holds nothing back from a wire that is the profile's", async () => {
  const pings = ': ping\n\n'.repeat(30) + 'event: ping\ndata: {}\n\n'.repeat(30);
  let events = await read('tagged', [
    pings +
      frames([
        ['user_delta', { text: 'hi' }],
        ['done', { ok: true }],
      ]),
  ]);
  assert.deepEqual(
    events.map((e) => e.text ?? e.type),
    ['hi', 'done'],
  );
  // Up to 15 frames outside the vocabulary (a server's own) and then one of it: all read, in order.
  const own = Array.from({ length: 15 }, (_, i) => ['state_update', i % 2 ? { n: i } : 'not json']);
  events = await read('tagged', [frames([...own, ['user_delta', { text: 'hi' }], ['done', { ok: true }]])]);
  assert.deepEqual(
    events.map((e) => e.text ?? e.code ?? e.type),
    [...Array(8).fill('wire_invalid'), 'hi', 'done'],
  );
  // An empty stream, and one of pings only: nothing.
  assert.deepEqual(await read('planner', []), []);
  assert.deepEqual(await read('ai-sdk', [pings]), []);
  // A frame over the cap before the first frame of the vocabulary is reported in its place.
  events = await read('tagged', [`data: ${'x'.repeat(100)}\n\n${frames([['user_delta', { text: 'hi' }]])}`], { maxEventBytes: 16 });
  assert.deepEqual(
    events.map((e) => e.text ?? e.code),
    ['wire_invalid', 'hi'],
  );
});

test("connectSse with a profile stops after the verdict on a wire that is not the profile's", async () => {
  const events = CASES.find(([n]) => n === 'openai-chat-tools.sse')[1];
  const text = await wireText(sr, events, 'planner');
  let requests = 0;
  const server = await listen((req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(text);
  });
  try {
    const got = [];
    for await (const e of client.connectSse(`${server.origin}/`, {}, { profile: 'ai-sdk', retryMs: 1 })) got.push(e);
    looksWrong(got, 'planner');
    assert.equal(requests, 1);
  } finally {
    await server.close();
  }
});

// ---------------------------------------------------------------------------------------
// Hostile frames

const POISON = { url: 'http://evil', text: 'EVIL', type: 'EVIL', code: 'EVIL', ok: false, index: 7, polluted: true };

/** Every object in `v` is plain (Object or Array prototype) and has no inherited enumerable member. */
function assertClean(v, where, top = true) {
  if (v === null || typeof v !== 'object') return;
  const proto = Object.getPrototypeOf(v);
  assert.ok(proto === Object.prototype || proto === Array.prototype, `${where}: prototype changed`);
  for (const k in v) assert.ok(Object.hasOwn(v, k), `${where}: inherited member ${k}`);
  if (top) {
    for (const k of ['__proto__', 'constructor', 'prototype']) assert.ok(!Object.hasOwn(v, k), `${where}: own ${k}`);
    assert.equal(v.constructor, Object, `${where}: constructor`);
    assert.equal(typeof v.type, 'string', where);
    assert.notEqual(v.type, 'EVIL', where);
  }
  for (const x of Object.values(v)) assertClean(x, where, false);
}

/** `data` as JSON with `__proto__`, `constructor` and `prototype` members added (JSON.stringify cannot write `__proto__`). */
const poisoned = (data) => {
  const body = JSON.stringify(data).slice(1, -1);
  const extra = `"__proto__":${JSON.stringify(POISON)},"constructor":{"prototype":${JSON.stringify(POISON)}},"prototype":${JSON.stringify(POISON)}`;
  return `{${extra}${body ? `,${body}` : ''}}`;
};

const HOSTILE_FRAMES = {
  planner: [
    ['llm_stream_chunk', { text: 'a' }],
    ['llm_stream_chunk', { text: 'b', phase: 'answer' }],
    ['artifact_chunk', { stream_id: 's', seq: 0, chunk: 'c', meta: JSON.parse(poisoned({ k: 1 })) }],
    ['artifact_chunk', { chunk: 'd', meta: JSON.parse(poisoned({ source: 'artifact_delta' })) }],
    ['tool_call_start', { tool_call_id: 'x', tool_name: 'f' }],
    ['tool_call_args', { tool_call_id: 'x', delta: '{}' }],
    ['tool_call_end', { tool_call_id: 'x', args: JSON.parse(poisoned({ a: 1 })) }],
    ['step', { action: JSON.parse(poisoned({ next_node: 'n' })) }],
    ['event', { event: 'usage', input_tokens: 1 }],
    ['event', { event: 'source' }],
    ['event', { event: 'tool_result', id: 'x' }],
    ['event', { event: '__proto__' }],
    ['event', { event: 'constructor' }],
    ['error', {}],
    ['done', { metadata: JSON.parse(poisoned({})), payload: JSON.parse(poisoned({ raw_answer: 'r' })) }],
  ],
  tagged: [
    ['artifact_delta', { text: 'a' }],
    ['artifact_delta', { stream_id: 's', seq: 0, chunk: 'c' }],
    ['user_delta', { text: 'u' }],
    ['thinking_delta', { text: 't' }],
    ['tool_call_start', { index: 0, id: 'x' }],
    ['tool_call_delta', { index: 0, arguments: '{' }],
    ['tool_call', { index: 0, id: 'x', arguments: {} }],
    ['action', { action: {} }],
    ['usage', { input_tokens: 1 }],
    ['source', { title: 't' }],
    ['tool_result', { id: 'x' }],
    ['refusal_delta', { text: 'no' }],
    ['error', {}],
    ['done', { error: JSON.parse(poisoned({ code: 'c' })), payload: JSON.parse(poisoned({})) }],
  ],
  'ai-sdk': [
    [null, { type: 'start' }],
    [null, { type: 'text-start', id: 't', providerMetadata: JSON.parse(poisoned({ streamroute: JSON.parse(poisoned({})) })) }],
    [null, { type: 'text-delta', id: 't', delta: 'a' }],
    [null, { type: 'reasoning-delta', id: 'r', delta: 'b' }],
    [null, { type: 'data-tool-call-index', data: JSON.parse(poisoned({ toolCallId: 'x', index: 3 })) }],
    [null, { type: 'tool-input-start', toolCallId: 'x', toolName: 'f' }],
    [null, { type: 'tool-input-delta', toolCallId: 'x', inputTextDelta: '{}' }],
    [null, { type: 'tool-input-available', toolCallId: 'x', input: {} }],
    [null, { type: 'tool-output-available', toolCallId: 'x' }],
    [null, { type: 'tool-output-error', toolCallId: 'x' }],
    [null, { type: 'source-url', sourceId: 's', url: 'u', providerMetadata: { streamroute: JSON.parse(poisoned({})) } }],
    [null, { type: 'source-document', sourceId: 's' }],
    [null, { type: 'data-artifact', data: JSON.parse(poisoned({ text: 'x' })) }],
    [null, { type: 'data-action', data: JSON.parse(poisoned({})) }],
    [null, { type: 'data-usage', data: JSON.parse(poisoned({ input_tokens: 1 })) }],
    [null, { type: 'data-source', data: JSON.parse(poisoned({ title: 't' })) }],
    [null, { type: 'data-tool-result', data: JSON.parse(poisoned({ id: 'x' })) }],
    [null, { type: 'data-error', data: JSON.parse(poisoned({ code: 'c' })) }],
    [null, { type: 'error', errorText: 'e' }],
    [null, { type: 'finish', messageMetadata: JSON.parse(poisoned({ payload: JSON.parse(poisoned({})) })) }],
  ],
  'ag-ui': [
    [null, { type: 'RUN_STARTED', threadId: 't', runId: 'r', parentRunId: 'p' }],
    [null, { type: 'TEXT_MESSAGE_START', messageId: 'm', metadata: JSON.parse(poisoned({ streamroute: JSON.parse(poisoned({})) })) }],
    [null, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'a' }],
    [null, { type: 'REASONING_MESSAGE_CONTENT', messageId: 'x', delta: 'b' }],
    [null, { type: 'TOOL_CALL_START', toolCallId: 'x', toolCallName: 'f', metadata: { streamroute: JSON.parse(poisoned({ index: 3 })) } }],
    [null, { type: 'TOOL_CALL_ARGS', toolCallId: 'x', delta: '{}' }],
    [
      null,
      { type: 'TOOL_CALL_END', toolCallId: 'x', metadata: { streamroute: JSON.parse(poisoned({ arguments: JSON.parse(poisoned({})) })) } },
    ],
    [
      null,
      {
        type: 'TOOL_CALL_RESULT',
        toolCallId: 'x',
        messageId: 'y',
        content: 'c',
        metadata: { streamroute: JSON.parse(poisoned({ id: 'x' })) },
      },
    ],
    [null, { type: 'CUSTOM', name: 'source', value: JSON.parse(poisoned({ title: 't' })) }],
    [null, { type: 'CUSTOM', name: 'action', value: JSON.parse(poisoned({ action: JSON.parse(poisoned({})) })) }],
    [null, { type: 'CUSTOM', name: 'usage', value: JSON.parse(poisoned({ input_tokens: 1 })) }],
    [null, { type: 'CUSTOM', name: '__proto__', value: {} }],
    [null, { type: 'CUSTOM', name: 'constructor', value: {} }],
    [null, { type: 'CUSTOM', name: 'artifact_chunk', value: JSON.parse(poisoned({ stream_id: 's', seq: 0, chunk: 'c' })) }],
    [null, { type: 'CUSTOM', name: 'error', value: JSON.parse(poisoned({ code: 'c' })) }],
    [null, { type: 'RUN_FINISHED', threadId: 't', runId: 'r', result: JSON.parse(poisoned({})), metadata: JSON.parse(poisoned({})) }],
  ],
};

test("frame members named __proto__, constructor and prototype change no event's prototype and shadow no field, in every profile", async () => {
  for (const profile of PROFILES) {
    const text = HOSTILE_FRAMES[profile].map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${poisoned(data)}\n\n`).join('');
    for (const [label, chunks] of splitings(text).filter(([l]) => l.startsWith('whole') || l.includes('<=7'))) {
      const events = await read(profile, chunks);
      assert.ok(events.length >= HOSTILE_FRAMES[profile].length - 4, `${profile}: ${events.length} events`);
      for (const e of events) {
        assertClean(e, `${profile} ${label} ${JSON.stringify(e)}`);
        assert.notEqual(e.url, 'http://evil');
        assert.notEqual(e.polluted, true);
        if (e.type !== 'error') assert.notEqual(e.code, 'EVIL');
      }
      // The events fold, and the snapshot is clean too.
      const state = new StreamState();
      state.apply(events);
      assert.equal(Object.getPrototypeOf(state.snapshot()), Object.prototype);
    }
  }
  assert.equal({}.polluted, undefined, 'Object.prototype untouched');
  assert.equal({}.url, undefined, 'Object.prototype untouched');
});

test('hostile values (wrong types, huge or negative numbers, nested junk) never break a reader', async () => {
  const FIELDS = [
    'text',
    'phase',
    'channel',
    'stream_id',
    'seq',
    'chunk',
    'done',
    'meta',
    'tool_call_id',
    'tool_name',
    'args_json',
    'index',
    'delta',
    'args',
    'repaired',
    'action',
    'event',
    'error',
    'code',
    'message',
    'provider_code',
    'metadata',
    'payload',
    'answer_action_seq',
    'trace_id',
    'action_seq',
    'source',
    'id',
    'arguments',
    'ok',
    'parse_ok',
    'finish',
    'finish_reason',
    'type',
    'toolCallId',
    'toolName',
    'inputTextDelta',
    'input',
    'output',
    'data',
    'providerMetadata',
    'messageMetadata',
    'finishReason',
    'errorText',
    'url',
    'sourceId',
    'title',
    'providerExecuted',
    'provider_executed',
    'messageId',
    'toolCallName',
    'content',
    'name',
    'value',
    'threadId',
    'runId',
    'parentRunId',
    'result',
    'usage',
  ];
  let deep = '0';
  for (let i = 0; i < 2000; i++) deep = `[${deep}]`;
  const VALUES = [
    'null',
    '1',
    '-1',
    '1e308',
    '9007199254740993',
    '-0',
    '"s"',
    'true',
    '[]',
    '[1,[2,{}]]',
    '{}',
    '{"toString":"x","valueOf":1}',
    '{"__proto__":{"x":1}}',
    deep,
  ];
  const NAMES = {
    planner: ['llm_stream_chunk', 'artifact_chunk', 'tool_call_start', 'tool_call_args', 'tool_call_end', 'step', 'event', 'error', 'done'],
    tagged: ['artifact_delta', 'user_delta', 'thinking_delta', 'tool_call', 'usage', 'source', 'error', 'done'],
    'ai-sdk': [null],
    'ag-ui': [null],
  };
  const AI_TYPES = [
    'text-start',
    'text-delta',
    'reasoning-start',
    'reasoning-delta',
    'data-tool-call-index',
    'tool-input-start',
    'tool-input-delta',
    'tool-input-available',
    'tool-output-available',
    'tool-output-error',
    'source-url',
    'data-artifact',
    'data-action',
    'data-usage',
    'data-error',
    'error',
    'finish',
    'data-source',
  ];
  const AG_UI_TYPES = [
    'RUN_STARTED',
    'TEXT_MESSAGE_START',
    'TEXT_MESSAGE_CONTENT',
    'TEXT_MESSAGE_CHUNK',
    'REASONING_MESSAGE_START',
    'REASONING_MESSAGE_CONTENT',
    'TOOL_CALL_START',
    'TOOL_CALL_CHUNK',
    'TOOL_CALL_ARGS',
    'TOOL_CALL_END',
    'TOOL_CALL_RESULT',
    'CUSTOM',
    'RUN_FINISHED',
    'RUN_ERROR',
  ];
  for (const profile of PROFILES) {
    let text = '';
    for (const name of NAMES[profile]) {
      for (const v of VALUES) {
        const types = profile === 'ai-sdk' ? AI_TYPES : profile === 'ag-ui' ? AG_UI_TYPES : [undefined];
        for (const type of types) {
          const members = FIELDS.filter((f) => !(type && f === 'type')).map((f) => `${JSON.stringify(f)}:${v}`);
          if (type) members.unshift(`"type":${JSON.stringify(type)}`);
          text += `${name ? `event: ${name}\n` : ''}data: {${members.join(',')}}\n\n`;
          text += `${name ? `event: ${name}\n` : ''}data: ${v}\n\n`;
        }
      }
    }
    for (const [label, chunks] of splitings(text).filter(([l]) => l.startsWith('whole') || l.includes('<=64'))) {
      const events = await read(profile, chunks);
      assert.ok(events.length > 0, `${profile} ${label}`);
      for (const e of events) {
        assert.equal(Object.getPrototypeOf(e), Object.prototype);
        assert.equal(typeof e.type, 'string');
        if (e.type === 'error') assert.equal(typeof e.message, 'string');
        if (e.type.startsWith('tool_call')) assert.ok(Number.isSafeInteger(e.index) && e.index >= 0, `${profile}: index ${e.index}`);
        if (e.type === 'tool_call_start' || e.type === 'tool_call') {
          assert.equal(typeof e.id, 'string');
          assert.ok(e.name == null || typeof e.name === 'string', `${profile}: name ${e.name}`);
        }
        if (e.type.endsWith('_delta')) assert.equal(typeof (e.text ?? e.arguments), 'string');
        if (e.type === 'source') for (const k of ['id', 'url', 'title', 'snippet']) assert.ok(e[k] === null || typeof e[k] === 'string');
      }
      const state = new StreamState();
      state.apply(events);
    }
  }
});

test('each frame is parsed once: JSON.parse runs at most once per frame', async () => {
  const parse = JSON.parse;
  for (const profile of PROFILES) {
    for (const [name, events] of CASES.slice(0, 8)) {
      const text = await wireText(sr, events, profile);
      const decoder = new client.SseDecoder();
      const frameCount = [...decoder.feed(text), ...decoder.finish()].filter((f) => f.event !== 'ping' && f.data !== '[DONE]').length;
      decoder.free();
      let calls = 0;
      JSON.parse = function counted(...args) {
        calls++;
        return parse.apply(this, args);
      };
      try {
        await read(profile, [text]);
      } finally {
        JSON.parse = parse;
      }
      assert.ok(calls <= frameCount, `${profile} ${name}: ${calls} parses of ${frameCount} frames`);
    }
  }
});

test('per frame work is linear: a reader takes about as long per byte on a long frame as on a short one', async () => {
  for (const profile of PROFILES) {
    const time = async (n) => {
      const event = { type: 'tool_call_delta', index: 0, arguments: 'a'.repeat(n) };
      const text = await wireText(sr, [{ type: 'tool_call_start', index: 0, id: 'x', name: 'f' }, event, { type: 'done' }], profile);
      const t = performance.now();
      for (let i = 0; i < 3; i++) await read(profile, [text]);
      return (performance.now() - t) / 3;
    };
    await time(1000);
    const small = await time(100_000);
    const large = await time(1_600_000);
    assert.ok(large < small * 16 * 8 + 50, `${profile}: ${small.toFixed(1)} ms for 100 KB, ${large.toFixed(1)} ms for 1.6 MB`);
  }
});

test('TypeScript: fromSse and connectSse take maxEventBytes', async () => {
  const { status, output } = typecheck(
    'ts-client-wire',
    `
    import { fromSse, connectSse, type WireEvent, type FromSseOptions, type ConnectSseOptions } from 'streamroute/client';
    import * as main from 'streamroute';
    const o: FromSseOptions = { maxEventBytes: 1 << 20 };
    const t: TransformStream<Uint8Array | string, WireEvent> = fromSse('tagged', o);
    const c: ConnectSseOptions = { profile: 'planner', maxEventBytes: 1024 };
    async function f() {
      for await (const e of connectSse('http://x', {}, { profile: 'ai-sdk', maxEventBytes: 1024 })) { const w: WireEvent = e; void w; }
      for await (const e of main.connectSse('http://x', {}, { maxEventBytes: 1024 })) { const d: string = e.data; void d; }
      for await (const e of main.connectSse('http://x', {}, { profile: 'planner', maxEventBytes: 1024 })) { const w: WireEvent = e; void w; }
    }
    void [t, c, f];
  `,
  );
  assert.equal(status, 0, output);
});

// A skipped frame's `id` (and `retry`) count as the decoder's would: a reconnection resumes
// after the frame, not before it, at every chunking of the wire, whether the id comes before
// or after the line that passed the cap. A line of the skipped tail longer than 4 KiB is not
// read for a field.
test('connectSse with a profile: the id and retry of a frame over the cap are taken; a reconnection resumes after it', async () => {
  const cap = 64;
  const big = 'x'.repeat(3 * cap);
  const a = JSON.stringify({ text: 'a', phase: 'answer', channel: 'answer' });
  const first = `id: 1\nevent: llm_stream_chunk\ndata: ${a}\n\n`;
  for (const [wire, resumeAt] of [
    [`${first}event: llm_stream_chunk\ndata: ${big}\nid: 2\nretry: 7\n\n`, '2'],
    [`${first}id: 2\nevent: llm_stream_chunk\ndata: ${big}\n\n`, '2'],
    [`${first}event: llm_stream_chunk\ndata: ${big}\nid: ${'9'.repeat(4100)}\n\n`, '1'],
  ])
    for (const [how, chunks] of splitings(wire)) {
      const calls = [];
      const fetch = async (_url, init) => {
        calls.push(new Headers(init.headers).get('last-event-id'));
        const first = calls.length === 1;
        // The first connection sends the wire in its pieces, then drops; the next drops at once.
        let i = first ? 0 : chunks.length;
        const body = new ReadableStream({
          pull(c) {
            if (i === chunks.length) return c.error(new TypeError('connection dropped'));
            const piece = chunks[i++];
            c.enqueue(typeof piece === 'string' ? new TextEncoder().encode(piece) : piece);
          },
        });
        return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      };
      const got = [];
      const events = client.connectSse('http://example.test/', {}, { fetch, maxRetries: 1, profile: 'planner', maxEventBytes: cap });
      await assert.rejects(
        (async () => {
          for await (const e of events) got.push(e);
        })(),
        (e) => e instanceof client.StreamrouteError && e.code === 'sse_connection_failed',
      );
      assert.deepEqual(
        got.map((e) => e.text ?? e.code),
        ['a', 'wire_invalid'],
        how,
      );
      assert.deepEqual(calls, [null, resumeAt], how);
    }
});
