// StreamState and StreamMux on the packed package: what a snapshot after every event costs
// (counted with the package's work counter, never timed), the byte budget, hostile events and
// listeners, completeArguments, throttled subscribers, and the mux's limits and release.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamMux, StreamState, StreamrouteError } from 'streamroute/client';
import { SEED, rng } from './helpers/chunking.mjs';
import { typecheck } from './helpers/typecheck.mjs';

// Members copied into snapshots, search steps and nodes read, counted by the package.
const work = () => StreamState[Symbol.for('streamroute.work')]();
const SIZES = [1, 2, 4, 8];

/** The work of `run(n)` at n = base·k; each at most `bound(k)` times the work at 1×. */
function assertScales(name, base, run, bound = (k) => 1.5 * k) {
  const counts = SIZES.map((k) => {
    const before = work();
    run(base * k);
    return work() - before;
  });
  for (const [i, k] of SIZES.entries()) {
    assert.ok(counts[i] <= bound(k) * counts[0], `${name}: work ${counts.join(', ')} at ${SIZES.join('x, ')}x`);
  }
  return counts;
}

const isCode = (code) => (e) => e instanceof StreamrouteError && e.code === code;

/** Every object in a snapshot is frozen, plain, and holds only own data properties. */
function assertPlainData(value, where = 'snapshot', seen = new Set()) {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  assert.ok(Object.isFrozen(value), `${where} is frozen`);
  const proto = Object.getPrototypeOf(value);
  assert.ok(proto === Object.prototype || proto === Array.prototype, `${where} is a plain object or array`);
  for (const key of Reflect.ownKeys(value)) {
    const d = Object.getOwnPropertyDescriptor(value, key);
    assert.ok('value' in d, `${where}.${String(key)} is a data property`);
    assertPlainData(d.value, `${where}.${String(key)}`, seen);
  }
}

const tool = (args) => [
  { type: 'tool_call_start', index: 0, id: 'c', name: 'f' },
  ...args.map((a) => ({ type: 'tool_call_delta', index: 0, arguments: a })),
];

test('scaling: text deltas, a growing argument string and tool_result lookups cost the change', () => {
  assertScales('answer deltas, a snapshot after each', 500, (n) => {
    const s = new StreamState();
    for (let i = 0; i < n; i++) {
      s.apply({ type: 'answer_delta', text: 'word ' });
      s.snapshot();
    }
  });
  assertScales('an argument string growing, a snapshot after each', 200, (n) => {
    const s = new StreamState();
    s.apply(tool(['{"a": {"b": ["', 'x']));
    for (let i = 0; i < n; i++) {
      s.apply({ type: 'tool_call_delta', index: 0, arguments: 'more ' });
      s.snapshot();
    }
    assert.equal(s.snapshot().toolCalls[0].partialArguments.a.b[0].length, 1 + 5 * n);
  });
  assertScales('tool_result by id and by index among n calls', 200, (n) => {
    const s = new StreamState();
    const events = [];
    for (let i = 0; i < n; i++) {
      events.push({ type: 'tool_call', index: i, id: `c${i}`, name: 'f', arguments: {} });
      events.push(i % 2 ? { type: 'tool_result', id: `c${i}`, result: i } : { type: 'tool_result', index: i, result: i });
    }
    s.apply(events);
    assert.equal(s.snapshot().toolCalls[n - 1].result, n - 1);
  });
});

test('scaling: a flat container is copied once per snapshot, and only the containers on the changed path', () => {
  // 'partialArguments' of n keys sent one per delta: each snapshot rebuilds the root object
  // (n members: a flat object cannot be extended in place) and nothing else.
  const s = new StreamState();
  s.apply(tool(['{"big": {"x": 1}, "flat": {']));
  let prev = s.snapshot().toolCalls[0];
  for (let i = 0; i < 300; i++) {
    s.apply({ type: 'tool_call_delta', index: 0, arguments: `"k${i}": ${i}, ` });
    const before = work();
    const t = s.snapshot().toolCalls[0];
    const copied = work() - before;
    // The root (2 members) and `flat` (i + 1 members), the tool call (10 fields), the tool list
    // (1) and the snapshot (14). Nothing is open, so completeArguments is partialArguments.
    assert.ok(copied <= 2 + (i + 1) + 10 + 2 + 14, `snapshot ${i} copied ${copied}`);
    assert.equal(t.completeArguments, t.partialArguments);
    assert.equal(t.partialArguments.big, prev.partialArguments.big, 'an unchanged branch is the same object');
    prev = t;
  }
  // Deltas without a snapshot in between cost nothing at snapshot time until one is taken.
  const start = work();
  for (let i = 300; i < 600; i++) s.apply({ type: 'tool_call_delta', index: 0, arguments: `"k${i}": ${i}, ` });
  assert.ok(work() - start <= 600 * 12, `folding 300 deltas read ${work() - start}`);
});

test('scaling: many artifact streams, one long artifact, gaps, and a seq jump', () => {
  // n streams with a snapshot after each: the `artifacts` map (flat, n members) is rebuilt, each
  // unchanged artifact is its previous snapshot; folding is linear.
  const s = new StreamState();
  let prev = s.snapshot();
  for (let i = 0; i < 300; i++) {
    s.apply({ type: 'artifact_chunk', stream_id: `s${i}`, seq: 0, chunk: i, done: true, artifact_type: 'int' });
    const before = work();
    const snap = s.snapshot();
    assert.ok(work() - before <= i + 1 + 1 + 1 + 5 + 14, `snapshot ${i} copied ${work() - before}`);
    if (i > 0) assert.equal(snap.artifacts.s0, prev.artifacts.s0, 'an unchanged artifact is the same object');
    prev = snap;
  }
  assertScales('n artifact streams folded', 200, (n) => {
    const st = new StreamState();
    for (let i = 0; i < n; i++) st.apply({ type: 'artifact_chunk', stream_id: `s${i}`, seq: 0, chunk: i, done: true });
    st.snapshot();
  });
  // One artifact of n chunks: a snapshot copies its chunk list (flat) and never its gaps again.
  const one = new StreamState();
  one.apply({ type: 'artifact_chunk', stream_id: 'x', seq: 5, chunk: 'early' });
  const gaps = one.snapshot().artifacts.x.gaps;
  assert.deepEqual(gaps, [0, 1, 2, 3, 4]);
  for (let i = 6; i < 300; i++) {
    one.apply({ type: 'artifact_chunk', stream_id: 'x', seq: i, chunk: i });
    const before = work();
    const x = one.snapshot().artifacts.x;
    assert.ok(work() - before <= i - 4 + 1 + 1 + 5 + 14, `chunk ${i}: copied ${work() - before}`);
    assert.equal(x.gaps, gaps, 'unchanged gaps are the same array, not rebuilt');
  }
  assertScales('one artifact of n chunks folded', 500, (n) => {
    const st = new StreamState();
    for (let i = 0; i < n; i++) st.apply({ type: 'artifact_chunk', stream_id: 'x', seq: i, chunk: i, done: i === n - 1 });
    assert.equal(st.snapshot().artifacts.x.chunks.length, n);
  });
  // Gaps: a jump then its fill, n times; a fill is a binary search over the missing ranges.
  assertScales('n jumps and fills', 200, (n) => {
    const st = new StreamState();
    for (let i = 0; i < n; i++) {
      st.apply({ type: 'artifact_chunk', stream_id: 'x', seq: 2 * i + 1, chunk: 'b' });
      st.apply({ type: 'artifact_chunk', stream_id: 'x', seq: 2 * i, chunk: 'a' });
    }
    assert.deepEqual(st.snapshot().artifacts.x.gaps, []);
  });
  // A jump is one range, whatever its length: folding seq 60000 costs what seq 10 costs (its
  // bytes are the numbers the snapshot will list, 8 each).
  const jump = (seq) => {
    const st = new StreamState();
    const before = work();
    st.apply([
      { type: 'artifact_chunk', stream_id: 'x', seq: 0, chunk: 0 },
      { type: 'artifact_chunk', stream_id: 'x', seq, chunk: 1 },
    ]);
    return [work() - before, st];
  };
  const [small] = jump(10);
  const [large, st] = jump(60_000);
  assert.equal(large, small);
  assert.ok(st.bytes < 1024 + 8 * 59_999, `a jump of 60,000 holds ${st.bytes} bytes`);
  assert.equal(st.snapshot().artifacts.x.gaps.length, 59_999);
});

test('scaling: StreamMux streams added and ended, keys() rebuilt only when streams changed', () => {
  assertScales('n streams through a mux', 200, (n) => {
    const mux = new StreamMux({ key: 'session_id' });
    const heard = [];
    mux.subscribe((c) => heard.push(c.type));
    for (let i = 0; i < n; i++) {
      mux.apply([
        { type: 'answer_delta', text: 'x', session_id: i },
        { type: 'done', ok: true, session_id: i },
      ]);
      mux.apply({ type: 'usage', input_tokens: 1, session_id: i % 7 });
    }
    assert.equal(mux.keys().length, n);
    assert.equal(heard.length, 2 * n);
  });
  assertScales('n streams released as they end', 200, (n) => {
    const mux = new StreamMux({ key: 'session_id', releaseEnded: true });
    for (let i = 0; i < n; i++)
      mux.apply([
        { type: 'answer_delta', text: 'x', session_id: i },
        { type: 'done', ok: true, session_id: i },
      ]);
    assert.deepEqual(mux.keys(), []);
  });
});

test('options: unknown keys, a non-object and a throwing getter are invalid_input, bad values invalid_option', () => {
  assert.throws(
    () => new StreamState({ maxByte: 1 }),
    (e) => isCode('invalid_input')(e) && /unknown option "maxByte"/.test(e.message),
  );
  for (const maxBytes of [0, -1, 1.5, '10', NaN, Infinity]) assert.throws(() => new StreamState({ maxBytes }), isCode('invalid_option'));
  assert.throws(() => new StreamState({ onListenerError: 1 }), isCode('invalid_option'));
  assert.throws(() => new StreamState(1), isCode('invalid_input'));
  assert.throws(
    () =>
      new StreamState({
        get maxBytes() {
          throw new Error('boom');
        },
      }),
    isCode('invalid_input'),
  );
  new StreamState({ maxBytes: 10, onListenerError: () => {} });
  const s = new StreamState();
  for (const throttleMs of [-1, 'x', NaN]) assert.throws(() => s.subscribe(() => {}, { throttleMs }), isCode('invalid_option'));
  assert.throws(() => s.subscribe(() => {}, { throttle: 5 }), isCode('invalid_input'));
  assert.throws(() => new StreamMux({ key: 'session_id', extra: 1 }), isCode('invalid_input'));
  for (const bad of [{ maxStreams: 0 }, { releaseEnded: 1 }, { maxBytes: -5 }, { onListenerError: 'x' }, { throttle: -1 }]) {
    assert.throws(() => new StreamMux({ key: 'session_id', ...bad }), isCode('invalid_option'), JSON.stringify(bad));
  }
  const mux = new StreamMux({
    key: 'session_id',
    maxStreams: 5,
    releaseEnded: true,
    maxBytes: 1000,
    onListenerError: () => {},
    throttle: 0,
  });
  assert.throws(() => mux.subscribe(() => {}, { throttleMs: -2 }), isCode('invalid_option'));
});

test('maxBytes: one buffer_limit_exceeded, everything before it kept, growth after it dropped', () => {
  const s = new StreamState({ maxBytes: 1000 });
  const hundred = 'x'.repeat(100); // 200 bytes (UTF-16)
  for (let i = 0; i < 5; i++) s.apply({ type: 'answer_delta', text: hundred });
  assert.equal(s.snapshot().status, 'streaming');
  assert.equal(s.bytes, 1000);
  s.apply({ type: 'answer_delta', text: 'y' });
  s.apply([
    { type: 'answer_delta', text: 'z' },
    { type: 'error', code: 'e', message: 'm' },
    { type: 'source', url: 'https://a' },
    { type: 'artifact_chunk', stream_id: 'a', seq: 0, chunk: 'c' },
    { type: 'tool_call_start', index: 0, id: 'c', name: 'f' },
  ]);
  const snap = s.snapshot();
  assert.equal(snap.answer, hundred.repeat(5));
  assert.equal(snap.status, 'error');
  assert.deepEqual(
    snap.errors.map((e) => e.code),
    ['buffer_limit_exceeded'],
  );
  assert.deepEqual([snap.sources, snap.toolCalls, snap.artifacts], [[], [], {}]);
  s.apply({ type: 'done', ok: true, payload: { raw_answer: 'x'.repeat(1000) } });
  assert.ok(s.ended);
  assert.equal(s.snapshot().payload, null);
  assert.equal(s.snapshot().errors.length, 1);

  // Everything counts: argument text and its partial value, chunks, sources, usage.
  for (const events of [
    tool(['{"a": "', 'x'.repeat(600)]),
    [{ type: 'artifact_chunk', stream_id: 'a', seq: 0, chunk: { rows: ['x'.repeat(600)] } }],
    [{ type: 'source', url: 'https://x', snippet: 'x'.repeat(600) }],
    [{ type: 'usage', input_tokens: 1, note: 'x'.repeat(600) }],
  ]) {
    const t = new StreamState({ maxBytes: 1000 });
    t.apply(events);
    assert.deepEqual(
      t.snapshot().errors.map((e) => e.code),
      ['buffer_limit_exceeded'],
      JSON.stringify(events).slice(0, 60),
    );
  }
  // A replaced field holds its last value only.
  const u = new StreamState({ maxBytes: 1000 });
  for (let i = 0; i < 100; i++) u.apply({ type: 'usage', input_tokens: i, output_tokens: i });
  assert.equal(u.snapshot().status, 'streaming');
  assert.equal(u.snapshot().usage.input_tokens, 99);
  // A usage or container the budget refuses changes nothing: the same snapshot, no listener call.
  const r = new StreamState({ maxBytes: 1000 });
  r.apply({ type: 'usage', input_tokens: 1 });
  r.apply({ type: 'usage', note: 'x'.repeat(600) });
  const refused = r.snapshot();
  assert.equal(refused.usage.input_tokens, 1);
  let heard = 0;
  r.subscribe(() => heard++);
  for (const type of ['usage', 'container']) r.apply({ type, note: 'x'.repeat(600) });
  assert.equal(r.snapshot(), refused);
  assert.equal(heard, 0);
  // A mux's maxBytes is per stream.
  const mux = new StreamMux({ key: 'session_id', maxBytes: 300 });
  mux.apply([
    { type: 'answer_delta', text: hundred, session_id: 'a' },
    { type: 'answer_delta', text: hundred, session_id: 'b' },
  ]);
  mux.apply({ type: 'answer_delta', text: hundred, session_id: 'a' });
  assert.equal(mux.get('a').snapshot().errors[0].code, 'buffer_limit_exceeded');
  assert.equal(mux.get('b').snapshot().status, 'streaming');
});

test('maxBytes: a seq jump costs the missing numbers the snapshot lists; 2,000 jumps of 65,535 stay within the budget', () => {
  // Each jump leaves 65,535 numbers for `gaps` to list (8 bytes each): the budget, not the heap,
  // decides how many such artifacts a state takes.
  const s = new StreamState();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 2000; i++) {
    s.apply({ type: 'artifact_chunk', stream_id: `a${i}`, seq: 65535, chunk: 'x' });
    s.snapshot();
  }
  const grown = process.memoryUsage().heapUsed - before;
  const snap = s.snapshot();
  assert.ok(s.bytes <= 64 * 1024 * 1024, `bytes ${s.bytes}`);
  assert.deepEqual(
    snap.errors.map((e) => e.code),
    ['buffer_limit_exceeded'],
  );
  const kept = Object.keys(snap.artifacts).length;
  assert.ok(kept > 100 && kept < 130, `${kept} artifacts kept`);
  assert.equal(snap.artifacts.a0.gaps.length, 65535);
  assert.ok(grown < 256 * 1024 * 1024, `heap grew ${grown} bytes`);
  // Filling gives the bytes back.
  const t = new StreamState({ maxBytes: 10_000 });
  t.apply({ type: 'artifact_chunk', stream_id: 'a', seq: 100, chunk: 'x' });
  const jumped = t.bytes;
  for (let q = 0; q < 100; q++) t.apply({ type: 'artifact_chunk', stream_id: 'a', seq: q, chunk: 'x' });
  assert.equal(t.snapshot().artifacts.a.gaps.length, 0);
  assert.equal(t.bytes, jumped - 100 * 8 + 100 * (2 * 1 + 4 + 16), 'each fill gives its 8 bytes back and charges its chunk');
  assert.equal(t.snapshot().status, 'streaming');
});

test('hostile wire: __proto__, constructor and prototype members are plain data', () => {
  const s = new StreamState();
  s.apply(
    JSON.parse(`[
    {"type": "source", "source": {"__proto__": {"url": "https://evil"}, "title": "t"}},
    {"type": "source", "__proto__": {"url": "https://evil2"}, "constructor": {"prototype": {"x": 1}}, "id": "s2"},
    {"type": "usage", "__proto__": {"total_tokens": 5}, "input_tokens": 1},
    {"type": "action", "action": {"__proto__": {"kind": "evil"}, "prototype": 1}},
    {"type": "artifact_chunk", "stream_id": "__proto__", "seq": 0, "chunk": {"__proto__": [1]}},
    {"type": "tool_call_start", "index": 0, "id": "c", "name": "f"},
    {"type": "tool_call_delta", "index": 0, "arguments": "{\\"__proto__\\": {\\"polluted\\": 1}, \\"constructor\\": \\"x\\", \\"a\\": [{\\"__proto__\\": 2}]}"},
    {"type": "done", "ok": true, "status": "hijacked", "payload": {"__proto__": {"raw_answer": "evil"}, "sources": [{"__proto__": {"url": "u"}}]}}
  ]`),
  );
  const snap = s.snapshot();
  assertPlainData(snap);
  assert.equal(snap.status, 'done');
  assert.equal(snap.sources[0].url, undefined);
  assert.equal(snap.sources[0].title, 't');
  assert.equal(snap.sources[1].url, undefined);
  assert.equal(snap.sources[1].id, 's2');
  assert.deepEqual(Object.keys(snap.sources[1]), ['__proto__', 'constructor', 'id']);
  assert.equal(snap.usage.total_tokens, undefined);
  assert.equal(snap.action.kind, undefined);
  assert.deepEqual(Object.keys(snap.artifacts), ['__proto__']);
  assert.equal(Object.getPrototypeOf(snap.artifacts), Object.prototype);
  const args = snap.toolCalls[0].partialArguments;
  assert.equal(args.polluted, undefined);
  assert.deepEqual(Object.keys(args), ['__proto__', 'constructor', 'a']);
  assert.equal(snap.toolCalls[0].completeArguments.polluted, undefined);
  assert.equal(snap.payload.raw_answer, undefined);
  assert.equal({}.polluted, undefined);
});

test('apply is all or nothing: getters run once, a cycle, a BigInt, a throwing getter or key is invalid_input', () => {
  const cycle = { type: 'answer_delta', text: 'c' };
  cycle.self = cycle;
  const bad = [
    [{ type: 'answer_delta', text: 'a' }, cycle],
    [
      { type: 'answer_delta', text: 'a' },
      { type: 'usage', n: 1n },
    ],
    [
      { type: 'answer_delta', text: 'a' },
      {
        type: 'answer_delta',
        get text() {
          throw new Error('boom');
        },
      },
    ],
    [{ type: 'answer_delta', text: 'a' }, { type: 1 }],
    [{ type: 'answer_delta', text: 'a' }, []],
    [{ type: 'answer_delta', text: 'a' }, 'x'],
    [
      { type: 'answer_delta', text: 'a' },
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('trap');
          },
        },
      ),
    ],
  ];
  const s = new StreamState();
  const empty = s.snapshot();
  let heard = 0;
  s.subscribe(() => heard++);
  for (const batch of bad) assert.throws(() => s.apply(batch), isCode('invalid_input'));
  assert.equal(s.snapshot(), empty);
  assert.equal(heard, 0);
  let reads = 0;
  s.apply({
    type: 'answer_delta',
    get text() {
      reads++;
      return 'once';
    },
  });
  assert.equal(reads, 1);
  assert.equal(s.snapshot().answer, 'once');
  // A DAG is copied once per object, not once per path (2^40 paths here).
  let dag = { leaf: 1 };
  for (let i = 0; i < 40; i++) dag = { l: dag, r: dag };
  s.apply({ type: 'action', action: dag });
  let node = s.snapshot().action;
  for (let i = 0; i < 40; i++) node = i % 2 ? node.l : node.r;
  assert.equal(node.leaf, 1);
  assert.ok(s.bytes < 4096, `${s.bytes} bytes`);
  // Nor is it ever written out whole: as a source's identity, an error's code, a stream id.
  s.apply([
    { type: 'source', title: dag },
    { type: 'source', title: dag },
    { type: 'error', code: dag, message: 'm' },
    { type: 'artifact_chunk', stream_id: dag, seq: dag, chunk: 1 },
  ]);
  assert.equal(s.snapshot().sources.length, 2);
  assert.deepEqual(
    s.snapshot().errors.map((e) => e.code),
    ['error', 'wire_invalid'],
    'a code too long to write is "error"',
  );
  const deep = JSON.parse(`${'['.repeat(20_000)}1${']'.repeat(20_000)}`);
  s.apply({ type: 'usage', deep });

  const mux = new StreamMux({
    key: (e) => {
      if (e.text === 'boom') throw new Error('key');
      return e.session_id;
    },
  });
  const changes = [];
  mux.subscribe((c) => changes.push(c.type));
  for (const batch of [
    ...bad,
    [
      { type: 'answer_delta', text: 'a', session_id: 'a' },
      { type: 'answer_delta', text: 'boom', session_id: 'b' },
    ],
  ]) {
    assert.throws(() => mux.apply(batch), isCode('invalid_input'));
  }
  assert.deepEqual(mux.keys(), []);
  assert.deepEqual(changes, []);
});

test('listeners: one that throws stops no other and loses nothing; onListenerError or a microtask hears it', () => {
  const errors = [];
  const s = new StreamState({ onListenerError: (e) => errors.push(e.message) });
  const heard = [];
  s.subscribe(() => {
    throw new Error('first');
  });
  s.subscribe(() => heard.push(s.snapshot().answer));
  s.apply({ type: 'answer_delta', text: 'a' });
  s.apply({ type: 'answer_delta', text: 'b' });
  assert.deepEqual(heard, ['a', 'ab']);
  assert.deepEqual(errors, ['first', 'first']);

  // Without onListenerError the error is thrown again from a microtask.
  const queued = [];
  const queueMicrotask = globalThis.queueMicrotask;
  globalThis.queueMicrotask = (f) => queued.push(f);
  try {
    const t = new StreamState();
    t.subscribe(() => {
      throw new Error('later');
    });
    let other = 0;
    t.subscribe(() => other++);
    t.apply({ type: 'answer_delta', text: 'a' });
    assert.equal(other, 1);
    assert.equal(queued.length, 1);
    assert.throws(queued[0], /later/);
  } finally {
    globalThis.queueMicrotask = queueMicrotask;
  }

  const muxErrors = [];
  const mux = new StreamMux({ key: 'session_id', onListenerError: (e) => muxErrors.push(e.message) });
  const changes = [];
  mux.subscribe((c) => {
    throw new Error(`${c.type} ${c.key}`);
  });
  mux.subscribe((c) => changes.push(`${c.type} ${c.key}`));
  mux.apply([
    { type: 'answer_delta', text: 'x', session_id: 'a' },
    { type: 'done', ok: true, session_id: 'b' },
    { type: 'done', ok: true, session_id: 'a' },
  ]);
  assert.deepEqual(changes, ['added a', 'added b', 'ended a', 'ended b']);
  assert.deepEqual(muxErrors, changes);
  assert.deepEqual(mux.keys(), ['a', 'b']);
  // A stream's own listeners are isolated the same way, reported to the mux's handler.
  mux.get('a').subscribe(() => {
    throw new Error('state');
  });
  mux.apply({ type: 'usage', input_tokens: 1, session_id: 'a' });
  assert.equal(muxErrors.at(-1), 'state');
});

test('completeArguments: only values that ended; open containers with their complete members', () => {
  const s = new StreamState();
  const steps = [
    ['{"city": "Par', { city: 'Par' }, {}],
    ['is", "days": [1, 2', { city: 'Paris', days: [1] }, { city: 'Paris', days: [1] }],
    [', 3], "opts": {"unit": "c', { city: 'Paris', days: [1, 2, 3], opts: { unit: 'c' } }, { city: 'Paris', days: [1, 2, 3], opts: {} }],
    [
      'elsius", "n": 4',
      { city: 'Paris', days: [1, 2, 3], opts: { unit: 'celsius' } },
      { city: 'Paris', days: [1, 2, 3], opts: { unit: 'celsius' } },
    ],
    [
      '}, "ok": tr',
      { city: 'Paris', days: [1, 2, 3], opts: { unit: 'celsius', n: 4 } },
      { city: 'Paris', days: [1, 2, 3], opts: { unit: 'celsius', n: 4 } },
    ],
    [
      'ue, "tags": ["a", "b',
      { city: 'Paris', days: [1, 2, 3], opts: { unit: 'celsius', n: 4 }, ok: true, tags: ['a', 'b'] },
      { city: 'Paris', days: [1, 2, 3], opts: { unit: 'celsius', n: 4 }, ok: true, tags: ['a'] },
    ],
  ];
  s.apply({ type: 'tool_call_start', index: 0, id: 'c', name: 'f' });
  assert.equal(s.snapshot().toolCalls[0].completeArguments, undefined);
  const seen = [];
  for (const [text, partial, complete] of steps) {
    s.apply({ type: 'tool_call_delta', index: 0, arguments: text });
    const t = s.snapshot().toolCalls[0];
    assert.deepEqual(t.partialArguments, partial, text);
    assert.deepEqual(t.completeArguments, complete, text);
    seen.push(t.completeArguments);
  }
  // A complete value never changes: it is the same object in every later snapshot.
  assert.equal(seen[3].opts === seen[2].opts, false);
  assert.equal(seen[4].days, seen[2].days);
  assert.equal(seen[5].opts, seen[4].opts);
  s.apply({ type: 'tool_call_delta', index: 0, arguments: '"]}' });
  assert.equal(s.snapshot().toolCalls[0].completeArguments, s.snapshot().toolCalls[0].partialArguments, 'nothing open: the same object');
  assert.equal(s.snapshot().toolCalls[0].completeArguments.opts, seen[5].opts);
  const final = { city: 'Paris', days: [1, 2, 3], opts: { unit: 'celsius', n: 4 }, ok: true, tags: ['a', 'b'] };
  s.apply({ type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: final });
  assert.deepEqual(s.snapshot().toolCalls[0].completeArguments, final);

  // Text that is not JSON: the parser stops; `tool_call` then gives the repaired arguments.
  const r = new StreamState();
  r.apply(tool(['{"a": 1, "b": [tru', 'e, nul', 'l], oops']));
  assert.deepEqual(r.snapshot().toolCalls[0].completeArguments, { a: 1, b: [true, null] });
  r.apply({ type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: { a: 1, b: [true, null], oops: null }, repaired: true });
  assert.deepEqual(r.snapshot().toolCalls[0].completeArguments, { a: 1, b: [true, null], oops: null });
  const scalar = new StreamState();
  scalar.apply(tool(['"abc', 'd"']));
  assert.equal(scalar.snapshot().toolCalls[0].completeArguments, 'abcd');
});

// `a` is `b` or a part of it: objects with fewer members, arrays a prefix, the same leaves.
function isPart(a, b) {
  if (Array.isArray(a)) return Array.isArray(b) && a.length <= b.length && a.every((x, i) => isPart(x, b[i]));
  if (a !== null && typeof a === 'object') {
    return (
      b !== null && typeof b === 'object' && !Array.isArray(b) && Object.keys(a).every((k) => Object.hasOwn(b, k) && isPart(a[k], b[k]))
    );
  }
  return Object.is(a, b);
}

function randomValue(next, depth = 0) {
  const pick = next(depth > 3 ? 4 : 6);
  if (pick === 0) return ['', 'a', 'two words', 'é☕😀', 'q"uote\\'][next(5)];
  if (pick === 1) return [0, -12, 3.5, 1e21, 42][next(5)];
  if (pick === 2) return [true, false, null][next(3)];
  if (pick === 3) return 'x'.repeat(next(40));
  if (pick === 4) return Array.from({ length: next(5) }, () => randomValue(next, depth + 1));
  return Object.fromEntries(Array.from({ length: next(5) }, (_, i) => [`k${i}`, randomValue(next, depth + 1)]));
}

test('completeArguments at random splits: always a part of partialArguments, never changed, the final value at the end', () => {
  const next = rng(SEED);
  for (let doc = 0; doc < 60; doc++) {
    const value = { doc, v: randomValue(next) };
    const text = JSON.stringify(value, null, next(3));
    const s = new StreamState();
    s.apply({ type: 'tool_call_start', index: 0, id: 'c', name: 'f' });
    let before;
    for (let i = 0; i < text.length; ) {
      const end = Math.min(text.length, i + 1 + next(9));
      s.apply({ type: 'tool_call_delta', index: 0, arguments: text.slice(i, end) });
      i = end;
      const t = s.snapshot().toolCalls[0];
      const where = `seed ${SEED}, document ${doc}, at ${i}: ${text.slice(0, i)}`;
      if (t.completeArguments !== undefined) {
        assert.ok(isPart(t.completeArguments, t.partialArguments), where);
        if (before !== undefined) assert.ok(isPart(before, t.completeArguments), `${where}: a complete value changed`);
      }
      before = t.completeArguments;
    }
    assert.deepEqual(before, value, `seed ${SEED}, document ${doc}`);
    s.apply({ type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: value });
    assert.deepEqual(s.snapshot().toolCalls[0].completeArguments, value);
  }
});

test('subscribe with throttleMs: at most once a window, the last change always heard, done and errors at once', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const s = new StreamState();
  const heard = [];
  const stop = s.subscribe(() => heard.push(s.snapshot().answer), { throttleMs: 100 });
  s.apply({ type: 'answer_delta', text: 'a' });
  s.apply({ type: 'answer_delta', text: 'b' });
  s.apply({ type: 'answer_delta', text: 'c' });
  assert.deepEqual(heard, ['a']);
  t.mock.timers.tick(99);
  assert.deepEqual(heard, ['a']);
  t.mock.timers.tick(1);
  assert.deepEqual(heard, ['a', 'abc']);
  s.apply({ type: 'answer_delta', text: 'd' });
  assert.deepEqual(heard, ['a', 'abc']);
  s.apply({ type: 'error', code: 'x', message: 'y' });
  assert.deepEqual(heard, ['a', 'abc', 'abcd'], 'an error is heard at once');
  s.apply({ type: 'answer_delta', text: 'e' });
  s.apply({ type: 'done', ok: true });
  assert.deepEqual(heard, ['a', 'abc', 'abcd', 'abcde'], 'done is heard at once');
  t.mock.timers.tick(500);
  assert.equal(heard.length, 4);
  // Unsubscribing cancels the pending call.
  const u = new StreamState();
  let calls = 0;
  const off = u.subscribe(() => calls++, { throttleMs: 50 });
  u.apply({ type: 'answer_delta', text: 'a' });
  u.apply({ type: 'answer_delta', text: 'b' });
  off();
  t.mock.timers.tick(100);
  assert.equal(calls, 1);
  stop();

  // The mux: changes wait for the window's end, `ended` flushes them at once.
  const mux = new StreamMux({ key: 'session_id' });
  const changes = [];
  mux.subscribe((c) => changes.push(`${c.type} ${c.key}`), { throttleMs: 100 });
  mux.apply({ type: 'answer_delta', text: 'x', session_id: 'a' });
  mux.apply({ type: 'answer_delta', text: 'x', session_id: 'b' });
  mux.apply({ type: 'answer_delta', text: 'x', session_id: 'c' });
  assert.deepEqual(changes, ['added a']);
  t.mock.timers.tick(100);
  assert.deepEqual(changes, ['added a', 'added b', 'added c']);
  mux.apply({ type: 'answer_delta', text: 'x', session_id: 'd' });
  mux.apply({ type: 'done', ok: true, session_id: 'a' });
  assert.deepEqual(changes, ['added a', 'added b', 'added c', 'added d', 'ended a']);
});

test('StreamMux: delete, releaseEnded, maxStreams and the mux errors', () => {
  const mux = new StreamMux({ key: 'session_id', maxStreams: 2 });
  mux.apply([
    { type: 'answer_delta', text: 'a', session_id: 'a' },
    { type: 'answer_delta', text: 'b', session_id: 'b' },
    { type: 'answer_delta', text: 'c', session_id: 'c' },
    { type: 'answer_delta', text: 'c2', session_id: 'c' },
    { type: 'answer_delta', text: 'a2', session_id: 'a' },
  ]);
  assert.deepEqual(mux.keys(), ['a', 'b']);
  assert.equal(mux.get('a').snapshot().answer, 'aa2');
  assert.equal(mux.get('c'), undefined);
  assert.deepEqual(
    mux.errors().map((e) => e.code),
    ['buffer_limit_exceeded'],
  );
  assert.ok(Object.isFrozen(mux.errors()));
  mux.apply({ type: 'answer_delta', text: 'd', session_id: 'd' });
  assert.equal(mux.errors().length, 1, 'one error, not one per dropped event');
  const keys = mux.keys();
  assert.equal(mux.delete('a'), true);
  assert.equal(mux.delete('a'), false);
  assert.notEqual(mux.keys(), keys);
  assert.deepEqual(mux.keys(), ['b']);
  assert.equal(mux.get('a'), undefined);
  mux.apply({ type: 'answer_delta', text: 'new', session_id: 'a' });
  assert.deepEqual(mux.keys(), ['b', 'a']);
  assert.equal(mux.get('a').snapshot().answer, 'new');

  const released = new StreamMux({ key: 'session_id', releaseEnded: true });
  const heard = [];
  released.subscribe((c) => heard.push([c.type, c.key, c.state.snapshot().answer, released.get(c.key) === c.state]));
  released.apply([
    { type: 'answer_delta', text: 'hi', session_id: 's' },
    { type: 'done', ok: true, session_id: 's' },
    { type: 'answer_delta', text: 'on', session_id: 't' },
  ]);
  assert.deepEqual(heard, [
    ['added', 's', 'hi', true],
    ['added', 't', 'on', true],
    ['ended', 's', 'hi', true],
  ]);
  assert.deepEqual(released.keys(), ['t']);
  assert.equal(released.get('s'), undefined);
  assert.equal(released.ended('s'), false);
});

test('TypeScript: the options, completeArguments, sources and usage type-check', async () => {
  const { status, output } = typecheck(
    'ts-client-state',
    `
    import { StreamState, StreamMux, type StreamSnapshot, type StreamStateOptions, type StreamMuxOptions, type SubscribeOptions } from 'streamroute';
    const options: StreamStateOptions = { maxBytes: 1 << 20, onListenerError: (e: unknown) => console.error(e) };
    const state = new StreamState(options);
    const throttle: SubscribeOptions = { throttleMs: 50 };
    const stop: () => void = state.subscribe(() => {}, throttle);
    const s: StreamSnapshot = state.snapshot();
    const url: string | null | undefined = s.sources[0]?.url;
    const tokens: number | null | undefined = s.usage?.total_tokens;
    const done: unknown = s.toolCalls[0]?.completeArguments;
    const bytes: number = state.bytes;
    const muxOptions: StreamMuxOptions = { key: 'session_id', maxStreams: 100, releaseEnded: true, maxBytes: 1 << 16, throttle: 20 };
    const mux = new StreamMux(muxOptions);
    const released: boolean = mux.delete('a');
    const errors: readonly { readonly code: string }[] = mux.errors();
    mux.subscribe((c) => void c, { throttleMs: 10 });
    const commentary: string = s.commentary;
    const compaction: string = s.compaction;
    const kind: string | undefined = s.continuations[0]?.kind;
    const signature: unknown = s.continuations[0]?.signature;
    const to: unknown = s.modelFallback?.to;
    const container: string | undefined = s.container?.id;
    const stopDetails: unknown = s.stopDetails;
    const finishMessage: string | null = s.finishMessage;
    const caller: unknown = s.toolCalls[0]?.caller;
    state.apply([{ type: 'continuation', kind: 'thinking_signature', signature: 'x' }, { type: 'compaction', text: 'c' },
      { type: 'answer_delta', text: 'a', phase: 'commentary' }]);
    // @ts-expect-error: an unknown option
    new StreamState({ maxByte: 1 });
    void [stop, url, tokens, done, bytes, released, errors, commentary, compaction, kind, signature, to, container, stopDetails,
      finishMessage, caller];
  `,
  );
  assert.equal(status, 0, output);
});

// ---------------------------------------------------------------------------------------
// What the next request sends back: commentary, continuations, compaction, the model that
// answered, the container, a tool call's caller, done's stop details and finish message.

test('commentary is kept apart from the answer; continuations in order as received; compaction, fallback, container, caller, done details', () => {
  const s = new StreamState();
  const empty = s.snapshot();
  assert.deepEqual(
    [empty.commentary, empty.compaction, empty.continuations, empty.modelFallback, empty.container, empty.stopDetails, empty.finishMessage],
    ['', '', [], null, null, null, null],
  );
  const signature = { type: 'continuation', kind: 'thinking_signature', signature: 'sig', trace_id: 't' };
  s.apply([
    { type: 'model_fallback', from: 'a', to: { id: 'b' } },
    { type: 'container', id: 'cntr', expires_at: '2026-01-01T00:00:00Z', session_id: 's' },
    { type: 'thinking_delta', text: 'hm', source: 'reasoning' },
    signature,
    { type: 'answer_delta', text: 'Looking. ', phase: 'commentary' },
    { type: 'tool_call_start', index: 0, id: 'c', name: 'f', caller: { type: 'direct' } },
    { type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: {}, repaired: false },
    { type: 'tool_call_start', index: 1, id: 'd', name: 'g' },
    { type: 'compaction', text: 'Earlier ' },
    { type: 'compaction', text: 'turns.' },
    { type: 'answer_delta', text: 'It is ', phase: 'final_answer' },
    { type: 'answer_delta', text: 'x.' },
  ]);
  const mid = s.snapshot();
  assert.equal(mid.answer, 'It is x.');
  assert.equal(mid.commentary, 'Looking. ');
  assert.equal(mid.compaction, 'Earlier turns.');
  assert.deepEqual(mid.continuations, [signature]);
  assert.notEqual(mid.continuations[0], signature, "a copy, not the caller's object");
  assert.deepEqual(mid.modelFallback, { from: 'a', to: { id: 'b' } });
  assert.deepEqual(mid.container, { id: 'cntr', expires_at: '2026-01-01T00:00:00Z' });
  assert.deepEqual(mid.toolCalls[0].caller, { type: 'direct' });
  assert.ok(!('caller' in mid.toolCalls[1]), 'no caller when the provider named none');
  assert.equal(mid.stopDetails, null);
  assertPlainData(mid);

  const item = { type: 'continuation', kind: 'item', item_type: 'message', id: 'm' };
  s.apply(item);
  const next = s.snapshot();
  assert.deepEqual(next.continuations, [signature, item]);
  assert.equal(next.continuations[0], mid.continuations[0], 'an earlier continuation is the same object');
  assert.equal(next.toolCalls, mid.toolCalls, 'what did not change is the same object');
  assert.equal(next.thinking, mid.thinking);
  s.apply({ type: 'answer_delta', text: ' More.' });
  assert.equal(s.snapshot().continuations, next.continuations, 'the list is the same until a continuation comes');

  s.apply({
    type: 'done',
    ok: true,
    parse_ok: true,
    finish_reason: 'end_turn',
    finish: 'stop',
    stop_details: { type: 'refusal', category: 'cyber' },
    finish_message: 'Stopped.',
  });
  const done = s.snapshot();
  assert.deepEqual([done.stopDetails, done.finishMessage, done.status], [{ type: 'refusal', category: 'cyber' }, 'Stopped.', 'done']);
  assertPlainData(done);
});

test('continuations: members named __proto__ stay data, hostile values never break the fold, and every byte counts', () => {
  const s = new StreamState();
  s.apply(
    JSON.parse(
      '[{"type": "continuation", "kind": "reasoning", "__proto__": {"polluted": true}, "summary": [{"__proto__": {"x": 1}}]},' +
        '{"type": "container", "__proto__": {"id": "evil"}, "constructor": 1}, {"type": "model_fallback", "from": {"__proto__": null}}]',
    ),
  );
  const snap = s.snapshot();
  assert.equal({}.polluted, undefined);
  assert.equal(snap.continuations[0].polluted, undefined);
  assert.deepEqual(Object.keys(snap.continuations[0]), ['type', 'kind', '__proto__', 'summary']);
  assert.equal(Object.getPrototypeOf(snap.continuations[0]), Object.prototype);
  assert.equal(snap.container.id, undefined);
  assert.deepEqual(Object.keys(snap.container), ['__proto__', 'constructor']);
  assert.deepEqual(snap.modelFallback.to, null);
  assertPlainData(snap);
  // Not strings where text goes: nothing kept, nothing thrown.
  s.apply([
    { type: 'compaction', text: { no: 1 } },
    { type: 'answer_delta', text: 5, phase: 'commentary' },
    { type: 'done', ok: true, parse_ok: true, finish_reason: null, finish_message: 7 },
  ]);
  assert.deepEqual([s.snapshot().compaction, s.snapshot().commentary, s.snapshot().finishMessage], ['', '', null]);

  // The budget: continuations, commentary and compaction are charged like the rest.
  const big = 'x'.repeat(1000);
  for (const [event, field] of [
    [{ type: 'continuation', kind: 'reasoning', encrypted_content: big }, 'continuations'],
    [{ type: 'answer_delta', text: big, phase: 'commentary' }, 'commentary'],
    [{ type: 'compaction', text: big }, 'compaction'],
    [{ type: 'container', id: big }, 'container'],
    [{ type: 'model_fallback', from: big, to: big }, 'modelFallback'],
    [{ type: 'done', ok: true, parse_ok: true, finish_reason: null, stop_details: { big } }, 'stopDetails'],
  ]) {
    const small = new StreamState({ maxBytes: 1500 });
    small.apply(event);
    assert.deepEqual(
      small.snapshot().errors.map((e) => e.code),
      ['buffer_limit_exceeded'],
      field,
    );
    assert.ok(small.bytes <= 1500, field);
    const roomy = new StreamState();
    roomy.apply(event);
    assert.ok(roomy.bytes >= 2000, `${field}: ${roomy.bytes} bytes charged`);
  }
  const held = new StreamState();
  held.apply({ type: 'container', id: big });
  const once = held.bytes;
  held.apply({ type: 'container', id: big });
  assert.equal(held.bytes, once, 'a container replaces the last one, its bytes too');
});

test('scaling: a continuation with a snapshot after each copies the list once; folding is linear', () => {
  const s = new StreamState();
  let prev = s.snapshot();
  for (let i = 0; i < 300; i++) {
    s.apply({ type: 'continuation', kind: 'thinking_signature', signature: `s${i}` });
    const before = work();
    const snap = s.snapshot();
    assert.ok(work() - before <= i + 1 + 14, `snapshot ${i} copied ${work() - before}`);
    if (i > 0) assert.equal(snap.continuations[0], prev.continuations[0]);
    prev = snap;
  }
  assertScales('continuations folded, one snapshot', 500, (n) => {
    const st = new StreamState();
    const events = [];
    for (let i = 0; i < n; i++)
      events.push(
        { type: 'continuation', kind: 'item', item_type: 'message', id: `m${i}` },
        { type: 'answer_delta', text: 'x', phase: 'commentary' },
      );
    st.apply(events);
    st.snapshot();
  });
});
