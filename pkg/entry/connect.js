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

/**
 * Connects to an event stream with fetch (any method, body and headers; `init.signal`
 * aborts) and yields its `SseEvent`s; with `options.router` (StreamRouter options) yields
 * RoutedEvents instead, with `options.profile` the events `fromSse(profile)` reads. When the
 * connection fails or drops mid-stream it reconnects with `Last-Event-ID` (the id's UTF-8
 * bytes, as EventSource sends it) after the server's `retry:` (else `options.retryMs`, default
 * 1000; at most one hour: larger waits are clamped), at most
 * `options.maxRetries` times in a row (default 3), then throws `sse_connection_failed`.
 * A stream the server ends cleanly is the end (no reconnection).
 *
 * `kinds` says what this entry's `connectSse` can turn events into: `router(options)` makes a
 * StreamRouter, `profile(name)` a wire reader. An option whose kind the entry lacks is
 * `invalid_input` (the SSE entry has neither: `router` and `profile` need the main entry).
 */
export function connector(kinds) {
  // A method of an object literal: its name (`connectSse.name`) survives minifying, which
  // drops the names of function expressions.
  return {
    async *connectSse(url, init, options) {
      init = init ?? {};
      options = optionsIn(options, ['maxRetries', 'retryMs', 'router', 'fetch', 'profile']);
      const signal = init.signal;
      const maxRetries = options.maxRetries ?? 3;
      const doFetch = options.fetch ?? globalThis.fetch;
      for (const kind of ['router', 'profile']) {
        if (options[kind] !== undefined && options[kind] !== null && !kinds[kind]) {
          throw new StreamrouteError('invalid_input', `invalid options: "${kind}" needs the main entry ('streamroute'), not this one`);
        }
      }
      const decoder = new SseDecoder();
      const reader = options.profile !== undefined ? kinds.profile(options.profile) : null;
      const router = options.router ? kinds.router(options.router) : null;
      let failures = 0;
      let lastError = null;
      const out = (events) => {
        if (reader) return events.flatMap((e) => reader.frame(e));
        if (!router) return events;
        const routed = [];
        for (const e of events) routed.push(...router.feed(wire(e)));
        return routed;
      };
      try {
        for (;;) {
          if (signal?.aborted) throw abortError(signal);
          const headers = new Headers(init.headers);
          if (!headers.has('accept')) headers.set('accept', 'text/event-stream');
          const lastId = lastEventIdHeader(decoder.lastEventId);
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
            const reader = res.body.getReader();
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              const events = decoder.feed(value);
              if (events.length) {
                failures = 0;
                yield* out(events);
              }
            }
            ended = true;
          } catch (err) {
            if (signal?.aborted) throw abortError(signal);
            if (err?.final || (err instanceof StreamrouteError && err.code !== 'sse_connection_failed')) throw err;
            lastError = err;
          }
          // The events completed so far stand; an unterminated one is dropped (it comes again
          // after the reconnection).
          yield* out(decoder.finish());
          if (ended) break;
          if (++failures > maxRetries) {
            throw new StreamrouteError('sse_connection_failed',
              `gave up after ${maxRetries} reconnection attempts: ${lastError?.message ?? lastError}`);
          }
          await sleep(retryDelay(decoder.retry ?? options.retryMs ?? 1000), signal);
        }
        if (router) yield* router.finish();
      } finally {
        decoder.free();
        router?.free();
      }
    },
  }.connectSse;
}
