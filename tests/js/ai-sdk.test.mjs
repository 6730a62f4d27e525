// The `ai-sdk` wire against the real Vercel AI SDK client, v5 and v6: every bundled stream,
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
import { EXTRA_EVENTS, collect, streamOf } from './helpers/client-roundtrip.mjs';

const SDKS = [['ai@5', ai5], ['ai@6', ai6]];

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
    pushMessage = (m) => { this.messages = [...this.messages, m]; };
    popMessage = () => { this.messages = this.messages.slice(0, -1); };
    replaceMessage = (i, m) => { this.messages = this.messages.map((old, j) => (j === i ? structuredClone(m) : old)); };
    snapshot = (v) => structuredClone(v);
  }
  const fetch = async () => new Response(streamOf([bytes]), {
    headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' },
  });
  const transport = new sdk.DefaultChatTransport({ api: 'http://localhost/api/chat', fetch });
  let finished;
  const data = [];
  const chat = new (class extends sdk.AbstractChat {})({
    transport, state: new State(), onFinish: (f) => { finished = f; }, onData: (d) => data.push(d), onError: () => {},
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
  for (const e of events) {
    if (e.type !== 'usage' && !e.type.endsWith('_delta')) open = null;
    switch (e.type) {
      case 'answer_delta': text('text', undefined, e.text); break;
      case 'user_delta': text('text', 'user_delta', e.text); break;
      case 'thinking_delta': text('reasoning', e.source === 'thought' ? 'thought' : undefined, e.text); break;
      case 'tool_call_delta': open = null; break;
      case 'tool_call_start': {
        const part = { type: `tool-${e.name}`, toolCallId: e.id, state: 'input-streaming', providerExecuted: e.provider_executed };
        tools.set(e.id, part);
        parts.push(part);
        break;
      }
      case 'tool_call': {
        let part = tools.get(e.id);
        if (!part) parts.push(part = { type: `tool-${e.name}`, toolCallId: e.id });
        tools.set(e.id, Object.assign(part, { state: 'input-available', input: e.arguments, providerExecuted: e.provider_executed }));
        break;
      }
      case 'tool_result':
        Object.assign(tools.get(e.id), { state: 'output-available', output: e.result, providerExecuted: true });
        break;
      case 'source':
        parts.push(e.url ? { type: 'source-url', url: e.url } : { type: 'source-document' });
        break;
      case 'action': parts.push({ type: 'data-action', data: e.action }); break;
      case 'continuation': {
        const { type, ...data } = e;
        parts.push({ type: `data-${type}`, data });
        break;
      }
      case 'artifact_delta': text('text', 'artifact_delta', e.text); break;
      case 'refusal_delta': text('text', 'refusal_delta', e.text); break;
      case 'done':
        if (e.payload && events.some((x) => x.type === 'error')) parts.push({ type: 'data-payload', data: e.payload });
        break;
      default: break;
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
      // What kind of text it is rides in providerMetadata.
      const own = p.providerMetadata?.streamroute;
      out.push({ type: p.type, variant: own?.type ?? own?.source, text: p.text });
    }
    else if (p.type.startsWith('tool-')) {
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
      assert.deepEqual(message.metadata, { ok: done.ok, parse_ok: done.parse_ok, finish_reason: done.finish_reason ?? null,
        ...(done.finish !== undefined ? { finish: done.finish } : {}), ...(done.payload ? { payload: done.payload } : {}) }, at);
      // The error text is the provider's message.
      assert.deepEqual(errors.map((e) => e.message), events.filter((e) => e.type === 'error').map((e) => e.message || e.code), at);
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
      if (want.length) assert.deepEqual([shown.role, shown.id, shown.parts], ['assistant', finished.message.id, finished.message.parts], s.file);
      else assert.equal(shown.role, 'user', s.file);
      if (errors.length) {
        // The chat stops at the error frame; what was recovered (action, payload) came first.
        assert.equal(chat.status, 'error', s.file);
        assert.equal(chat.error.message, errors[0].message || errors[0].code, s.file);
        assert.equal(finished.isError, true, s.file);
        assert.deepEqual(data.filter((d) => d.type === 'data-error').map((d) => d.data.code), [errors[0].code], s.file);
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
    const payload = { raw_answer: 'Partial', artifacts: {}, confidence: null, sources: [], route: null, suggested_actions: [],
      requires_followup: false, warnings: [], language: 'en', extra: {} };
    const failed = [
      { type: 'answer_delta', text: 'Partial' },
      { type: 'error', code: 'overloaded_error', message: 'Overloaded', provider_code: 'overloaded_error' },
      { type: 'action', action },
      { type: 'done', ok: false, parse_ok: true, finish_reason: null, finish: 'error', payload },
    ];
    const wire = async (events, options) => new Uint8Array(await new Response(streamOf(events)
      .pipeThrough(toSse('ai-sdk', { heartbeatMs: 0, ...options }))).arrayBuffer());
    const { chat, finished, data } = await sdkChat(sdk, await wire(failed, { messageId: 'msg-1' }));
    assert.equal(finished.message.id, 'msg-1', 'the start part names the message');
    assert.deepEqual(partsOf(finished.message), [{ type: 'text', variant: undefined, text: 'Partial' },
      { type: 'data-action', data: action }, { type: 'data-payload', data: payload }]);
    assert.deepEqual([chat.status, chat.error.message], ['error', 'Overloaded']);
    assert.deepEqual(data.filter((d) => d.type === 'data-error').map((d) => d.data), [{ code: 'overloaded_error', provider_code: 'overloaded_error' }]);

    // Artifact chunks are data-artifact parts (one per stream and seq, a repeat replaces), the
    // payload rides in the finish's metadata.
    const { chunks, failed: rejected } = await sdkChunks(sdk, await wire(EXTRA_EVENTS));
    assert.deepEqual(rejected, []);
    const { message } = await sdkMessage(sdk, chunks);
    assert.deepEqual(message.parts.filter((p) => p.type === 'data-artifact').map((p) => [p.id, p.data.chunk]),
      [['chart-0', { points: [9] }], ['table-1', 'row 2'], ['table-0', 'row 1'], ['chart-1', { points: [3] }]]);
    assert.equal(message.parts.filter((p) => p.type === 'text').map((p) => p.text).join(''), 'Revenue grew 15% in Q3 — ☕ 😀.');
    assert.equal(message.metadata.payload.language, 'en');
  });

  test(`${version}: heartbeats between parts are comments the SDK skips`, async () => {
    const events = [{ type: 'answer_delta', text: 'Hel' }, { type: 'answer_delta', text: 'lo' },
      { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop' }];
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
