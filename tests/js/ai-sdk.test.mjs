// The `ai-sdk` wire against the real Vercel AI SDK client, v5 and v6, and `ai` 7's published
// chunk types (`UIMessageChunk`, type-checked with tsc: its runtime needs a newer Node): every bundled stream,
// routed by `StreamRouter.transform()` and written by `toSse("ai-sdk")` at several chunkings, is
// read by the SDK's own reader (`parseJsonEventStream` with its `uiMessageChunkSchema`, then
// `readUIMessageStream`) and by its chat class over `DefaultChatTransport` (what `useChat`
// runs). No chunk may fail the SDK's schema; the final UIMessage must hold the routed events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ai5 from 'ai5';
import * as ai6 from 'ai6';
import { StreamRouter, toSse } from 'streamroute';
import { SEED, byteSplitings, splitings } from './helpers/chunking.mjs';
import { NONCE, SAMPLES } from './helpers/streams.mjs';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromSse } from 'streamroute/client';
import { CONTINUATION_EVENTS, EXTRA_EVENTS, collect, streamOf } from './helpers/client-roundtrip.mjs';
import { JS_DIR } from './helpers/runtimes.mjs';

const SDKS = [
  ['ai@5', ai5],
  ['ai@6', ai6],
];

// Whole, and cut into random pieces of bytes and of UTF-16 units.
const CHUNKINGS = (label) => label.startsWith('whole') || /random (byte|string) pieces <=(3|64) /.test(label);

const chunkingsOf = (s) => (s.binary ? byteSplitings(s.bytes) : splitings(s.text)).filter(([label]) => CHUNKINGS(label));

/** The routed events and the `toSse("ai-sdk")` bytes of `chunks`, through the web adapters. */
async function route(sample, chunks) {
  const [events, wire] = streamOf(chunks)
    .pipeThrough(new StreamRouter({ content: sample.content, nonce: NONCE }).transform())
    .tee();
  const bytes = new Uint8Array(await new Response(wire.pipeThrough(toSse('ai-sdk', { heartbeatMs: 0 }))).arrayBuffer());
  return { events: await collect(events), bytes };
}

/** Every chunk as the SDK's `parseJsonEventStream` + `uiMessageChunkSchema` reads it. */
async function sdkChunks(sdk, bytes) {
  const results = await collect(sdk.parseJsonEventStream({ stream: streamOf([bytes]), schema: sdk.uiMessageChunkSchema }));
  const failed = results.filter((r) => !r.success).map((r) => `${JSON.stringify(r.rawValue)}: ${r.error?.message}`);
  return { chunks: results.filter((r) => r.success).map((r) => r.value), failed };
}

/** The last message `readUIMessageStream` gives, every one before it, and the errors it reported. */
async function sdkMessage(sdk, chunks) {
  const errors = [];
  const snapshots = [];
  for await (const m of sdk.readUIMessageStream({ stream: streamOf(chunks), onError: (e) => errors.push(e) })) snapshots.push(m);
  return { message: snapshots.at(-1), snapshots, errors };
}

/** The SDK's chat (what `useChat` runs) with `DefaultChatTransport` over a fetch serving `bytes`. */
async function sdkChat(sdk, bytes) {
  class State {
    status = 'ready';
    error = undefined;
    messages = [];
    pushMessage = (m) => {
      this.messages = [...this.messages, m];
    };
    popMessage = () => {
      this.messages = this.messages.slice(0, -1);
    };
    replaceMessage = (i, m) => {
      this.messages = this.messages.map((old, j) => (j === i ? structuredClone(m) : old));
    };
    snapshot = (v) => structuredClone(v);
  }
  const fetch = async () =>
    new Response(streamOf([bytes]), {
      headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' },
    });
  const transport = new sdk.DefaultChatTransport({ api: 'http://localhost/api/chat', fetch });
  let finished;
  const data = [];
  const chat = new (class extends sdk.AbstractChat {})({
    transport,
    state: new State(),
    onFinish: (f) => {
      finished = f;
    },
    onData: (d) => data.push(d),
    onError: () => {},
  });
  await chat.sendMessage({ text: 'hi' });
  return { chat, finished, data };
}

// ---------------------------------------------------------------------------------------
// What the message must hold, from the routed events: its parts in order, by the UIMessage
// vocabulary: one text or reasoning part for each run of one kind of text (transient events,
// usage, do not end a run), whatever the chunking.

function expectedParts(events) {
  const parts = [];
  const tools = new Map();
  let open = null;
  const text = (type, variant, delta) => {
    if (open?.type !== type || open.variant !== variant) {
      open = { type, variant, text: '' };
      parts.push(open);
    }
    open.text += delta;
  };
  // A continuation rides on the end of the part it belongs to when that part is open (a thinking
  // signature or reasoning item on reasoning; a thought signature on its text or thought part,
  // not a tool call's; a message item on text); else it is a data part.
  const belongs = (e) =>
    ({
      thinking_signature: 'reasoning',
      reasoning: 'reasoning',
      thought_signature: e.index !== undefined ? null : { thought: 'reasoning', text: 'text' }[e.part],
      item: e.item_type === 'message' ? 'text' : null,
    })[e.kind] ?? null;
  for (const e of events) {
    const continues = e.type === 'continuation' && open && belongs(e) === open.type;
    if (e.type !== 'usage' && !e.type.endsWith('_delta')) open = null;
    switch (e.type) {
      case 'answer_delta':
        text('text', e.phase === undefined ? undefined : `phase ${e.phase}`, e.text);
        break;
      case 'continuation':
        if (!continues) parts.push({ type: 'data-continuation', data: withoutType(e) });
        break;
      case 'compaction':
      case 'model_fallback':
      case 'container':
        parts.push({ type: `data-${e.type.replaceAll('_', '-')}`, data: withoutType(e) });
        break;
      case 'user_delta':
        text('text', 'user_delta', e.text);
        break;
      case 'thinking_delta':
        text('reasoning', e.source === 'thought' ? 'thought' : undefined, e.text);
        break;
      case 'tool_call_delta':
        open = null;
        break;
      case 'tool_call_start': {
        const part = { type: `tool-${e.name}`, toolCallId: e.id, state: 'input-streaming', providerExecuted: e.provider_executed };
        tools.set(e.id, part);
        parts.push(part);
        break;
      }
      case 'tool_call': {
        let part = tools.get(e.id);
        if (!part) parts.push((part = { type: `tool-${e.name}`, toolCallId: e.id }));
        tools.set(e.id, Object.assign(part, { state: 'input-available', input: e.arguments, providerExecuted: e.provider_executed }));
        break;
      }
      case 'tool_result':
        Object.assign(tools.get(e.id), { state: 'output-available', output: e.result, providerExecuted: true });
        break;
      case 'source':
        parts.push(e.url ? { type: 'source-url', url: e.url } : { type: 'source-document' });
        break;
      case 'action':
        parts.push({ type: 'data-action', data: e.action });
        break;
      case 'artifact_delta':
        text('text', 'artifact_delta', e.text);
        break;
      case 'refusal_delta':
        text('text', 'refusal_delta', e.text);
        break;
      case 'done':
        if (e.payload && events.some((x) => x.type === 'error')) parts.push({ type: 'data-payload', data: e.payload });
        break;
      default:
        break;
    }
  }
  return parts;
}

/** The message's parts in the same terms (the SDK's own fields, only those compared). */
function partsOf(message) {
  const out = [];
  for (const p of message.parts) {
    if (p.type === 'step-start') continue;
    if (p.type === 'text' || p.type === 'reasoning') {
      // What kind of text it is rides in providerMetadata; the answer's phase as the SDK's OpenAI provider has it.
      const own = p.providerMetadata?.streamroute;
      const phase = p.providerMetadata?.openai?.phase;
      out.push({ type: p.type, variant: own?.type ?? own?.source ?? (phase === undefined ? undefined : `phase ${phase}`), text: p.text });
    } else if (p.type.startsWith('tool-')) {
      const part = { type: p.type, toolCallId: p.toolCallId, state: p.state, providerExecuted: p.providerExecuted === true };
      if (p.state !== 'input-streaming') part.input = p.input;
      if (p.state === 'output-available') part.output = p.output;
      out.push(part);
    } else if (p.type === 'source-url') out.push({ type: p.type, url: p.url });
    else if (p.type === 'source-document') out.push({ type: p.type });
    else out.push({ type: p.type, data: p.data });
  }
  return out;
}

/** An event's members but `type`. */
function withoutType(e) {
  const { type, ...rest } = e;
  void type;
  return rest;
}

const CASES = SAMPLES.flatMap((s) => chunkingsOf(s).map(([label, chunks]) => [s, label, chunks]));

for (const [version, sdk] of SDKS) {
  test(`${version}: every bundled stream passes the SDK's chunk schema and readUIMessageStream builds the routed message`, async () => {
    let n = 0;
    const first = new Map(); // file -> the message's parts at the first chunking
    for (const [s, label, chunks] of CASES) {
      const at = `${s.file} (${label}, seed ${SEED})`;
      const { events, bytes } = await route(s, chunks);
      const { chunks: parsed, failed } = await sdkChunks(sdk, bytes);
      assert.deepEqual(failed, [], `${version} ${at}: chunks the schema rejects`);
      const { message, snapshots, errors } = await sdkMessage(sdk, parsed);
      assert.deepEqual(partsOf(message), expectedParts(events), `${version} ${at}: parts`);
      // A tool the provider runs is marked so from its first part on (a UI must never run it).
      const executed = new Map(events.filter((e) => e.type === 'tool_call_start').map((e) => [e.id, e.provider_executed]));
      for (const p of snapshots.flatMap((m) => m.parts).filter((p) => p.type.startsWith('tool-'))) {
        assert.equal(p.providerExecuted === true, executed.get(p.toolCallId), `${version} ${at}: ${p.toolCallId} ${p.state}`);
      }
      if (!first.has(s.file)) first.set(s.file, message.parts);
      assert.deepEqual(message.parts, first.get(s.file), `${version} ${at}: the parts follow the chunking`);
      const done = events.at(-1);
      assert.equal(done.type, 'done', at);
      // The finish chunk is the last, its finishReason is done.finish.
      assert.deepEqual([parsed.at(-1).type, parsed.at(-1).finishReason], ['finish', done.finish], at);
      assert.deepEqual(
        message.metadata,
        {
          ok: done.ok,
          parse_ok: done.parse_ok,
          finish_reason: done.finish_reason ?? null,
          ...(done.finish !== undefined ? { finish: done.finish } : {}),
          ...(done.stop_details !== undefined ? { stop_details: done.stop_details } : {}),
          ...(done.finish_message !== undefined ? { finish_message: done.finish_message } : {}),
          ...(done.payload ? { payload: done.payload } : {}),
        },
        at,
      );
      // The error text is the provider's message.
      assert.deepEqual(
        errors.map((e) => e.message),
        events.filter((e) => e.type === 'error').map((e) => e.message || e.code),
        at,
      );
      n++;
    }
    assert.ok(n >= SAMPLES.length * 3, `${n} cases`);
  });

  test(`${version}: the chat (DefaultChatTransport, as useChat runs it) ends with the routed message and finish reason`, async () => {
    for (const s of SAMPLES) {
      const chunks = s.binary ? [s.bytes] : [s.text];
      const { events, bytes } = await route(s, chunks);
      const { chat, finished, data } = await sdkChat(sdk, bytes);
      const errors = events.filter((e) => e.type === 'error');
      const done = events.at(-1);
      const want = expectedParts(events);
      assert.deepEqual(partsOf(finished.message), want, `${version} ${s.file}: parts`);
      // The chat shows the message once it has a part (an error alone shows none).
      const shown = chat.messages.at(-1);
      if (want.length)
        assert.deepEqual([shown.role, shown.id, shown.parts], ['assistant', finished.message.id, finished.message.parts], s.file);
      else assert.equal(shown.role, 'user', s.file);
      if (errors.length) {
        // The chat stops at the error frame; what was recovered (action, payload) came first.
        assert.equal(chat.status, 'error', s.file);
        assert.equal(chat.error.message, errors[0].message || errors[0].code, s.file);
        assert.equal(finished.isError, true, s.file);
        assert.deepEqual(
          data.filter((d) => d.type === 'data-error').map((d) => d.data.code),
          [errors[0].code],
          s.file,
        );
      } else {
        assert.equal(chat.status, 'ready', s.file);
        assert.equal(finished.isError, false, s.file);
        assert.equal(finished.finishReason, done.finish, `${version} ${s.file}: finish reason`);
      }
      // The next turn: the chat's messages are valid stored messages and convert to model messages.
      const valid = await sdk.safeValidateUIMessages({ messages: chat.messages });
      assert.equal(valid.success, true, `${version} ${s.file}: ${valid.error?.message}`);
      await sdk.convertToModelMessages(chat.messages);
      // Usage is transient: seen by onData, never a part of the message.
      assert.equal(data.filter((d) => d.type === 'data-usage').length, events.filter((e) => e.type === 'usage').length, s.file);
    }
  });

  test(`${version}: what was recovered before an error (action, payload) reaches the chat before it; artifacts and sources`, async () => {
    const action = { next_node: 'search', args: { q: 'x' }, thought: null };
    const payload = {
      raw_answer: 'Partial',
      artifacts: {},
      confidence: null,
      sources: [],
      route: null,
      suggested_actions: [],
      requires_followup: false,
      warnings: [],
      language: 'en',
      extra: {},
    };
    const failed = [
      { type: 'answer_delta', text: 'Partial' },
      { type: 'error', code: 'overloaded_error', message: 'Overloaded', provider_code: 'overloaded_error' },
      { type: 'action', action },
      { type: 'done', ok: false, parse_ok: true, finish_reason: null, finish: 'error', payload },
    ];
    const wire = async (events, options) =>
      new Uint8Array(await new Response(streamOf(events).pipeThrough(toSse('ai-sdk', { heartbeatMs: 0, ...options }))).arrayBuffer());
    const { chat, finished, data } = await sdkChat(sdk, await wire(failed, { messageId: 'msg-1' }));
    assert.equal(finished.message.id, 'msg-1', 'the start part names the message');
    assert.deepEqual(partsOf(finished.message), [
      { type: 'text', variant: undefined, text: 'Partial' },
      { type: 'data-action', data: action },
      { type: 'data-payload', data: payload },
    ]);
    assert.deepEqual([chat.status, chat.error.message], ['error', 'Overloaded']);
    assert.deepEqual(
      data.filter((d) => d.type === 'data-error').map((d) => d.data),
      [{ code: 'overloaded_error', provider_code: 'overloaded_error' }],
    );

    // Artifact chunks are data-artifact parts (one per stream and seq, a repeat replaces), the
    // payload rides in the finish's metadata.
    const { chunks, failed: rejected } = await sdkChunks(sdk, await wire(EXTRA_EVENTS));
    assert.deepEqual(rejected, []);
    const { message } = await sdkMessage(sdk, chunks);
    assert.deepEqual(
      message.parts.filter((p) => p.type === 'data-artifact').map((p) => [p.id, p.data.chunk]),
      [
        ['chart-0', { points: [9] }],
        ['table-1', 'row 2'],
        ['table-0', 'row 1'],
        ['chart-1', { points: [3] }],
      ],
    );
    assert.equal(
      message.parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join(''),
      'Revenue grew 15% in Q3 — ☕ 😀.',
    );
    assert.equal(message.metadata.payload.language, 'en');
  });

  test(`${version}: heartbeats between parts are comments the SDK skips`, async () => {
    const events = [
      { type: 'answer_delta', text: 'Hel' },
      { type: 'answer_delta', text: 'lo' },
      { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop' },
    ];
    let i = 0;
    const slow = new ReadableStream({
      async pull(c) {
        if (i === 1) await new Promise((r) => setTimeout(r, 60));
        if (i < events.length) c.enqueue(events[i++]);
        else c.close();
      },
    });
    const bytes = new Uint8Array(await new Response(slow.pipeThrough(toSse('ai-sdk', { heartbeatMs: 5 }))).arrayBuffer());
    assert.match(new TextDecoder().decode(bytes), /\n: ping\n\n/);
    const { chunks, failed } = await sdkChunks(sdk, bytes);
    assert.deepEqual(failed, []);
    const { message } = await sdkMessage(sdk, chunks);
    assert.deepEqual(partsOf(message), [{ type: 'text', variant: undefined, text: 'Hello' }]);
  });
}

// ---------------------------------------------------------------------------------------
// What the next request sends back, and `ai` 7.

/** The `toSse("ai-sdk")` bytes of `events`. */
const wireOf = async (events, options) =>
  new Uint8Array(await new Response(streamOf(events).pipeThrough(toSse('ai-sdk', { heartbeatMs: 0, ...options }))).arrayBuffer());

/** The JSON parts of UI message stream bytes (`[DONE]` left out). */
const framesOf = (bytes) =>
  new TextDecoder()
    .decode(bytes)
    .split('\n\n')
    .flatMap((f) =>
      f
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6)),
    )
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d));

for (const [version, sdk] of SDKS) {
  test(`${version}: continuations ride on the end of their part, the answer's phase on providerMetadata.openai, the rest in data parts and the finish`, async () => {
    const bytes = await wireOf(CONTINUATION_EVENTS);
    const { chunks, failed } = await sdkChunks(sdk, bytes);
    assert.deepEqual(failed, []);
    const { message, errors } = await sdkMessage(sdk, chunks);
    assert.deepEqual(errors, []);
    assert.deepEqual(partsOf(message), expectedParts(CONTINUATION_EVENTS));
    // The thinking signature is on the reasoning part it signs, the encrypted reasoning item on its own.
    assert.deepEqual(
      message.parts.filter((p) => p.type === 'reasoning').map((p) => p.providerMetadata),
      [
        { streamroute: { continuation: { kind: 'thinking_signature', signature: 'c2lnbmF0dXJl' } } },
        {
          streamroute: {
            continuation: { kind: 'reasoning', id: 'rs_1', encrypted_content: 'ZW5j', summary: [{ type: 'summary_text', text: 'More.' }] },
          },
        },
      ],
    );
    assert.deepEqual(
      message.parts.filter((p) => p.type === 'text').map((p) => p.providerMetadata),
      [
        { openai: { phase: 'commentary' }, streamroute: { continuation: { kind: 'item', item_type: 'message', id: 'msg_1' } } },
        {
          openai: { phase: 'final_answer' },
          streamroute: { continuation: { kind: 'thought_signature', thoughtSignature: 'dGV4dA==', part: 'text' } },
        },
        undefined,
      ],
    );
    assert.deepEqual(
      message.parts.filter((p) => p.type === 'data-continuation').map((p) => p.data.kind),
      ['redacted_thinking', 'thought_signature', 'item', 'compaction'],
    );
    assert.deepEqual(
      [message.metadata.stop_details, message.metadata.finish_message],
      [{ type: 'end_turn', note: null }, 'Model finished.'],
    );
    // The chat keeps them, and its messages are valid for the next turn.
    const { chat, finished } = await sdkChat(sdk, bytes);
    assert.deepEqual(finished.message.parts, message.parts);
    const valid = await sdk.safeValidateUIMessages({ messages: chat.messages });
    assert.equal(valid.success, true, valid.error?.message);
    await sdk.convertToModelMessages(chat.messages);
    // And fromSse reads every one of them back.
    const back = await collect(streamOf([bytes]).pipeThrough(fromSse('ai-sdk')));
    assert.deepEqual(
      back.filter((e) => e.type === 'continuation'),
      CONTINUATION_EVENTS.filter((e) => e.type === 'continuation'),
    );
  });
}

/** Parts as an `ai` 7 server writes them: its new part types and fields. */
const AI7_PARTS = [
  { type: 'start', messageId: 'm' },
  { type: 'start-step' },
  { type: 'reasoning-start', id: 'r' },
  { type: 'reasoning-delta', id: 'r', delta: 'Hmm.' },
  { type: 'reasoning-end', id: 'r', providerMetadata: { anthropic: { signature: 'sig' } } },
  { type: 'reasoning-file', url: 'data:image/png;base64,AAAA', mediaType: 'image/png' },
  { type: 'custom', kind: 'openai.compaction', providerMetadata: { openai: { itemId: 'cmp_1', encryptedContent: 'enc' } } },
  { type: 'text-start', id: 't', providerMetadata: { openai: { itemId: 'msg_1', phase: 'commentary' } } },
  { type: 'text-delta', id: 't', delta: 'Checking.' },
  { type: 'text-end', id: 't' },
  { type: 'tool-input-start', toolCallId: 'c1', toolName: 'search', title: 'Search', toolMetadata: { origin: 'mcp' } },
  {
    type: 'tool-input-available',
    toolCallId: 'c1',
    toolName: 'search',
    input: { q: 'x' },
    title: 'Search',
    toolMetadata: { origin: 'mcp' },
  },
  { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1', isAutomatic: false, signature: 'apsig' },
  { type: 'tool-approval-response', approvalId: 'a1', approved: true, reason: 'fine' },
  { type: 'finish-step' },
  { type: 'reset-step' },
  { type: 'start-step' },
  { type: 'text-start', id: 't2' },
  { type: 'text-delta', id: 't2', delta: 'Done.' },
  { type: 'text-end', id: 't2' },
  { type: 'finish-step' },
  { type: 'finish', finishReason: 'stop' },
];

/** Type-checks `source` with tsc against the installed `ai7` alias (its own declarations skipped). */
function tscAi7(source) {
  const dir = join(JS_DIR, '.tmp', 'consumer', 'ai7-chunks');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022', 'dom'],
        skipLibCheck: true,
        types: ['node'],
      },
      files: ['chunks.mts'],
    }),
  );
  writeFileSync(join(dir, 'chunks.mts'), source);
  const r = spawnSync(process.execPath, [join(JS_DIR, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
  return { status: r.status, output: r.stdout + r.stderr };
}

/** A part's shape: its type, its members' names and those of its providerMetadata and messageMetadata. */
const shapeOf = (p) =>
  JSON.stringify([
    p.type,
    Object.keys(p).sort(),
    Object.entries(p.providerMetadata ?? {}).map(([k, v]) => [k, Object.keys(v).sort()]),
    Object.keys(p.messageMetadata ?? {}).sort(),
    p.finishReason,
  ]);

test('ai@7: every part shape toSse("ai-sdk") writes type-checks as its UIMessageChunk; fromSse reads what an ai 7 server writes', async () => {
  // One part of each shape, from every bundled stream, the continuation events and the extra ones.
  const shapes = new Map();
  const streams = [
    ...(await Promise.all(SAMPLES.map(async (s) => (await route(s, s.binary ? [s.bytes] : [s.text])).bytes))),
    await wireOf(CONTINUATION_EVENTS),
    await wireOf(EXTRA_EVENTS),
  ];
  for (const bytes of streams) for (const p of framesOf(bytes)) if (!shapes.has(shapeOf(p))) shapes.set(shapeOf(p), p);
  assert.ok(shapes.size >= 20, `${shapes.size} shapes`);
  const { status, output } = tscAi7(`import type { UIMessageChunk } from 'ai7';
export const written: UIMessageChunk[] = ${JSON.stringify([...shapes.values()], null, 1)};
export const ai7: UIMessageChunk[] = ${JSON.stringify(AI7_PARTS, null, 1)};
// ai 7 has no \`signature\` on a reasoning part's end (only on a tool approval request): toSse keeps it in providerMetadata.
// @ts-expect-error: not a member of reasoning-end
export const signed: UIMessageChunk = { type: 'reasoning-end', id: 'r', signature: 's' };
`);
  assert.equal(status, 0, output);

  // An ai 7 server's wire reads without a wire_invalid: approvals and custom parts are continuations.
  const text = [...AI7_PARTS.map((p) => `data: ${JSON.stringify(p)}\n\n`), 'data: [DONE]\n\n'].join('');
  for (const [label, chunks] of splitings(text).filter(([label]) => CHUNKINGS(label))) {
    const events = await collect(streamOf(chunks).pipeThrough(fromSse('ai-sdk')));
    assert.deepEqual(
      events,
      [
        { type: 'thinking_delta', source: 'reasoning', text: 'Hmm.' },
        { type: 'continuation', kind: 'openai.compaction', providerMetadata: { openai: { itemId: 'cmp_1', encryptedContent: 'enc' } } },
        { type: 'answer_delta', phase: 'commentary', text: 'Checking.' },
        { type: 'tool_call_start', index: 0, id: 'c1', name: 'search', provider_executed: false },
        { type: 'tool_call', index: 0, id: 'c1', name: 'search', arguments: { q: 'x' }, repaired: false, provider_executed: false },
        { type: 'continuation', kind: 'tool_approval_request', approvalId: 'a1', toolCallId: 'c1', isAutomatic: false, signature: 'apsig' },
        { type: 'continuation', kind: 'tool_approval_response', approvalId: 'a1', approved: true, reason: 'fine' },
        { type: 'answer_delta', text: 'Done.' },
        { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop' },
      ],
      `${label} (seed ${SEED})`,
    );
  }
});
