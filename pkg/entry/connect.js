// connectSse: a fetch-based EventSource that POSTs, aborts and resumes, and the options reading
// the web adapters share. Every entry with the SSE decoder has it: the SSE entry as it is
// (`connector({})`), the main entry with the router and the wire profiles (web.js).
import { SseDecoder } from './classes/sse.js';
import { StreamrouteError } from './runtime.js';

const utf8 = new TextEncoder();

export function abortError(signal) {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

// An options object of these adapters as a plain copy of the `allowed` keys it has, each
// read once: another key, or a getter that throws, is `invalid_input` naming it (as for the
// wasm classes' options, src/wasm/de.rs); `allowed` null takes every key (the wasm class the
// rest goes to checks them). `undefined` and `null` are no options.
export function optionsIn(options, allowed) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' && typeof options !== 'function') {
    throw new StreamrouteError('invalid_option', `invalid options: expected an object, got a ${typeof options}`);
  }
  const copy = {};
  let what = "the options' keys";
  try {
    const keys = Object.keys(options);
    const unknown = allowed === null ? undefined : keys.find((k) => !allowed.includes(k));
    if (unknown !== undefined) throw new StreamrouteError('invalid_input', `invalid options: unknown option "${unknown}"`);
    for (const key of allowed ?? keys) {
      what = `"${key}"`;
      const value = options[key];
      if (value !== undefined) copy[key] = value;
    }
  } catch (e) {
    if (e instanceof StreamrouteError) throw e;
    const why = typeof e?.message === 'string' ? `: ${e.message}` : '';
    throw new StreamrouteError('invalid_input', `invalid options: reading ${what} threw${why}`);
  }
  return copy;
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(abortError(signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// The longest wait before a reconnection: a larger `retry:` (or `options.retryMs`) is
// clamped to it (timers overflow past 2^31 - 1 ms and would fire at once).
const MAX_RETRY_MS = 3_600_000;
const retryDelay = (ms) => (typeof ms === 'number' && ms > 0 ? Math.min(ms, MAX_RETRY_MS) : 0);

// The `Last-Event-ID` header value for an event id: its UTF-8 bytes, one header byte each (as
// EventSource sends it; a header value is a byte string, so a character above U+00FF cannot
// go in as it is). `null` for an id no header can carry (a NUL, CR or LF; the decoder never
// keeps such an id, but an id is left out rather than failing the reconnection).
function lastEventIdHeader(id) {
  if (!id || /[\0\r\n]/.test(id)) return null;
  if (/^[\x01-\x7f]*$/.test(id)) return id;
  let value = '';
  for (const byte of utf8.encode(id)) value += String.fromCharCode(byte);
  return value;
}

const wire = (e) => `event: ${e.event}\ndata: ${e.data.split('\n').join('\ndata: ')}\n\n`;

/** The default cap on one event's data (the SseDecoder's own default). */
export const DEFAULT_EVENT_BYTES = 8 * 1024 * 1024;
// Room in the line cap for a field name before the data (`data: `): a line of one event's
// whole data is read, whatever the cap.
const LINE_SLACK = 64;
const MAX_CAP = 2 ** 32 - 1;

/**
 * The SseDecoder caps for events of up to `maxEventBytes` data bytes (default 8 MiB): that
 * event cap and a line cap just above it, so such an event is read whole whatever its line
 * length. A value that is not a positive integer is passed on for the decoder to reject
 * (`invalid_option`).
 */
export function decoderCaps(maxEventBytes) {
  const cap = maxEventBytes ?? DEFAULT_EVENT_BYTES;
  if (!Number.isSafeInteger(cap) || cap < 1) return { maxEventBytes: cap };
  return { maxEventBytes: cap, maxLineBytes: Math.min(cap + LINE_SLACK, MAX_CAP) };
}

/**
 * Connects to an event stream with fetch (any method, body and headers; `init.signal`
 * aborts) and yields its `SseEvent`s; with `options.router` (StreamRouter options) yields
 * RoutedEvents instead, with `options.profile` the events `fromSse(profile)` reads. When the
 * connection fails or drops mid-stream it reconnects with `Last-Event-ID` (the id's UTF-8
 * bytes, as EventSource sends it) after the server's `retry:` (else `options.retryMs`, default
 * 1000; at most one hour: larger waits are clamped), at most
 * `options.maxRetries` times in a row (default 3), then throws `sse_connection_failed`.
 * A stream the server ends cleanly is the end (no reconnection). `options.maxEventBytes`
 * (default 8 MiB) caps one event's data; an event up to it is read whole, whatever its line
 * length. Over it, without a profile the iterator throws `sse_event_too_large`; with one, the
 * frame is one `wire_invalid` error event and is skipped, as `fromSse` does. With a profile, a
 * wire that is not that profile's ends the iteration after `wire_invalid` and `done {ok: false}`.
 *
 * `kinds` says what this entry's `connectSse` can turn events into: `router(options)` makes a
 * StreamRouter, `profile(name, { maxEventBytes })` a wire reader (client/wire.ts
 * `WireStream`). An option whose kind the entry lacks is `invalid_input` (the SSE entry has
 * neither: `router` and `profile` need the main entry).
 */
export function connector(kinds) {
  // A method of an object literal: its name (`connectSse.name`) survives minifying, which
  // drops the names of function expressions.
  return {
    async *connectSse(url, init, options) {
      init = init ?? {};
      options = optionsIn(options, ['maxRetries', 'retryMs', 'router', 'fetch', 'profile', 'maxEventBytes']);
      const signal = init.signal;
      const maxRetries = options.maxRetries ?? 3;
      const doFetch = options.fetch ?? globalThis.fetch;
      for (const kind of ['router', 'profile']) {
        if (options[kind] !== undefined && options[kind] !== null && !kinds[kind]) {
          throw new StreamrouteError('invalid_input', `invalid options: "${kind}" needs the main entry ('streamroute'), not this one`);
        }
      }
      // With a profile, the wire reader decodes (caps, skipping a frame over the cap);
      // otherwise a decoder, its events as they are or routed.
      const profile = options.profile !== undefined ? kinds.profile(options.profile, { maxEventBytes: options.maxEventBytes }) : null;
      const decoder = profile ? null : new SseDecoder(decoderCaps(options.maxEventBytes));
      const source = profile ?? decoder;
      const router = options.router ? kinds.router(options.router) : null;
      let failures = 0;
      let lastError = null;
      const out = (events) => {
        if (!router) return events;
        const routed = [];
        for (const e of events) routed.push(...router.feed(wire(e)));
        return routed;
      };
      const feed = (chunk) => (profile ? profile.feed(chunk) : out(decoder.feed(chunk)));
      // The end of one connection: an unterminated event is dropped (it comes again after the
      // reconnection).
      const drop = () => (profile ? profile.drop() : out(decoder.finish()));
      try {
        for (;;) {
          if (signal?.aborted) throw abortError(signal);
          const headers = new Headers(init.headers);
          if (!headers.has('accept')) headers.set('accept', 'text/event-stream');
          const lastId = lastEventIdHeader(source.lastEventId);
          if (lastId !== null) headers.set('last-event-id', lastId);
          let ended = false;
          try {
            const res = await doFetch(url, { ...init, headers });
            if (!res.ok) {
              // A 4xx is final (the request is wrong); a 5xx may pass.
              const err = new StreamrouteError('sse_connection_failed', `HTTP ${res.status} from ${url}`);
              if (res.status < 500) throw Object.assign(err, { final: true });
              throw err;
            }
            const body = res.body.getReader();
            for (;;) {
              const { done, value } = await body.read();
              if (done) break;
              const events = feed(value);
              if (events.length) {
                failures = 0;
                yield* events;
              }
              if (profile?.stopped) {
                // Not the profile's wire: nothing more will come of it.
                await body.cancel().catch(() => {});
                break;
              }
            }
            ended = true;
          } catch (err) {
            if (signal?.aborted) throw abortError(signal);
            if (err?.final || (err instanceof StreamrouteError && err.code !== 'sse_connection_failed')) throw err;
            lastError = err;
          }
          yield* drop();
          if (ended) break;
          if (++failures > maxRetries) {
            throw new StreamrouteError(
              'sse_connection_failed',
              `gave up after ${maxRetries} reconnection attempts: ${lastError?.message ?? lastError}`,
            );
          }
          await sleep(retryDelay(source.retry ?? options.retryMs ?? 1000), signal);
        }
        if (profile) yield* profile.end();
        if (router) yield* router.finish();
      } finally {
        source.free();
        router?.free();
      }
    },
  }.connectSse;
}
