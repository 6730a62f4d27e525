// The `ag-ui` wire against the real AG-UI packages: every bundled stream, routed by
// `StreamRouter.transform()` and written by `toSse("ag-ui")` at several chunkings, has every
// frame pass `@ag-ui/core`'s own event schema, and `@ag-ui/client`'s HttpAgent (its SSE reading,
// its event checks and its message building) reads from it the messages and tool calls that an
// independent reading of the provider stream gives (helpers/expected.mjs, no streamroute code).
// Then: `fromSse("ag-ui")` reads a wire another server writes, StreamMux splits runs by run_id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventSchemas } from '@ag-ui/core/schemas';
import { HttpAgent } from '@ag-ui/client';
import { StreamRouter, toSse } from 'streamroute';
import { StreamMux, StreamState, fromSse } from 'streamroute/client';
import { SEED, byteSplitings, splitings } from './helpers/chunking.mjs';
import { NONCE, SAMPLES } from './helpers/streams.mjs';
import { EXTRA_EVENTS, collect, streamOf } from './helpers/client-roundtrip.mjs';
import { expectedPanels } from './helpers/expected.mjs';

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';

const CHUNKINGS = (label) => label.startsWith('whole') || /random (byte|string) pieces <=(3|64) /.test(label);
const chunkingsOf = (s) => (s.binary ? byteSplitings(s.bytes) : splitings(s.text)).filter(([label]) => CHUNKINGS(label));

const RUN = { threadId: 'thread-7', runId: 'run-7' };

/** The routed events and the `toSse("ag-ui")` bytes of `chunks`, through the web adapters. */
async function route(sample, chunks, options = RUN) {
  const [events, wire] = streamOf(chunks)
    .pipeThrough(new StreamRouter({ content: sample.content, nonce: NONCE }).transform())
    .tee();
  const bytes = new Uint8Array(await new Response(wire.pipeThrough(toSse('ag-ui', { heartbeatMs: 0, ...options }))).arrayBuffer());
  return { events: await collect(events), bytes };
}

/** The frames' data, parsed (every frame of the wire is unnamed `data:`). */
function framesOf(bytes) {
  const text = new TextDecoder().decode(bytes);
  return text
    .split('\n\n')
    .filter((b) => b.trim())
    .map((block) => {
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6));
      assert.ok(!block.split('\n').some((l) => l.startsWith('event:')), `an unnamed frame: ${block}`);
      return JSON.parse(data.join('\n'));
    });
}

/** What `@ag-ui/client`'s HttpAgent makes of the wire: its messages, and the error it ended with. */
async function agentReading(bytes) {
  const agent = new HttpAgent({
    url: 'http://localhost/agent',
    fetch: async () => new Response(streamOf([bytes]), { headers: { 'content-type': 'text/event-stream' } }),
  });
  let error = null;
  const seen = [];
  const console$ = console.error;
  console.error = () => {};
  try {
    await agent.runAgent(
      { runId: RUN.runId },
      {
        onEvent: ({ event }) => {
          seen.push(event.type);
        },
      },
    );
  } catch (e) {
    error = e;
  } finally {
    console.error = console$;
  }
  return { messages: agent.messages, error, seen };
}

test("every frame of every bundled stream passes @ag-ui/core's event schema; the run opens and closes as AG-UI requires", async () => {
  let n = 0;
  for (const s of SAMPLES) {
    for (const [label, chunks] of chunkingsOf(s)) {
      const at = `${s.file} (${label}, seed ${SEED})`;
      const { events, bytes } = await route(s, chunks);
      const frames = framesOf(bytes);
      for (const f of frames) {
        const r = EventSchemas.safeParse(f);
        assert.ok(r.success, `${at}: ${JSON.stringify(f)}: ${r.error?.message}`);
      }
      assert.deepEqual(frames[0], { type: 'RUN_STARTED', ...RUN }, at);
      const done = events.at(-1);
      assert.equal(frames.at(-1).type, done.ok ? 'RUN_FINISHED' : 'RUN_ERROR', at);
      if (done.ok) assert.deepEqual([frames.at(-1).threadId, frames.at(-1).runId], [RUN.threadId, RUN.runId], at);
      // Nothing is dropped: every routed event AG-UI has no event for is a CUSTOM of its name.
      const customs = frames.filter((f) => f.type === 'CUSTOM').map((f) => f.name);
      for (const type of ['source', 'action', 'usage', 'error', 'refusal_delta', 'artifact_delta']) {
        assert.equal(customs.filter((c) => c === type).length, events.filter((e) => e.type === type).length, `${at}: ${type}`);
      }
      n++;
    }
  }
  assert.ok(n >= SAMPLES.length * 3, `${n} cases`);
});

test('@ag-ui/client reads from the wire the messages and tool calls an independent reading of each provider stream gives', async () => {
  for (const s of SAMPLES) {
    for (const [label, chunks] of chunkingsOf(s).filter(([l]) => l.startsWith('whole') || l.includes('<=3'))) {
      const at = `${s.file} (${label}, seed ${SEED})`;
      const want = expectedPanels(s, NONCE);
      const { events, bytes } = await route(s, chunks);
      const { messages, error, seen } = await agentReading(bytes);
      assert.equal(seen[0], 'RUN_STARTED', at);
      const done = events.at(-1);
      if (done.ok) assert.equal(error, null, `${at}: ${error?.stack}`);
      else assert.equal(seen.at(-1), 'RUN_ERROR', at);
      const assistant = messages.filter((m) => m.role === 'assistant');
      assert.equal(assistant.map((m) => m.content ?? '').join(''), want.answer + want.user, `${at}: assistant text`);
      assert.equal(
        messages
          .filter((m) => m.role === 'reasoning')
          .map((m) => m.content)
          .join(''),
        want.reasoning + want.thought,
        `${at}: reasoning`,
      );
      const calls = assistant.flatMap((m) => m.toolCalls ?? []);
      assert.deepEqual(
        calls.map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments || '{}') })),
        want.tools,
        `${at}: tool calls`,
      );
      // Each provider-executed tool's result is a tool message for its call.
      for (const r of events.filter((e) => e.type === 'tool_result')) {
        const m = messages.find((x) => x.role === 'tool' && x.toolCallId === r.id);
        assert.ok(m, `${at}: the result of ${r.id}`);
        assert.equal(m.content, typeof r.result === 'string' ? r.result : JSON.stringify(r.result ?? null), at);
      }
    }
  }
});

test('round trip: toSse("ag-ui") then fromSse("ag-ui") gives the routed events, each with its run\'s ids', async () => {
  for (const s of SAMPLES) {
    const { events, bytes } = await route(s, s.binary ? [s.bytes] : [s.text], { ...RUN, parentRunId: 'run-6' });
    const text = new TextDecoder().decode(bytes);
    for (const [label, chunks] of splitings(text).filter(([l]) => CHUNKINGS(l) || l === 'single bytes')) {
      const got = await collect(streamOf(chunks).pipeThrough(fromSse('ag-ui')));
      const run = { thread_id: RUN.threadId, run_id: RUN.runId, parent_run_id: 'run-6' };
      assert.deepEqual(merge(got), merge(events.map((e) => ({ ...e, ...run }))), `${s.file} ${label} (seed ${SEED})`);
    }
  }
});

test('the snapshot folded from an AG-UI wire is the one folded from the routed events: run ids stay off usage, container and sources', async () => {
  for (const s of SAMPLES) {
    const { events, bytes } = await route(s, s.binary ? [s.bytes] : [s.text], { ...RUN, parentRunId: 'run-6' });
    const direct = new StreamState();
    direct.apply(events);
    const read = new StreamState();
    read.apply(await collect(streamOf([bytes]).pipeThrough(fromSse('ag-ui'))));
    const [a, b] = [read.snapshot(), direct.snapshot()];
    for (const field of ['usage', 'container', 'sources', 'answer', 'status']) assert.deepEqual(a[field], b[field], `${s.file}: ${field}`);
  }
  // A usage and a source event of their own fields, through the wire.
  const own = [
    { type: 'usage', input_tokens: 5, output_tokens: 2, total_tokens: 7, reasoning_tokens: null, cached_input_tokens: null },
    { type: 'source', id: 's1', url: 'https://example.com/', title: 'Example', snippet: null },
    { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop' },
  ];
  const wire = new Uint8Array(await new Response(streamOf(own).pipeThrough(toSse('ag-ui', { heartbeatMs: 0, ...RUN }))).arrayBuffer());
  const st = new StreamState();
  st.apply(await collect(streamOf([wire]).pipeThrough(fromSse('ag-ui'))));
  const snap = st.snapshot();
  assert.deepEqual(snap.usage, { input_tokens: 5, output_tokens: 2, total_tokens: 7, reasoning_tokens: null, cached_input_tokens: null });
  assert.deepEqual(snap.sources, [{ id: 's1', url: 'https://example.com/', title: 'Example', snippet: null }]);
});

/** Adjacent text deltas of one kind and argument text of one call joined (their cuts follow the chunking). */
function merge(events) {
  const out = [];
  for (const e of events) {
    const last = out.at(-1);
    if (last && e.type.endsWith('_delta') && last.type === e.type && last.source === e.source && last.index === e.index) {
      out[out.length - 1] =
        e.type === 'tool_call_delta' ? { ...last, arguments: last.arguments + e.arguments } : { ...last, text: last.text + e.text };
    } else out.push(e);
  }
  return out;
}

test('a whole tool call, artifact chunks, a payload, a stop without done: their AG-UI events, and back', async () => {
  const events = [{ type: 'tool_call', index: 0, id: 'call-1', name: 'lookup', arguments: { q: 'x' }, repaired: true }, ...EXTRA_EVENTS];
  const bytes = new Uint8Array(await new Response(streamOf(events).pipeThrough(toSse('ag-ui', { heartbeatMs: 0, ...RUN }))).arrayBuffer());
  const frames = framesOf(bytes);
  for (const f of frames) assert.ok(EventSchemas.safeParse(f).success, JSON.stringify(f));
  assert.deepEqual(
    frames.slice(1, 4).map((f) => f.type),
    ['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END'],
  );
  assert.equal(frames[2].delta, '{"q":"x"}');
  const finished = frames.at(-1);
  assert.equal(finished.type, 'RUN_FINISHED');
  assert.equal(finished.result.language, 'en', "the payload is the run's result");
  assert.deepEqual(finished.usage, [{ inputTokens: 3, outputTokens: 9, totalTokens: 12 }]);
  const back = await collect(streamOf([bytes]).pipeThrough(fromSse('ag-ui')));
  const state = new StreamState();
  state.apply(back);
  const want = new StreamState();
  want.apply(
    events.map((e) => ({
      ...(e.type === 'done' ? { ok: true, parse_ok: true, finish_reason: null, ...e } : e),
      thread_id: RUN.threadId,
      run_id: RUN.runId,
    })),
  );
  assert.deepEqual(state.snapshot(), want.snapshot());

  // A stream cut before done: what is open is closed, the run stays unfinished.
  const cut = [
    { type: 'answer_delta', text: 'Hi' },
    { type: 'tool_call_start', index: 0, id: 'c', name: 'f' },
    { type: 'tool_call_delta', index: 0, arguments: '{"a' },
  ];
  const cutFrames = framesOf(
    new Uint8Array(await new Response(streamOf(cut).pipeThrough(toSse('ag-ui', { heartbeatMs: 0, ...RUN }))).arrayBuffer()),
  );
  assert.deepEqual(
    cutFrames.map((f) => f.type),
    ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END'],
  );
});

test('fromSse("ag-ui") reads a wire another server writes: chunks, earlier THINKING events, a bare RUN_ERROR', async () => {
  const frame = (e) => `data: ${JSON.stringify(e)}\n\n`;
  const wire = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r1' },
    { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', role: 'assistant', delta: 'Hel' },
    { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', delta: 'lo' },
    { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'hmm' },
    { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'search', delta: '{"q":' },
    { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', delta: '"x"}' },
    { type: 'TOOL_CALL_END', toolCallId: 'c1' },
    { type: 'TOOL_CALL_RESULT', messageId: 'r', toolCallId: 'c1', content: 'found' },
    { type: 'STATE_SNAPSHOT', snapshot: {} },
    { type: 'RUN_ERROR', message: 'boom', code: 'E1' },
  ]
    .map(frame)
    .join('');
  for (const [label, chunks] of splitings(wire).filter(([l]) => CHUNKINGS(l))) {
    const got = await collect(streamOf(chunks).pipeThrough(fromSse('ag-ui')));
    const run = { thread_id: 't', run_id: 'r1' };
    assert.deepEqual(
      merge(got),
      [
        { type: 'answer_delta', text: 'Hello', ...run },
        { type: 'thinking_delta', text: 'hmm', source: 'reasoning', ...run },
        { type: 'tool_call_start', index: 0, id: 'c1', name: 'search', ...run },
        { type: 'tool_call_delta', index: 0, arguments: '{"q":"x"}', ...run },
        { type: 'tool_call', index: 0, id: 'c1', name: 'search', arguments: { q: 'x' }, repaired: false, ...run },
        { type: 'tool_result', index: 1, id: 'c1', name: null, result: 'found', ...run },
        { type: 'error', code: 'E1', message: 'boom', ...run },
        { type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error', ...run },
      ],
      label,
    );
  }
});

test('StreamMux({ key: "run_id" }) splits the runs of one connection; each carries its thread, run and parent run ids', async () => {
  const wireOf = async (events, options) =>
    new TextDecoder().decode(
      new Uint8Array(await new Response(streamOf(events).pipeThrough(toSse('ag-ui', { heartbeatMs: 0, ...options }))).arrayBuffer()),
    );
  const a = await wireOf(
    [
      { type: 'answer_delta', text: 'first' },
      { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop' },
    ],
    { threadId: 'th', runId: 'a' },
  );
  const b = await wireOf(
    [
      { type: 'thinking_delta', text: 'sub', source: 'reasoning' },
      { type: 'answer_delta', text: 'second' },
      { type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error' },
    ],
    { threadId: 'th', runId: 'b', parentRunId: 'a' },
  );
  for (const [label, chunks] of splitings(a + b).filter(([l]) => CHUNKINGS(l))) {
    const events = await collect(streamOf(chunks).pipeThrough(fromSse('ag-ui')));
    const mux = new StreamMux({ key: 'run_id' });
    mux.apply(events);
    assert.deepEqual(mux.keys(), ['a', 'b'], label);
    assert.deepEqual([mux.get('a').snapshot().answer, mux.get('a').snapshot().status], ['first', 'done']);
    assert.deepEqual(
      [mux.get('b').snapshot().answer, mux.get('b').snapshot().thinking.reasoning, mux.get('b').snapshot().status],
      ['second', 'sub', 'error'],
    );
    assert.ok(events.filter((e) => e.run_id === 'b').every((e) => e.parent_run_id === 'a' && e.thread_id === 'th'));
    assert.ok(events.filter((e) => e.run_id === 'a').every((e) => !('parent_run_id' in e)));
    assert.ok(mux.ended('a') && mux.ended('b'));
  }
});

test('toSse("ag-ui") makes run ids when none are given; the profile name is checked', async () => {
  const frames = framesOf(
    new Uint8Array(
      await new Response(
        streamOf([{ type: 'done', ok: true, parse_ok: true, finish_reason: null }]).pipeThrough(toSse('ag-ui', { heartbeatMs: 0 })),
      ).arrayBuffer(),
    ),
  );
  assert.equal(frames[0].type, 'RUN_STARTED');
  assert.ok(frames[0].threadId.length > 8 && frames[0].runId.length > 8 && frames[0].runId !== frames[0].threadId);
  assert.throws(
    () => fromSse('agui'),
    (e) => e.code === 'invalid_option' && /"ag-ui"/.test(e.message),
  );
  assert.throws(
    () => toSse('AG-UI'),
    (e) => e.code === 'invalid_option' && /"ag-ui"/.test(e.message),
  );
});
