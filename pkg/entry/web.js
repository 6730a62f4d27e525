// The web-stream adapters of the stream router (the main entry):
// `routeResponse(response, options)`, `toSse(profile, options)` and `connectSse(url, init,
// options)` with its `router` and `profile` options (connect.js). The machines (SSE decoding,
// provider decoding, routing) are the wasm ones; this module only moves chunks between
// streams, timers and fetch, which live in JS anyway.
import { StreamRouter } from './classes/router.js';
import { StreamrouteError } from './runtime.js';
import { EXTRA_TYPES, wireReader } from './client.js';
import { abortError, connector, optionsIn } from './connect.js';

const utf8 = new TextEncoder();

/**
 * The message and code of a provider's JSON error body: `{error: {message, code | type |
 * status}}` (OpenAI, Anthropic, Gemini), `{error: "..."}` (Ollama), `{message, code}`
 * (Bedrock); `{}` when the body is not one of these.
 */
function httpErrorOf(body) {
  let v;
  try {
    v = JSON.parse(body);
  } catch {
    return {};
  }
  if (Array.isArray(v)) v = v[0]; // Gemini sometimes wraps the error in an array
  if (v === null || typeof v !== 'object') return {};
  const e = v.error !== undefined ? v.error : v;
  if (typeof e === 'string') return { message: e, code: null };
  if (e === null || typeof e !== 'object' || typeof e.message !== 'string') return {};
  const code = [e.code, e.type, e.status, v.code, v.__type].find((c) => typeof c === 'string' && c !== '')
    ?? (typeof e.code === 'number' ? String(e.code) : null);
  return { message: e.message, code };
}

function routerOptions(options) {
  const { signal, ...rest } = optionsIn(options, null);
  return { signal, rest };
}

/**
 * Routes a fetch `Response` (a provider's streaming reply): yields RoutedEvents as the body
 * arrives, ending with `done`. A non-2xx response yields `error {code: "http_error"}` and
 * `done {ok: false}`. `options.signal` aborts the read (the iterator then throws the
 * signal's reason).
 */
export async function* routeResponse(response, options) {
  if (response === null || typeof response !== 'object' || typeof response.ok !== 'boolean') {
    throw new StreamrouteError('invalid_input', 'response must be a fetch Response');
  }
  const { signal, rest } = routerOptions(options);
  if (signal?.aborted) throw abortError(signal);
  if (!response.ok) {
    const body = typeof response.text === 'function' ? await response.text().catch(() => '') : '';
    const { message, code } = httpErrorOf(body);
    yield { type: 'error', code: 'http_error', message: `HTTP ${response.status}: ${message ?? body.slice(0, 2000)}`,
      provider_code: code };
    yield { type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error' };
    return;
  }
  const router = new StreamRouter(rest);
  if (!response.body) {
    // No body (204, HEAD): an empty stream.
    yield* router.finish();
    router.free();
    return;
  }
  const reader = response.body.getReader();
  const onAbort = () => reader.cancel(signal.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw abortError(signal);
      if (done) break;
      yield* router.feed(value);
    }
    yield* router.finish();
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock?.();
    router.free();
  }
}

// ---------------------------------------------------------------------------------------
// toSse: RoutedEvents (and issue 7's artifact events) to a browser-facing event stream.

const AI_SDK_FINISH = {
  stop: 'stop', end_turn: 'stop', STOP: 'stop', completed: 'stop', stop_sequence: 'stop',
  length: 'length', max_tokens: 'length', MAX_TOKENS: 'length', max_output_tokens: 'length',
  tool_calls: 'tool-calls', tool_use: 'tool-calls', function_call: 'tool-calls',
  content_filter: 'content-filter', SAFETY: 'content-filter', RECITATION: 'content-filter',
  refusal: 'content-filter', failed: 'error',
};

// JSON text of event data. A value JSON cannot hold (a BigInt, a cycle) is the caller's
// `invalid_input`, like everywhere else, not a bare TypeError.
const json = (v) => {
  try {
    return JSON.stringify(v);
  } catch (e) {
    throw new StreamrouteError('invalid_input', `an event holds a value JSON cannot encode: ${e?.message ?? e}`);
  }
};

/** The planner vocabulary (reference-behaviour.md §7): named frames, JSON data. */
function plannerProfile(o) {
  const base = {};
  if (o.traceId !== undefined) base.trace_id = o.traceId;
  if (o.sessionId !== undefined) base.session_id = o.sessionId;
  const seq = o.actionSeq ?? null;
  let answer = null;
  let artifactSeq = 0;
  // Phases as the reference runtime writes them: `thinking` for native reasoning,
  // `observation` for the action's streamed thought; `user` marks tagged user text.
  const chunk = (text, phase, done = false) => ({
    ...base, text, done, phase, channel: phase === 'answer' || phase === 'user' ? 'answer' : 'thinking', action_seq: seq,
  });
  const extra = (e) => (e.provider_executed === undefined ? {} : { provider_executed: e.provider_executed });
  const names = new Map(); // tool index -> [id, name]
  return {
    heartbeat: () => ': ping\n\n',
    frames(e) {
      switch (e.type) {
        case 'answer_delta':
        case 'user_delta':
          answer = (answer ?? '') + e.text;
          return [['llm_stream_chunk', chunk(e.text, e.type === 'user_delta' ? 'user' : 'answer')]];
        case 'thinking_delta':
          return [['llm_stream_chunk', chunk(e.text, e.source === 'thought' ? 'observation' : 'thinking')]];
        case 'artifact_delta':
          return [['artifact_chunk', { ...base, stream_id: 'artifact', seq: artifactSeq++, chunk: e.text,
            done: false, artifact_type: 'text', meta: { source: 'artifact_delta' }, event: 'artifact_chunk' }]];
        case 'artifact_chunk':
          return [['artifact_chunk', { ...base, stream_id: e.stream_id, seq: e.seq, chunk: e.chunk, done: e.done,
            artifact_type: e.artifact_type, meta: e.meta ?? {}, event: 'artifact_chunk' }]];
        case 'tool_call_start':
          names.set(e.index, [e.id, e.name]);
          return [['tool_call_start', { ...base, tool_call_id: e.id, tool_name: e.name, args_json: '', action_seq: seq,
            index: e.index, ...extra(e) }]];
        case 'tool_call_delta':
          return [['tool_call_args', { ...base, tool_call_id: names.get(e.index)?.[0] ?? String(e.index), delta: e.arguments,
            index: e.index }]];
        case 'tool_call':
          return [['tool_call_end', { ...base, tool_call_id: e.id, tool_name: e.name, args: e.arguments, repaired: e.repaired,
            index: e.index, ...extra(e) }]];
        case 'action':
          return [['step', { ...base, event: 'step_complete', action_seq: seq, node: e.action.next_node,
            thought: e.action.thought ?? null, action: e.action }]];
        case 'usage': {
          const { type, ...counts } = e;
          return [['event', { ...base, event: 'usage', ...counts }]];
        }
        case 'error':
          return [['error', { ...base, error: e.message, code: e.code, provider_code: e.provider_code ?? null }]];
        case 'done': {
          const payload = e.payload ?? null;
          const final = payload && typeof payload.raw_answer === 'string' ? payload.raw_answer : answer;
          const out = [];
          if (answer !== null) out.push(['llm_stream_chunk', chunk('', 'answer', true)]);
          out.push(['done', { ...base, answer: final, metadata: { ok: e.ok, parse_ok: e.parse_ok,
            finish_reason: e.finish_reason ?? null, ...(e.finish !== undefined ? { finish: e.finish } : {}) },
            pause: null, answer_action_seq: seq,
            ...(payload ? { payload } : {}) }]);
          return out;
        }
        default: {
          if (!EXTRA_TYPES.has(e.type)) return [];
          const { type, ...fields } = e;
          return [['event', { ...base, event: type, ...fields }]];
        }
      }
    },
    end: () => [],
  };
}

/**
 * The tagged vocabulary (nonce-tag-streaming.md): artifact_delta, user_delta, done, ping. What
 * it has no word for (errors, reasoning, tool calls, the action, usage) goes out under the
 * routed event's own name, which a client listening for the vocabulary's names never sees.
 */
function taggedProfile() {
  let error = null;
  const named = new Set(['thinking_delta', 'tool_call_start', 'tool_call_delta', 'tool_call', 'action', 'usage', ...EXTRA_TYPES]);
  return {
    heartbeat: () => 'event: ping\ndata: {}\n\n',
    frames(e) {
      switch (e.type) {
        case 'artifact_delta':
          return [['artifact_delta', { text: e.text }]];
        case 'artifact_chunk':
          return [['artifact_delta', { text: typeof e.chunk === 'string' ? e.chunk : json(e.chunk), stream_id: e.stream_id,
            seq: e.seq, chunk: e.chunk, done: e.done, artifact_type: e.artifact_type }]];
        case 'user_delta':
          return [['user_delta', { text: e.text }]];
        case 'answer_delta':
          return [['user_delta', { text: e.text, source: 'answer' }]];
        case 'error':
          error ??= { code: e.code, message: e.message };
          return [['error', { code: e.code, message: e.message,
            ...(e.provider_code !== undefined ? { provider_code: e.provider_code } : {}) }]];
        case 'done':
          return [['done', { ok: e.ok, parse_ok: e.parse_ok, ...(error ? { error } : {}),
            ...(e.finish_reason != null ? { finish_reason: e.finish_reason } : {}),
            ...(e.finish !== undefined ? { finish: e.finish } : {}),
            ...(e.payload ? { payload: e.payload } : {}) }]];
        default: {
          if (!named.has(e.type)) return [];
          const { type, ...fields } = e;
          return [[type, fields]];
        }
      }
    },
    end: () => [],
  };
}

/** The Vercel AI SDK UI message stream: unnamed `data:` frames of typed parts, `[DONE]`. */
function aiSdkProfile(o) {
  let started = false;
  let open = null; // [kind, id, variant] of the open text or reasoning part
  let parts = 0;
  const ids = new Map(); // tool index -> toolCallId
  const errors = []; // error frames, held until done: what was recovered goes first
  const close = (out) => {
    if (open) out.push([null, { type: `${open[0]}-end`, id: open[1] }]);
    open = null;
  };
  // Every run of one kind of text is one text or reasoning part (a data part per delta would
  // make the message's parts follow the chunking). `variant` (user, artifact or refusal text,
  // the action's thought) rides on the part's providerMetadata, where the SDK keeps it.
  const text = (out, kind, delta, variant) => {
    if (open?.[0] !== kind || open[2] !== variant) {
      close(out);
      open = [kind, `${kind}-${parts++}`, variant];
      out.push([null, { type: `${kind}-start`, id: open[1], ...(variant ? { providerMetadata: { streamroute: variant } } : {}) }]);
    }
    out.push([null, { type: `${kind}-delta`, id: open[1], delta }]);
  };
  return {
    heartbeat: () => ': ping\n\n',
    frames(e) {
      const out = [];
      if (!started) {
        started = true;
        out.push([null, o.messageId ? { type: 'start', messageId: o.messageId } : { type: 'start' }]);
      }
      switch (e.type) {
        case 'answer_delta':
          text(out, 'text', e.text);
          break;
        case 'user_delta':
          text(out, 'text', e.text, USER_TEXT);
          break;
        case 'thinking_delta':
          text(out, 'reasoning', e.text, e.source === 'thought' ? THOUGHT : undefined);
          break;
        case 'artifact_delta':
          text(out, 'text', e.text, ARTIFACT_TEXT);
          break;
        case 'refusal_delta':
          text(out, 'text', e.text, REFUSAL);
          break;
        case 'artifact_chunk':
          close(out);
          out.push([null, { type: 'data-artifact', id: `${e.stream_id}-${e.seq}`, data: {
            stream_id: e.stream_id, seq: e.seq, chunk: e.chunk, done: e.done, artifact_type: e.artifact_type } }]);
          break;
        case 'tool_call_start':
          close(out);
          ids.set(e.index, e.id);
          // The provider's index, which the SDK's tool parts have no field for.
          out.push([null, { type: 'data-tool-call-index', data: { toolCallId: e.id, index: e.index }, transient: true }]);
          out.push([null, { type: 'tool-input-start', toolCallId: e.id, toolName: e.name,
            ...(e.provider_executed === true ? { providerExecuted: true } : {}) }]);
          break;
        case 'tool_call_delta':
          close(out);
          out.push([null, { type: 'tool-input-delta', toolCallId: ids.get(e.index) ?? String(e.index),
            inputTextDelta: e.arguments }]);
          break;
        case 'tool_call':
          close(out);
          out.push([null, { type: 'tool-input-available', toolCallId: e.id, toolName: e.name, input: e.arguments,
            ...(e.provider_executed === true ? { providerExecuted: true } : {}),
            ...(e.repaired ? { providerMetadata: { streamroute: { repaired: true } } } : {}) }]);
          break;
        case 'tool_result':
          close(out);
          out.push([null, { type: 'tool-output-available', toolCallId: e.id, output: e.result, providerExecuted: true }]);
          break;
        case 'source': {
          close(out);
          const sourceId = e.id ?? e.url ?? `source-${parts++}`;
          // What the SDK's parts have no field for rides in providerMetadata.
          const providerMetadata = { streamroute: { id: e.id ?? null, title: e.title ?? null, snippet: e.snippet ?? null } };
          if (typeof e.url === 'string') {
            out.push([null, { type: 'source-url', sourceId, url: e.url, ...(e.title ? { title: e.title } : {}), providerMetadata }]);
          } else {
            out.push([null, { type: 'source-document', sourceId, mediaType: 'text/plain', title: e.title ?? e.snippet ?? sourceId,
              providerMetadata }]);
          }
          break;
        }
        case 'action':
          close(out);
          out.push([null, { type: 'data-action', data: e.action }]);
          break;
        case 'usage': {
          const { type, ...usage } = e;
          out.push([null, { type: 'data-usage', data: usage, transient: true }]);
          break;
        }
        case 'error':
          // The SDK's chat stops at an error frame: it goes out at done, after what was
          // recovered (an action, a payload). The text is the provider's own message.
          close(out);
          // The code rides in a transient data part just before (the error part has no field).
          errors.push([null, { type: 'data-error', data: { code: e.code, provider_code: e.provider_code ?? null,
            ...(e.message ? {} : { message: '' }) }, transient: true }]);
          errors.push([null, { type: 'error', errorText: e.message || e.code }]);
          break;
        case 'done': {
          close(out);
          if (e.payload && errors.length) out.push([null, { type: 'data-payload', data: e.payload }]);
          out.push(...errors.splice(0));
          const finishReason = e.finish ?? (e.ok ? (AI_SDK_FINISH[e.finish_reason] ?? 'other') : 'error');
          const messageMetadata = { ok: e.ok, parse_ok: e.parse_ok, finish_reason: e.finish_reason ?? null,
            ...(e.finish !== undefined ? { finish: e.finish } : {}), ...(e.payload ? { payload: e.payload } : {}) };
          out.push([null, { type: 'finish', finishReason, messageMetadata }]);
          break;
        }
        default:
          if (EXTRA_TYPES.has(e.type)) {
            const { type, ...data } = e;
            out.push([null, { type: `data-${type.replaceAll('_', '-')}`, data }]);
          }
          break;
      }
      return out;
    },
    // Errors still held (no `done` came) go out before the end marker.
    end: (frame) => [...errors.splice(0).map(([name, data]) => frame(name, data)), 'data: [DONE]\n\n'],
  };
}

const USER_TEXT = { type: 'user_delta' };
const ARTIFACT_TEXT = { type: 'artifact_delta' };
const REFUSAL = { type: 'refusal_delta' };
const THOUGHT = { source: 'thought' };

const PROFILES = { planner: plannerProfile, tagged: taggedProfile, 'ai-sdk': aiSdkProfile };

/**
 * A TransformStream<RoutedEvent, Uint8Array> writing `text/event-stream` in one of three
 * vocabularies: `"planner"`, `"tagged"` or `"ai-sdk"`. Every frame has an `id:` (counting
 * from `options.firstId`, default 1); `options.retry` (ms) is sent once, first; a heartbeat
 * (a `: ping` comment, or a `ping` event for `"tagged"`) goes out after `options.heartbeatMs`
 * (default 15000; 0 disables) without a frame.
 */
export function toSse(profile, options) {
  options = optionsIn(options, ['firstId', 'retry', 'heartbeatMs', 'actionSeq', 'traceId', 'sessionId', 'messageId']);
  const make = typeof profile === 'string' && Object.hasOwn(PROFILES, profile) ? PROFILES[profile] : undefined;
  if (!make) {
    const got = typeof profile === 'string' ? JSON.stringify(profile) : `a ${typeof profile}`;
    throw new StreamrouteError('invalid_option', `profile must be "planner", "tagged" or "ai-sdk", got ${got}`);
  }
  const p = make(options);
  let id = options.firstId ?? 1;
  let retry = options.retry;
  const heartbeatMs = options.heartbeatMs ?? 15000;
  let timer = null;
  let last = 0;
  const frame = (name, data) => {
    let s = `id: ${id++}\n`;
    if (retry !== undefined) {
      s += `retry: ${retry}\n`;
      retry = undefined;
    }
    if (name) s += `event: ${name}\n`;
    return `${s}data: ${json(data)}\n\n`;
  };
  const stop = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };
  return new TransformStream({
    start(controller) {
      last = Date.now();
      if (heartbeatMs > 0) {
        timer = setInterval(() => {
          if (Date.now() - last < heartbeatMs) return;
          last = Date.now();
          try {
            controller.enqueue(utf8.encode(p.heartbeat()));
          } catch {
            stop();
          }
        }, Math.max(1, Math.min(heartbeatMs, 1000)));
      }
    },
    transform(event, controller) {
      if (event?.type === 'done') {
        // ArtifactStream's `done` carries only the payload.
        event = { ok: true, parse_ok: true, finish_reason: null, ...event };
      }
      let s = '';
      for (const [name, data] of p.frames(event)) s += frame(name, data);
      if (s) {
        last = Date.now();
        controller.enqueue(utf8.encode(s));
      }
    },
    flush(controller) {
      stop();
      const tail = p.end(frame).join('');
      if (tail) controller.enqueue(utf8.encode(tail));
    },
    cancel: stop,
  });
}

/**
 * Connects to an event stream with fetch and yields its `SseEvent`s; with `options.router`
 * (StreamRouter options) yields RoutedEvents instead, with `options.profile` the events
 * `fromSse(profile)` reads. See connect.js.
 */
export const connectSse = connector({ router: (options) => new StreamRouter(options), profile: wireReader });
