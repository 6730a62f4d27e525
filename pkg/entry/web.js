// The web-stream adapters of the stream router (the main entry):
// `routeResponse(response, options)`, `toSse(profile, options)` and `connectSse(url, init,
// options)` with its `router` and `profile` options (connect.js). The machines (SSE decoding,
// provider decoding, routing) are the wasm ones; this module only moves chunks between
// streams, timers and fetch, which live in JS anyway.
import { StreamRouter } from './classes/router.js';
import { StreamrouteError } from './runtime.js';
import { json, writable } from './client/common.js';
import { profileName, wireStream } from './client/wire.js';
import { writer as planner } from './client/planner.js';
import { writer as tagged } from './client/tagged.js';
import { writer as aiSdk } from './client/ai-sdk.js';
import { writer as agUi } from './client/ag-ui.js';

/** The writer of every profile by name (readers: client/wire.js). */
const WRITERS = { planner, tagged, 'ai-sdk': aiSdk, 'ag-ui': agUi };
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
  const code =
    [e.code, e.type, e.status, v.code, v.__type].find((c) => typeof c === 'string' && c !== '') ??
    (typeof e.code === 'number' ? String(e.code) : null);
  return { message: e.message, code };
}

function routerOptions(options) {
  const { signal, ...rest } = optionsIn(options, null);
  return { signal, rest };
}

/**
 * Routes a fetch `Response` (a provider's streaming reply): yields RoutedEvents as the body
 * arrives, ending with `done`. A non-2xx response yields `error {code: "http_error"}` and
 * `done {ok: false}`. A router error (a cap, memory) yields the events completed before it, then
 * `error` with its code and `done {ok: false}`. `options.signal` aborts the read (the iterator
 * then throws the signal's reason). Leaving the loop early cancels the response's body.
 * The iterator also has `pipeThrough(transform)` (e.g. `toSse(profile)`): a ReadableStream
 * of what the transform makes of the events; cancelling it ends the iterator.
 */
export function routeResponse(response, options) {
  const events = routed(response, options);
  events.pipeThrough = (transform, pipeOptions) => readableOf(events).pipeThrough(transform, pipeOptions);
  return events;
}

/** A ReadableStream pulling from async iterator `it` (cancelling it returns the iterator). */
function readableOf(it) {
  return new ReadableStream(
    {
      async pull(controller) {
        const { done, value } = await it.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel() {
        await it.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

async function* routed(response, options) {
  if (response === null || typeof response !== 'object' || typeof response.ok !== 'boolean') {
    throw new StreamrouteError('invalid_input', 'response must be a fetch Response');
  }
  const { signal, rest } = routerOptions(options);
  if (signal?.aborted) throw abortError(signal);
  if (!response.ok) {
    const body = typeof response.text === 'function' ? await response.text().catch(() => '') : '';
    const { message, code } = httpErrorOf(body);
    yield { type: 'error', code: 'http_error', message: `HTTP ${response.status}: ${message ?? body.slice(0, 2000)}`, provider_code: code };
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
  let read = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw abortError(signal);
      if (done) break;
      yield* router.feed(value);
    }
    read = true;
    yield* router.finish();
  } catch (e) {
    // A cap or memory error of the router: what it completed before the error, then the error
    // as an event and `done {ok: false}`, so the stream ends as a stream. Anything else (an
    // abort, a body that failed) is thrown.
    if (!(e instanceof StreamrouteError) || e.code === 'invalid_state') throw e;
    if (Array.isArray(e.events)) yield* e.events;
    yield { type: 'error', code: e.code, message: e.message, provider_code: null };
    yield { type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error' };
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Left early (a `break`, an error, a cancelled stream): the provider's body is not read on.
    if (!read) reader.cancel().catch(() => {});
    reader.releaseLock?.();
    router.free();
  }
}

// ---------------------------------------------------------------------------------------
// toSse: RoutedEvents (and artifact events) to a browser-facing event stream.

/**
 * A TransformStream<RoutedEvent, Uint8Array> writing `text/event-stream` in one of four
 * vocabularies: `"planner"`, `"tagged"`, `"ai-sdk"` or `"ag-ui"` (whose run ids are
 * `options.threadId`, `runId` and `parentRunId`). Every frame has an `id:` (counting
 * from `options.firstId`, default 1); `options.retry` (ms) is sent once, first; a heartbeat
 * (a `: ping` comment, or a `ping` event for `"tagged"`) goes out after `options.heartbeatMs`
 * (default 15000; 0 disables) without a frame.
 */
export function toSse(profile, options) {
  options = optionsIn(options, [
    'firstId',
    'retry',
    'heartbeatMs',
    'actionSeq',
    'traceId',
    'sessionId',
    'messageId',
    'threadId',
    'runId',
    'parentRunId',
  ]);
  const p = WRITERS[profileName(profile)](options);
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
        timer = setInterval(
          () => {
            if (Date.now() - last < heartbeatMs) return;
            last = Date.now();
            try {
              controller.enqueue(utf8.encode(p.heartbeat()));
            } catch {
              stop();
            }
          },
          Math.max(1, Math.min(heartbeatMs, 1000)),
        );
      }
    },
    transform(event, controller) {
      event = writable(event);
      if (event.type === 'done') {
        // ArtifactStream's `done` carries only the payload.
        event = { ok: true, parse_ok: true, finish_reason: null, ...event };
      }
      let s = '';
      for (const [name, data] of frames(p, event)) s += frame(name, data);
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

/** The frames `p` writes for `event`; a writer that throws on it (a field of an unexpected shape) is `invalid_input`. */
function frames(p, event) {
  try {
    return p.frames(event);
  } catch (e) {
    if (e instanceof StreamrouteError) throw e;
    throw new StreamrouteError('invalid_input', `toSse: a malformed ${event.type} event (${e?.message ?? e})`);
  }
}

/**
 * Connects to an event stream with fetch and yields its `SseEvent`s; with `options.router`
 * (StreamRouter options) yields RoutedEvents instead, with `options.profile` the events
 * `fromSse(profile)` reads. See connect.js.
 */
export const connectSse = connector({ router: (options) => new StreamRouter(options), profile: wireStream });
