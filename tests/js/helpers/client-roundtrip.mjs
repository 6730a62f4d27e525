// The wire round trip the client tests run in Node, Chromium and workerd: routed events folded
// by StreamState directly, and the same events written by toSse(profile), cut by the shared
// chunking helper, read by fromSse(profile) and folded, must give the same final snapshot.
// `sr` is the package namespace of the runtime at hand; nothing here imports it.
import { splitings } from './chunking.mjs';

export const PROFILES = ['planner', 'tagged', 'ai-sdk', 'ag-ui'];

/** The run ids the round trips give `toSse("ag-ui")`, which its events come back with. */
export const AG_UI_RUN = { threadId: 'thread-1', runId: 'run-1' };

/** `events` as `fromSse(profile)` gives them back: with `"ag-ui"`, each with its run's ids. */
export const withRun = (profile, events) =>
  profile === 'ag-ui' ? events.map((e) => ({ ...e, thread_id: AG_UI_RUN.threadId, run_id: AG_UI_RUN.runId })) : events;

/** The snapshot fields compared, by their public names. */
export const FIELDS = [
  'status',
  'answer',
  'thinking',
  'artifactText',
  'userText',
  'toolCalls',
  'action',
  'artifacts',
  'sources',
  'usage',
  'payload',
  'finish',
  'errors',
  'commentary',
  'compaction',
  'continuations',
  'modelFallback',
  'container',
  'stopDetails',
  'finishMessage',
];

/** Events beyond a provider stream: artifact chunks (one repeated, one out of order) and a payload with sources. */
export const EXTRA_EVENTS = [
  { type: 'answer_delta', text: 'Revenue grew 15% ' },
  { type: 'artifact_chunk', stream_id: 'chart', seq: 0, chunk: { points: [1, 2] }, done: false, artifact_type: 'dict' },
  { type: 'artifact_chunk', stream_id: 'table', seq: 1, chunk: 'row 2', done: true, artifact_type: 'str' },
  { type: 'artifact_chunk', stream_id: 'chart', seq: 0, chunk: { points: [9] }, done: false, artifact_type: 'dict' },
  { type: 'answer_delta', text: 'in Q3 — ☕ 😀.' },
  { type: 'artifact_chunk', stream_id: 'table', seq: 0, chunk: 'row 1', done: false, artifact_type: 'str' },
  { type: 'artifact_chunk', stream_id: 'chart', seq: 1, chunk: { points: [3] }, done: true, artifact_type: 'dict' },
  { type: 'usage', input_tokens: 3, output_tokens: 9, total_tokens: 12, reasoning_tokens: null, cached_input_tokens: null },
  {
    type: 'done',
    payload: {
      raw_answer: 'Revenue grew 15% in Q3.',
      artifacts: {},
      confidence: null,
      sources: [
        { title: 'Q3 report', url: 'https://example.com/q3', snippet: null, relevance_score: null },
        { title: 'Q3 report again', url: 'https://example.com/q3', snippet: null, relevance_score: null },
      ],
      route: null,
      suggested_actions: [],
      requires_followup: false,
      warnings: [],
      language: 'en',
      extra: {},
    },
  },
];

/**
 * The events a provider's next request depends on: the answer's phases, continuations of every
 * kind (on reasoning, on text, on a tool call, on nothing open), compaction text, a model
 * fallback, a container, a tool call's caller, and done's stop details and finish message.
 */
export const CONTINUATION_EVENTS = [
  { type: 'model_fallback', from: 'model-a', to: { id: 'model-b', reason: 'overloaded' } },
  { type: 'container', id: 'cntr_1', expires_at: '2026-01-01T00:00:00Z' },
  { type: 'thinking_delta', text: 'Think', source: 'reasoning' },
  { type: 'thinking_delta', text: 'ing.', source: 'reasoning' },
  { type: 'continuation', kind: 'thinking_signature', signature: 'c2lnbmF0dXJl' },
  { type: 'continuation', kind: 'redacted_thinking', data: 'b3BhcXVl' },
  { type: 'answer_delta', text: 'Let me look that up. ', phase: 'commentary' },
  { type: 'continuation', kind: 'item', item_type: 'message', id: 'msg_1' },
  { type: 'tool_call_start', index: 0, id: 'call_1', name: 'lookup', provider_executed: false, caller: { type: 'direct' } },
  { type: 'tool_call_delta', index: 0, arguments: '{"q":"x"}' },
  {
    type: 'tool_call',
    index: 0,
    id: 'call_1',
    name: 'lookup',
    arguments: { q: 'x' },
    repaired: false,
    provider_executed: false,
    caller: { type: 'direct' },
  },
  { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'dGhvdWdodA==', index: 0 },
  { type: 'continuation', kind: 'item', item_type: 'function_call', id: 'fc_1', call_id: 'call_1', index: 0 },
  { type: 'thinking_delta', text: 'More.', source: 'reasoning' },
  { type: 'continuation', kind: 'reasoning', id: 'rs_1', encrypted_content: 'ZW5j', summary: [{ type: 'summary_text', text: 'More.' }] },
  { type: 'compaction', text: 'Earlier: the user asked about x.' },
  { type: 'continuation', kind: 'compaction', id: 'cmp_1', encrypted_content: 'Y21w' },
  { type: 'answer_delta', text: 'It is ', phase: 'final_answer' },
  { type: 'answer_delta', text: 'x.', phase: 'final_answer' },
  { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'dGV4dA==', part: 'text' },
  { type: 'answer_delta', text: ' Unmarked.' },
  {
    type: 'done',
    ok: true,
    parse_ok: true,
    finish_reason: 'end_turn',
    finish: 'stop',
    stop_details: { type: 'end_turn', note: null },
    finish_message: 'Model finished.',
    violations: [{ code: 'nonce_in_text', offset: 3 }],
  },
];

/** A ReadableStream of `items`, one per pull. */
export function streamOf(items) {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < items.length) c.enqueue(items[i++]);
      else c.close();
    },
  });
}

/** Everything `readable` gives. */
export async function collect(readable) {
  const out = [];
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/** The text `toSse(profile)` writes for `events`. */
export async function wireText(sr, events, profile, options) {
  const run = profile === 'ag-ui' ? AG_UI_RUN : {};
  const stream = streamOf(events).pipeThrough(sr.toSse(profile, { heartbeatMs: 0, ...run, ...options }));
  return new TextDecoder().decode(new Uint8Array(await new Response(stream).arrayBuffer()));
}

/** What `fromSse(profile)` reads from `chunks`. */
export const readWire = (sr, profile, chunks) => collect(streamOf(chunks).pipeThrough(sr.fromSse(profile)));

/** The final snapshot of `events` folded by a fresh StreamState. */
export function fold(sr, events) {
  const state = new sr.StreamState();
  state.apply(events);
  return state.snapshot();
}

// JSON with sorted keys and `undefined` kept apart from missing: equal text, equal values.
export function canonical(v) {
  if (v === undefined) return '"<undefined>"';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
    .join(',')}}`;
}

/** The fields where two snapshots differ. */
export const differences = (want, got) =>
  FIELDS.filter((f) => canonical(want[f]) !== canonical(got[f])).map((field) => ({
    field,
    want: canonical(want[field]),
    got: canonical(got[field]),
  }));

/** The chunkings cheap enough for a browser page or a worker: whole, and random pieces. */
export const QUICK = (label) => label.startsWith('whole') || /<=(7|64) /.test(label);

/**
 * For every `[name, events]` case and every profile, at every chunking of the wire text
 * (`splitings`, or those whose label `pick` accepts): the mismatches, and how many snapshots
 * were compared.
 */
export async function roundTrips(sr, cases, { seed, pick = () => true } = {}) {
  const mismatches = [];
  let compared = 0;
  for (const [name, events] of cases) {
    for (const profile of PROFILES) {
      const want = fold(sr, withRun(profile, events));
      const text = await wireText(sr, events, profile);
      const cuts = splitings(text, seed);
      for (const [label, chunks] of cuts.filter(([label]) => pick(label))) {
        const got = fold(sr, await readWire(sr, profile, chunks));
        compared++;
        for (const d of differences(want, got)) mismatches.push({ name, profile, label, ...d });
      }
    }
  }
  return { compared, mismatches };
}

/** The routed events of a sample stream (`text` is its content), whole. */
export function routed(sr, text, content, nonce) {
  const router = new sr.StreamRouter({ content, nonce });
  const events = [...router.feed(text), ...router.finish()];
  router.free();
  return events;
}

/** The round-trip cases of the bundled samples (`{file, content, text}`), the continuation events and the extra events (last). */
export const casesOf = (sr, samples, nonce) => [
  ...samples.map((s) => [s.file, routed(sr, s.text, s.content, nonce)]),
  ['continuation events', CONTINUATION_EVENTS],
  ['extra events', EXTRA_EVENTS],
];
