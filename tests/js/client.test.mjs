// The client half of the wire (the packed package): fromSse reads back what toSse writes, in
// all three profiles and at every chunking; StreamState folds events into immutable snapshots;
// StreamMux splits a multiplexed connection; connectSse reads a profile and resumes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as main from 'streamroute';
import * as client from 'streamroute/client';
import { SEED, splitings } from './helpers/chunking.mjs';
import { NONCE, SAMPLES, coalesce } from './helpers/streams.mjs';
import { EXTRA_EVENTS, PROFILES, casesOf, fold, readWire, roundTrips, wireText, withRun } from './helpers/client-roundtrip.mjs';
import { listen } from './helpers/runtimes.mjs';
import { typecheck } from './helpers/typecheck.mjs';

// The client half from 'streamroute/client', as a page imports it; the router and toSse (the
// server's side) from the main entry.
const sr = {
  ...main,
  StreamMux: client.StreamMux,
  StreamState: client.StreamState,
  connectSse: client.connectSse,
  fromSse: client.fromSse,
};
const { StreamMux, StreamState, StreamrouteError, connectSse, fromSse } = sr;

const CASES = casesOf(sr, SAMPLES, NONCE);

test('every sample and every profile: toSse → fromSse → StreamState is StreamState of the routed events, at every chunking', async () => {
  const { compared, mismatches } = await roundTrips(sr, CASES, { seed: SEED });
  assert.deepEqual(mismatches, [], `seed ${SEED}`);
  assert.ok(compared >= CASES.length * PROFILES.length * 12, `${compared} snapshots`);
});

test('the round trip gives the routed events back (text deltas merged)', async () => {
  for (const [name, events] of CASES.slice(0, -1)) {
    for (const profile of PROFILES) {
      const back = await readWire(sr, profile, [await wireText(sr, events, profile)]);
      // The ai-sdk wire holds errors back to just before the finish, after what was recovered.
      const want =
        profile === 'ai-sdk'
          ? [
              ...events.filter((e) => e.type !== 'error' && e.type !== 'done'),
              ...events.filter((e) => e.type === 'error'),
              ...events.filter((e) => e.type === 'done'),
            ]
          : events;
      assert.deepEqual(coalesce(back), coalesce(withRun(profile, want)), `${name} ${profile}`);
    }
  }
});

test('the snapshots say what the streams say', async () => {
  const tools = fold(sr, CASES.find(([n]) => n === 'openai-chat-tools.sse')[1]);
  assert.equal(tools.status, 'done');
  assert.equal(tools.finish, 'tool-calls', 'done.finish, normalised');
  assert.deepEqual(tools.thinking, { reasoning: 'Two cities, so two weather calls in parallel.', thought: '' });
  assert.deepEqual(
    tools.toolCalls.map((t) => [t.index, t.id, t.name, t.argumentsText, t.partialArguments, t.arguments, t.state, t.providerExecuted]),
    [
      [
        0,
        'call_Wx1',
        'get_weather',
        '{"city": "Paris", "unit": "celsius"}',
        { city: 'Paris', unit: 'celsius' },
        { city: 'Paris', unit: 'celsius' },
        'input-available',
        false,
      ],
      [
        1,
        'call_Wx2',
        'get_weather',
        '{"city": "Tōkyō", "unit": "celsius"}',
        { city: 'Tōkyō', unit: 'celsius' },
        { city: 'Tōkyō', unit: 'celsius' },
        'input-available',
        false,
      ],
    ],
  );
  assert.equal(tools.usage.total_tokens, 175);
  const extra = fold(sr, EXTRA_EVENTS);
  assert.equal(extra.answer, 'Revenue grew 15% in Q3 — ☕ 😀.');
  assert.deepEqual(extra.artifacts, {
    chart: { chunks: [{ points: [1, 2] }, { points: [3] }], seq: 1, done: true, artifact_type: 'dict', gaps: [] },
    table: { chunks: ['row 1', 'row 2'], seq: 1, done: true, artifact_type: 'str', gaps: [] },
  });
  assert.deepEqual(
    extra.sources.map((s) => s.title),
    ['Q3 report'],
  );
  assert.equal(extra.payload.language, 'en');
  assert.equal(extra.status, 'done');
  const failed = fold(sr, CASES.find(([n]) => n === 'anthropic-error.sse')[1]);
  assert.equal(failed.status, 'error');
  assert.deepEqual(failed.errors, [{ code: 'overloaded_error', message: 'Overloaded' }]);
});

async function collect(readable) {
  const out = [];
  for await (const x of readable) out.push(x);
  return out;
}

const frames = (list) =>
  list
    .map(
      ([name, data, id]) =>
        `${id ? `id: ${id}\n` : ''}${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
    )
    .join('');

async function readAll(profile, text) {
  const out = [];
  // Whole, and a UTF-16 unit at a time.
  for (const chunks of [[text], Array.from(text)]) out.push(await readWire(sr, profile, chunks));
  assert.deepEqual(coalesce(out[1]), coalesce(out[0]));
  return out[0];
}

test('hand-written planner frames: reference phases, tool calls without index, errors without code, unknown frames', async () => {
  const text = frames([
    ['event', { event: 'connected', trace_id: 't', session_id: 's' }],
    ['llm_stream_chunk', { text: '', done: false, phase: 'action', channel: 'thinking', action_seq: 1 }],
    ['llm_stream_chunk', { text: 'Let me think.', done: false, phase: 'thinking', channel: 'thinking', action_seq: 1, trace_id: 't' }],
    ['llm_stream_chunk', { text: 'Need data.', done: false, phase: 'observation', channel: 'thinking' }],
    ['tool_call_start', { tool_call_id: 'a', tool_name: 'search', args_json: '', action_seq: 1 }],
    ['tool_call_args', { tool_call_id: 'a', delta: '{"q": "ca' }],
    ['tool_call_args', { tool_call_id: 'a', delta: 'ts"}' }],
    ['tool_call_end', { tool_call_id: 'a', tool_name: 'search' }],
    ['state_update', { whatever: true }],
    ['llm_stream_chunk', '{"text": "broken'],
    ['llm_stream_chunk', { text: 'Hello ', done: false, phase: 'answer', channel: 'answer', action_seq: 2 }],
    ['llm_stream_chunk', { text: 'world', done: false, phase: 'answer', channel: 'answer', action_seq: 2 }],
    ['llm_stream_chunk', { text: '', done: true, phase: 'answer', channel: 'answer', action_seq: 2 }],
    ['event', { event: 'usage', input_tokens: 4, output_tokens: 2, trace_id: 't' }],
    ['artifact_chunk', { stream_id: 'chart', seq: 1, chunk: [2], done: true, artifact_type: 'list', meta: {}, event: 'artifact_chunk' }],
    ['artifact_chunk', { stream_id: 'chart', seq: 0, chunk: [1], done: false, artifact_type: 'list', meta: {}, event: 'artifact_chunk' }],
    ['artifact_chunk', { seq: 3 }],
    ['error', { error: 'tool timed out', trace_id: 't' }],
    ['done', { trace_id: 't', answer: 'Hello world', metadata: { steps: 2 }, pause: null, answer_action_seq: 2 }],
  ]);
  const events = await readAll('planner', text);
  const invalid = events.filter((e) => e.code === 'wire_invalid');
  assert.equal(invalid.length, 2, JSON.stringify(invalid));
  assert.deepEqual(
    events.find((e) => e.type === 'tool_call'),
    {
      type: 'tool_call',
      index: 0,
      id: 'a',
      name: 'search',
      arguments: null,
      repaired: false,
      action_seq: 1,
    },
  );
  assert.equal(events.find((e) => e.type === 'thinking_delta').trace_id, 't');
  assert.deepEqual(events.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: null, trace_id: 't', action_seq: 2 });
  const s = fold(sr, events);
  assert.equal(s.answer, 'Hello world');
  assert.deepEqual(s.thinking, { reasoning: 'Let me think.', thought: 'Need data.' });
  assert.deepEqual(s.toolCalls[0].partialArguments, { q: 'cats' });
  assert.equal(s.toolCalls[0].argumentsText, '{"q": "cats"}');
  assert.deepEqual(s.usage, { input_tokens: 4, output_tokens: 2 });
  assert.deepEqual(s.artifacts.chart, { chunks: [[1], [2]], seq: 1, done: true, artifact_type: 'list', gaps: [] });
  assert.equal(s.status, 'error');
  assert.deepEqual(
    s.errors.map((e) => e.code),
    ['wire_invalid', 'wire_invalid', 'server_error'],
  );
});

test('hand-written tagged and ai-sdk streams', async () => {
  const tagged = await readAll(
    'tagged',
    frames([
      ['artifact_delta', { text: '# Draft\n' }, '1'],
      ['ping', {}],
      ['artifact_delta', { text: 'body' }, '2'],
      ['user_delta', { text: 'Save it?' }, '3'],
      ['user_delta', 'not json', '4'],
      ['done', { ok: false, parse_ok: true, error: { code: 'stream_truncated', message: 'cut' } }, '5'],
    ]),
  );
  let s = fold(sr, tagged);
  assert.equal(s.artifactText, '# Draft\nbody');
  assert.equal(s.userText, 'Save it?');
  assert.equal(s.status, 'error');
  assert.deepEqual(
    s.errors.map((e) => e.code),
    ['wire_invalid', 'stream_truncated'],
  );
  assert.match(s.errors[0].message, /frame id 4/);

  const ai = await readAll(
    'ai-sdk',
    frames([
      [null, { type: 'start', messageId: 'm1' }],
      [null, { type: 'start-step' }],
      [null, { type: 'reasoning-start', id: 'r' }],
      [null, { type: 'reasoning-delta', id: 'r', delta: 'Hmm.' }],
      [null, { type: 'reasoning-end', id: 'r' }],
      [null, { type: 'text-start', id: 't' }],
      [null, { type: 'text-delta', id: 't', delta: 'Sunny ' }],
      [null, { type: 'text-delta', id: 't', delta: 'today.' }],
      [null, { type: 'text-end', id: 't' }],
      [null, { type: 'tool-input-start', toolCallId: 'w', toolName: 'weather', providerExecuted: true }],
      [null, { type: 'tool-input-delta', toolCallId: 'w', inputTextDelta: '{"city":"Oslo"}' }],
      [null, { type: 'tool-input-available', toolCallId: 'w', toolName: 'weather', input: { city: 'Oslo' } }],
      [null, { type: 'tool-output-available', toolCallId: 'w', output: { temp: 3 } }],
      [null, { type: 'source-url', sourceId: 's1', url: 'https://met.no', title: 'MET' }],
      [null, { type: 'source-url', sourceId: 's2', url: 'https://met.no', title: 'MET again' }],
      [null, { type: 'text-delta' }],
      [null, { type: 'error', errorText: 'rate_limited: slow down' }],
      [null, { type: 'finish-step' }],
      [null, { type: 'finish', finishReason: 'stop' }],
      [null, '[DONE]'],
    ]),
  );
  s = fold(sr, ai);
  assert.equal(s.answer, 'Sunny today.');
  assert.equal(s.thinking.reasoning, 'Hmm.');
  assert.deepEqual(s.toolCalls, [
    {
      index: 0,
      id: 'w',
      name: 'weather',
      argumentsText: '{"city":"Oslo"}',
      partialArguments: { city: 'Oslo' },
      completeArguments: { city: 'Oslo' },
      arguments: { city: 'Oslo' },
      providerExecuted: true,
      result: { temp: 3 },
      state: 'output-available',
    },
  ]);
  assert.deepEqual(s.sources, [{ id: 's1', url: 'https://met.no', title: 'MET', snippet: null }]);
  assert.deepEqual(s.errors, [
    { code: 'wire_invalid', message: 'text-delta frame: text-delta without delta' },
    { code: 'rate_limited', message: 'slow down' },
  ]);
  assert.equal(s.finish, 'stop');
  assert.equal(s.status, 'error');
  assert.throws(
    () => fromSse('json'),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_option',
  );
});

test('a frame over maxEventBytes is wire_invalid and reading goes on after it, at every chunking', async () => {
  const text = frames([
    ['user_delta', { text: 'é'.repeat(100) }],
    ['user_delta', { text: 'ok' }],
    ['user_delta', { text: 'x'.repeat(100) }],
    ['done', { ok: true, parse_ok: true }],
  ]);
  for (const [label, chunks] of splitings(text)) {
    const events = await collect(
      new ReadableStream({
        pull(c) {
          const x = chunks.shift();
          x === undefined ? c.close() : c.enqueue(x);
        },
      }).pipeThrough(fromSse('tagged', { maxEventBytes: 64 })),
    );
    assert.deepEqual(
      events.map((e) => e.text ?? e.code ?? e.type),
      ['wire_invalid', 'ok', 'wire_invalid', 'done'],
      label,
    );
    assert.match(events[0].message, /sse_event_too_large/);
  }
  // A chunk that is neither text nor bytes is the caller's mistake: the stream errors.
  await assert.rejects(
    collect(
      new ReadableStream({
        start(c) {
          c.enqueue(42);
          c.close();
        },
      }).pipeThrough(fromSse('planner')),
    ),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
  );
});

test('StreamState: bound methods, the same snapshot while nothing changes, structure shared, listeners', () => {
  const state = new StreamState();
  const { snapshot, subscribe, apply } = state;
  const empty = snapshot();
  assert.equal(snapshot(), empty);
  assert.ok(Object.isFrozen(empty));
  assert.deepEqual(
    { ...empty, thinking: { ...empty.thinking } },
    {
      status: 'streaming',
      answer: '',
      thinking: { reasoning: '', thought: '' },
      artifactText: '',
      userText: '',
      refusal: '',
      toolCalls: [],
      action: null,
      artifacts: {},
      sources: [],
      usage: null,
      payload: null,
      finish: null,
      errors: [],
      commentary: '',
      compaction: '',
      continuations: [],
      modelFallback: null,
      container: null,
      stopDetails: null,
      finishMessage: null,
    },
  );
  let calls = 0;
  const stop = subscribe(() => calls++);
  apply({ type: 'answer_delta', text: 'a' });
  apply([
    { type: 'answer_delta', text: 'b' },
    { type: 'thinking_delta', text: 't', source: 'thought' },
  ]);
  apply({ type: 'answer_delta', text: '' });
  apply({ type: 'some_future_event' });
  assert.equal(calls, 2);
  const one = snapshot();
  assert.equal(one.answer, 'ab');
  assert.equal(one.toolCalls, empty.toolCalls);
  assert.equal(one.artifacts, empty.artifacts);
  assert.equal(snapshot(), one);
  apply({ type: 'tool_call_start', index: 0, id: 'c', name: 'f' });
  apply({ type: 'tool_call_delta', index: 0, arguments: '{"a": {"b": "x' });
  const two = snapshot();
  assert.equal(two.thinking, one.thinking);
  assert.deepEqual(two.toolCalls[0].partialArguments, { a: { b: 'x' } });
  apply({ type: 'tool_call_start', index: 1, id: 'd', name: 'g' });
  const three = snapshot();
  assert.equal(three.toolCalls[0], two.toolCalls[0], 'an unchanged tool call is the same object');
  apply({ type: 'tool_call_delta', index: 1, arguments: '[1' });
  apply({ type: 'tool_call_delta', index: 0, arguments: 'y"}, "c": [1, 2' });
  const four = snapshot();
  assert.deepEqual(four.toolCalls[0].partialArguments, { a: { b: 'xy' }, c: [1] }, 'a number is reported once complete');
  assert.deepEqual(two.toolCalls[0].partialArguments, { a: { b: 'x' } }, 'older snapshots do not change');
  assert.deepEqual(four.toolCalls[1].partialArguments, []);
  apply({ type: 'tool_call_delta', index: 0, arguments: '], "d": 1}' });
  apply({ type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: { a: { b: 'xy' }, c: [1, 2], d: 1 }, repaired: false });
  apply({ type: 'tool_result', id: 'c', result: 'ok' });
  const five = snapshot();
  assert.equal(five.toolCalls[1], four.toolCalls[1]);
  assert.equal(five.toolCalls[0].partialArguments.a, four.toolCalls[0].partialArguments.a, 'an unchanged branch is shared');
  assert.deepEqual(five.toolCalls[0], {
    index: 0,
    id: 'c',
    name: 'f',
    argumentsText: '{"a": {"b": "xy"}, "c": [1, 2], "d": 1}',
    partialArguments: { a: { b: 'xy' }, c: [1, 2], d: 1 },
    completeArguments: { a: { b: 'xy' }, c: [1, 2], d: 1 },
    arguments: { a: { b: 'xy' }, c: [1, 2], d: 1 },
    providerExecuted: false,
    result: 'ok',
    state: 'output-available',
  });
  stop();
  apply({ type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop-normalised' });
  assert.equal(calls, 10);
  assert.equal(snapshot().status, 'done');
  assert.equal(snapshot().finish, 'stop-normalised');
  assert.throws(
    () => apply(null),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
  );
  assert.throws(
    () => subscribe(1),
    (e) => e.code === 'invalid_input',
  );
});

test('StreamState artifacts: out-of-order seq fills gaps, repeats are ignored, a wild seq or too many missing is an error', () => {
  const state = new StreamState();
  const chunk = (seq, c, done = false) => ({ type: 'artifact_chunk', stream_id: 'x', seq, chunk: c, done, artifact_type: 'str' });
  state.apply([chunk(0, 'a'), chunk(3, 'd', true), chunk(0, 'A')]);
  assert.deepEqual(state.snapshot().artifacts.x, { chunks: ['a', 'd'], seq: 3, done: true, artifact_type: 'str', gaps: [1, 2] });
  state.apply([chunk(2, 'c'), chunk(2, 'C'), chunk(1, 'b')]);
  assert.deepEqual(state.snapshot().artifacts.x, { chunks: ['a', 'b', 'c', 'd'], seq: 3, done: true, artifact_type: 'str', gaps: [] });
  assert.equal(state.snapshot().status, 'streaming');
  state.apply([chunk(1e12, 'far'), chunk(-1, 'neg'), chunk(1.5, 'frac')]);
  assert.deepEqual(
    state.snapshot().errors.map((e) => e.code),
    ['wire_invalid', 'wire_invalid', 'wire_invalid'],
  );
  assert.equal(state.snapshot().artifacts.x.chunks.length, 4);
  // The gap list is bounded in total, not per jump: jumps that add up past the cap are refused.
  state.apply([chunk(40_003, 'j1'), chunk(80_003, 'j2')]);
  assert.equal(state.snapshot().artifacts.x.gaps.length, 39_999);
  assert.equal(state.snapshot().errors.length, 4);
  const proto = new StreamState();
  proto.apply({ type: 'artifact_chunk', stream_id: '__proto__', seq: 0, chunk: 1, done: true, artifact_type: 'int' });
  assert.deepEqual(Object.keys(proto.snapshot().artifacts), ['__proto__']);
});

test('StreamMux: a planner connection with a foreground answer, two background tasks and two artifact streams', async () => {
  const text = frames([
    ['llm_stream_chunk', { session_id: 'fg', text: 'Working on ', phase: 'answer', channel: 'answer', action_seq: 1 }],
    ['llm_stream_chunk', { session_id: 'bg1', text: 'Crawled 3 pages.', phase: 'answer', channel: 'answer', action_seq: 1 }],
    ['artifact_chunk', { session_id: 'art', stream_id: 'chart', seq: 1, chunk: [2], done: true, artifact_type: 'list', meta: {} }],
    ['llm_stream_chunk', { session_id: 'fg', text: 'it.', phase: 'answer', channel: 'answer', action_seq: 1 }],
    ['artifact_chunk', { session_id: 'art', stream_id: 'table', seq: 0, chunk: 'r1', done: false, artifact_type: 'str', meta: {} }],
    ['artifact_chunk', { session_id: 'art', stream_id: 'chart', seq: 1, chunk: [99], done: true, artifact_type: 'list', meta: {} }],
    ['llm_stream_chunk', { session_id: 'bg2', text: 'Indexed.', phase: 'answer', channel: 'answer', action_seq: 1 }],
    ['done', { session_id: 'bg1', answer: 'Crawled 3 pages.', metadata: { ok: true }, pause: null, answer_action_seq: 1 }],
    ['artifact_chunk', { session_id: 'art', stream_id: 'chart', seq: 0, chunk: [1], done: false, artifact_type: 'list', meta: {} }],
    ['artifact_chunk', { session_id: 'art', stream_id: 'table', seq: 1, chunk: 'r2', done: true, artifact_type: 'str', meta: {} }],
    ['error', { session_id: 'bg2', error: 'task failed', code: 'task_failed' }],
    ['done', { session_id: 'bg2', metadata: { ok: false } }],
    ['done', { session_id: 'fg', metadata: { ok: true, finish_reason: 'stop' }, payload: { raw_answer: 'Working on it.', sources: [] } }],
  ]);
  const events = await readAll('planner', text);
  const bySession = new StreamMux({ key: 'session_id' });
  const changes = [];
  bySession.subscribe((c) => changes.push(`${c.type} ${c.key}`));
  for (const e of events) bySession.apply(e);
  assert.deepEqual(bySession.keys(), ['fg', 'bg1', 'art', 'bg2']);
  assert.deepEqual(changes, ['added fg', 'added bg1', 'added art', 'added bg2', 'ended bg1', 'ended art', 'ended bg2', 'ended fg']);
  const fg = bySession.get('fg').snapshot();
  assert.equal(fg.answer, 'Working on it.');
  assert.equal(fg.status, 'done');
  assert.equal(fg.finish, 'stop');
  assert.equal(bySession.get('bg2').snapshot().status, 'error');
  assert.deepEqual(bySession.get('art').snapshot().artifacts.chart, {
    chunks: [[1], [2]],
    seq: 1,
    done: true,
    artifact_type: 'list',
    gaps: [],
  });

  const byStream = new StreamMux({ key: 'stream_id' });
  byStream.apply(events);
  assert.deepEqual(byStream.keys(), [null, 'chart', 'table']);
  assert.deepEqual(byStream.get('table').snapshot().artifacts.table.chunks, ['r1', 'r2']);
  assert.ok(byStream.ended('chart') && byStream.ended('table'));
  const byFn = new StreamMux({ key: (e) => (e.type === 'artifact_chunk' ? 'artifacts' : 'text') });
  byFn.apply(events);
  assert.deepEqual(byFn.keys(), ['text', 'artifacts']);
  assert.throws(
    () => new StreamMux({ key: 'nope' }),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_option',
  );
  assert.throws(
    () => new StreamMux(),
    (e) => e.code === 'invalid_option',
  );
});

test('StreamMux and StreamState: a batch with a bad element changes nothing; the mux makes no snapshot', () => {
  const state = new StreamState();
  state.apply({ type: 'answer_delta', text: 'a' });
  const before = state.snapshot();
  let heard = 0;
  state.subscribe(() => heard++);
  assert.throws(
    () => state.apply([{ type: 'answer_delta', text: 'b' }, null]),
    (e) => e.code === 'invalid_input',
  );
  assert.equal(state.snapshot(), before);
  assert.equal(heard, 0);

  const mux = new StreamMux({ key: 'session_id' });
  const changes = [];
  mux.subscribe((c) => changes.push(c.type));
  assert.throws(
    () => mux.apply([{ type: 'answer_delta', text: 'x', session_id: 'a' }, { session_id: 'b' }]),
    (e) => e.code === 'invalid_input',
  );
  assert.deepEqual(mux.keys(), []);
  assert.deepEqual(changes, []);

  // Ending is read without a snapshot: folding n artifact chunks through the mux makes none
  // (a snapshot copies every chunk, so one per event would cost O(n^2)).
  const snapshot = StreamState.prototype.snapshot;
  let snapshots = 0;
  StreamState.prototype.snapshot = function counted() {
    snapshots++;
    return snapshot.call(this);
  };
  try {
    const art = new StreamMux({ key: 'session_id' });
    const ended = [];
    art.subscribe((c) => c.type === 'ended' && ended.push(c.key));
    for (let seq = 0; seq < 1000; seq++) {
      art.apply({
        type: 'artifact_chunk',
        session_id: 's',
        stream_id: 't',
        seq,
        chunk: 'r',
        done: seq === 999,
        artifact_type: 'str',
        meta: {},
      });
    }
    assert.equal(snapshots, 0);
    assert.deepEqual(ended, ['s']);
    const keys = art.keys();
    assert.equal(art.keys(), keys, 'the same array until a stream is added');
  } finally {
    StreamState.prototype.snapshot = snapshot;
  }
});

test('planner wire: a later action that reuses a tool call id is its own call (StreamMux by action_seq)', async () => {
  const action = (name, args) => [
    { type: 'tool_call_start', index: 0, id: 'call_0', name, provider_executed: false },
    { type: 'tool_call_delta', index: 0, arguments: JSON.stringify(args) },
    { type: 'tool_call', index: 0, id: 'call_0', name, arguments: args, repaired: false, provider_executed: false },
    { type: 'done', ok: true, parse_ok: true, finish_reason: 'tool_calls', finish: 'tool-calls' },
  ];
  const text =
    (await wireText(sr, action('search', { q: 'first' }), 'planner', { actionSeq: 1, sessionId: 's' })) +
    (await wireText(sr, action('fetch', { url: 'second' }), 'planner', { actionSeq: 2, sessionId: 's', firstId: 100 }));
  const calls = (state) => state.snapshot().toolCalls.map((t) => [t.name, t.argumentsText, t.state]);
  for (const [label, chunks] of splitings(text, SEED)) {
    const mux = new StreamMux({ key: 'action_seq' });
    mux.apply(await readWire(sr, 'planner', chunks));
    assert.deepEqual(mux.keys(), [1, 2], label);
    assert.deepEqual(calls(mux.get(1)), [['search', '{"q":"first"}', 'input-available']], label);
    assert.deepEqual(calls(mux.get(2)), [['fetch', '{"url":"second"}', 'input-available']], label);
  }
});

test('an error with no done after it, or with an empty message, crosses every profile', async () => {
  for (const message of ['Overloaded', '']) {
    const events = [
      { type: 'answer_delta', text: 'Hi' },
      { type: 'error', code: 'overloaded_error', message, provider_code: null },
    ];
    for (const profile of PROFILES) {
      const state = new StreamState();
      state.apply(await readWire(sr, profile, [await wireText(sr, events, profile)]));
      const s = state.snapshot();
      assert.equal(s.answer, 'Hi', profile);
      assert.equal(s.status, 'error', profile);
      assert.deepEqual(s.errors, [{ code: 'overloaded_error', message }], `${profile} ${JSON.stringify(message)}`);
    }
  }
});

test('a frame is the type its name says, whatever type its data has', async () => {
  const tagged =
    'event: tool_call\ndata: {"type":"function","index":0,"id":"c1","name":"f","arguments":{"a":1}}\n\n' +
    'event: usage\ndata: {"type":"x","input_tokens":1}\n\n';
  const [call, usage] = await readWire(sr, 'tagged', [tagged]);
  assert.equal(call.type, 'tool_call');
  assert.deepEqual(call.arguments, { a: 1 });
  assert.equal(usage.type, 'usage');
  const aiSdk = 'data: {"type":"data-usage","data":{"type":"answer_delta","input_tokens":2}}\n\n';
  const [u] = await readWire(sr, 'ai-sdk', [aiSdk]);
  assert.equal(u.type, 'usage');
  assert.equal(u.input_tokens, 2);
});

test('connectSse with a profile yields fromSse events and resumes with Last-Event-ID without duplicates', async () => {
  const events = CASES.find(([n]) => n === 'openai-chat-tools.sse')[1];
  const wire = await wireText(sr, events, 'planner');
  const body = wire.split(/(?<=\n\n)/);
  const seen = [];
  let drops = 2;
  const server = await listen((req, res) => {
    const last = Number(req.headers['last-event-id'] ?? 0);
    seen.push(req.headers['last-event-id'] ?? null);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const rest = body.filter((f) => Number(/^id: (\d+)/.exec(f)[1]) > last);
    if (drops-- > 0) {
      res.write(rest.slice(0, 5).join('') + rest[5].slice(0, 12));
      setTimeout(() => res.socket.destroy(), 20);
      return;
    }
    res.end(rest.join(''));
  });
  try {
    const got = [];
    for await (const e of connectSse(`${server.origin}/`, {}, { profile: 'planner', retryMs: 5 })) got.push(e);
    assert.deepEqual(coalesce(got), coalesce(events));
    assert.deepEqual(seen, [null, '5', '10']);
    await assert.rejects(
      async () => {
        for await (const e of connectSse(`${server.origin}/`, {}, { profile: 'xml' })) void e;
      },
      (e) => e.code === 'invalid_option',
    );
  } finally {
    await server.close();
  }
});

test('TypeScript: the client API type-checks', async () => {
  const { status, output } = typecheck(
    'ts-client',
    `
    import { StreamState, StreamMux, fromSse, connectSse, type WireEvent, type StreamSnapshot } from 'streamroute';
    const ts: TransformStream<Uint8Array | string, WireEvent> = fromSse('planner');
    const state = new StreamState();
    state.apply({ type: 'answer_delta', text: 'x' });
    const s: StreamSnapshot = state.snapshot();
    const status: 'streaming' | 'done' | 'error' = s.status;
    const text: string = s.answer + s.thinking.reasoning + s.userText + s.artifactText;
    const gaps: readonly number[] = s.artifacts['x']?.gaps ?? [];
    const arg: unknown = s.toolCalls[0]?.partialArguments;
    const stop: () => void = state.subscribe(() => {});
    const mux = new StreamMux({ key: 'session_id' });
    mux.subscribe((c) => { const k: unknown = c.key; const t: 'added' | 'ended' = c.type; void [k, t, c.state]; });
    const other = new StreamMux({ key: (e) => e.type });
    const got: StreamState | undefined = mux.get('a');
    async function f() { for await (const e of connectSse('http://x', {}, { profile: 'ai-sdk' })) { const w: WireEvent = e; void w; } }
    void [ts, status, text, gaps, arg, stop, other, got, f];
  `,
  );
  assert.equal(status, 0, output);
});
