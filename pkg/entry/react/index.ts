// streamroute/react: React hooks over the client entry. `useStreamState` renders a StreamState;
// `useSseStream` fetches an event stream, reads it with `connectSse({ profile })` (which resumes
// with `Last-Event-ID` after a drop) into a StreamState of its own and renders that. `react` and `streamroute/client` stay imports (scripts/build
// leaves both external): the page's one React, and the client entry's one wasm instance.
// Nothing here runs at import time, so the entry loads wherever React does (browsers, Node
// for server rendering, workers).
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { StreamState, StreamrouteError, connectSse } from 'streamroute/client';
import type { SseProfile, StreamSnapshot, WireEvent } from 'streamroute/client';

/** Options of `useStreamState`. */
export interface UseStreamStateOptions {
  /** Re-render at most once per this many milliseconds (passed to `state.subscribe`). */
  throttleMs?: number;
}

/**
 * What `useSseStream` fetches: a URL, a `Request`, or a function that fetches with the signal it
 * is given (and, when it resumes a dropped stream, the `Last-Event-ID` to send).
 */
export type SseStreamRequest = string | URL | Request | ((signal: AbortSignal, lastEventId?: string) => Promise<Response>);

/** Options of `useSseStream`. */
export interface UseSseStreamOptions extends UseStreamStateOptions {
  /** The wire vocabulary the server writes (`toSse(profile)`). Required: without it the hook throws `invalid_option`. */
  profile: SseProfile;
  /** The state's memory cap (`new StreamState({ maxBytes })`). */
  maxBytes?: number;
}

/** What `useSseStream` returns. */
export interface SseStream {
  /** The current snapshot of the stream. */
  readonly snapshot: StreamSnapshot;
  /** Aborts the fetch; the snapshot keeps what arrived (no error is folded). */
  stop(): void;
  /** Starts over: a fresh state and a fresh fetch. */
  restart(): void;
}

// `subscribe` with its options (a state that ignores them notifies after every change).
type Subscribe = (listener: () => void, options?: UseStreamStateOptions) => () => void;

/**
 * The snapshot of `state`, re-rendering when it changes (at most once per `throttleMs` when
 * given): `useSyncExternalStore` over `state.subscribe` and `state.snapshot`.
 */
export function useStreamState(state: StreamState, options?: UseStreamStateOptions): StreamSnapshot {
  const throttleMs = options?.throttleMs;
  const subscribe = useCallback<Subscribe>(
    (listener) => {
      const on: Subscribe = state.subscribe;
      return throttleMs === undefined ? on(listener) : on(listener, { throttleMs });
    },
    [state, throttleMs],
  );
  return useSyncExternalStore(subscribe, state.snapshot, state.snapshot);
}

const PROFILES: readonly string[] = ['planner', 'tagged', 'ai-sdk', 'ag-ui'];

function profileOf(options: UseSseStreamOptions | undefined): SseProfile {
  const profile: unknown = options?.profile;
  if (typeof profile !== 'string' || !PROFILES.includes(profile)) {
    const got = typeof profile === 'string' ? JSON.stringify(profile) : `a ${typeof profile}`;
    throw new StreamrouteError('invalid_option', `useSseStream: profile must be "planner", "tagged", "ai-sdk" or "ag-ui", got ${got}`);
  }
  return profile as SseProfile;
}

// What decides that a request is another one: a URL by its text, a Request or a function by identity.
function requestKey(request: SseStreamRequest): unknown {
  if (typeof request === 'string') return request;
  if (typeof URL === 'function' && request instanceof URL) return request.href;
  return request;
}

const messageOf = (err: unknown): string =>
  typeof (err as { message?: unknown })?.message === 'string' ? (err as { message: string }).message : String(err);

// A failure connectSse must not retry: it ends the run with this code.
const final = (code: string, message: string) => Object.assign(new StreamrouteError(code, message), { final: true });

// The fetch of one connection of a run (`headers`: connectSse's, with `Last-Event-ID` when it
// resumes). A Request is cloned (its body can be read once; a resume or restart reads it again)
// and keeps following its own signal. The first connection failing, or any answering non-2xx,
// ends the run; a later one failing is connectSse's to retry.
function opener(request: SseStreamRequest) {
  let first = true;
  return async (_url: string | URL, init: RequestInit): Promise<Response> => {
    const signal = init.signal!;
    const headers = new Headers(init.headers);
    const was = first;
    first = false;
    let response: Response;
    try {
      if (typeof request === 'function') response = await request(signal, headers.get('last-event-id') ?? undefined);
      else if (typeof request === 'string' || !('clone' in request)) response = await fetch(request, { signal, headers });
      else {
        const both = typeof AbortSignal.any === 'function' ? AbortSignal.any([request.signal, signal]) : signal;
        response = await fetch(request.clone(), { signal: both, headers: merged(request.headers, headers) });
      }
    } catch (err) {
      if (was && !signal.aborted) throw final('network', messageOf(err));
      throw err;
    }
    if (!response.ok || !response.body) {
      response.body?.cancel().catch(() => {});
      if (!response.ok) throw final('http_error', `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
      throw final('network', 'the response has no body');
    }
    return response;
  };
}

/** A Request's own headers with `extra` (connectSse's `accept` and `last-event-id`) over them. */
function merged(own: Headers, extra: Headers): Headers {
  const out = new Headers(own);
  extra.forEach((value, key) => out.set(key, value));
  return out;
}

// Reads `request` with `connectSse({ profile })` into `state` (a drop mid-stream is resumed with
// `Last-Event-ID`), until the stream ends or `signal` aborts. Failures are folded as errors (a
// StreamrouteError, e.g. a cap of the state's, with its own code); an abort folds nothing.
// Never rejects.
async function pump(request: SseStreamRequest, profile: SseProfile, state: StreamState, signal: AbortSignal): Promise<void> {
  const fail = (code: string, message: string) => {
    if (signal.aborted) return;
    try {
      state.apply({ type: 'error', code, message } as WireEvent);
    } catch {
      // A state that refuses even the error keeps what it has.
    }
  };
  // What connectSse names in its messages (the opener fetches `request` itself).
  const url: string | URL =
    typeof request === 'function' ? 'about:blank' : typeof request === 'string' || !('clone' in request) ? request : request.url;
  try {
    for await (const event of connectSse(url, { signal }, { profile, fetch: opener(request) as typeof fetch })) {
      if (signal.aborted) break;
      state.apply(event);
    }
    // A body cut short (no `done`, no error) would otherwise look like a stream still going.
    if (!state.ended && state.snapshot().status !== 'error') fail('network', 'the stream ended before its done event');
  } catch (err) {
    fail(err instanceof StreamrouteError ? err.code : 'network', messageOf(err));
  }
}

interface Run {
  readonly deps: readonly unknown[];
  readonly state: StreamState;
  readonly abort: AbortController;
}

const sameDeps = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

/**
 * Fetches `request`, reads the body with `connectSse({ profile })` into a fresh `StreamState`
 * and renders its snapshot. A connection that drops mid-stream is resumed with
 * `Last-Event-ID` (a server whose stream is an `SseLog` resumes it with nothing lost or
 * repeated; a function request gets the id as its second argument). The fetch is aborted on unmount and when `request` changes (a URL by
 * its text, a `Request` or a function by identity: wrap a function in `useCallback`), or when
 * `profile` or `maxBytes` change. A non-2xx response is folded as an `error` with code
 * `http_error`, a failed fetch or read (or a body that ends before `done`) as `network`.
 * `stop()` aborts and keeps the snapshot; `restart()` starts over with a fresh state. A stream
 * that is left has its state freed (`state.free()`). `profile` is required: without one of
 * `"planner"`, `"tagged"`, `"ai-sdk"` the hook throws `StreamrouteError` `invalid_option`.
 */
export function useSseStream(request: SseStreamRequest, options: UseSseStreamOptions): SseStream {
  const profile = profileOf(options);
  const maxBytes = options.maxBytes;
  const [generation, setGeneration] = useState(0);
  const deps = [requestKey(request), profile, maxBytes, generation];
  // Shown until the first run starts, and between a change of `request` and its new run.
  const [idle] = useState(() => new StreamState());
  const [run, setRun] = useState<Run | null>(null);
  const active = useRef<Run | null>(null);

  useEffect(() => {
    const state = maxBytes === undefined ? new StreamState() : new StreamState({ maxBytes });
    const next: Run = { deps, state, abort: new AbortController() };
    active.current = next;
    setRun(next);
    void pump(request, profile, state, next.abort.signal);
    return () => {
      next.abort.abort();
      state.free();
      if (active.current === next) active.current = null;
    };
    // `deps` is what these name (`request` by its key: a new URL object with the same text is
    // the same request).
    // biome-ignore lint/correctness/useExhaustiveDependencies: `deps` names what the effect reads
  }, deps);

  const current = run !== null && sameDeps(run.deps, deps) ? run.state : idle;
  const snapshot = useStreamState(current, { throttleMs: options.throttleMs });
  const stop = useCallback(() => {
    const r = active.current;
    if (r === null) return;
    r.abort.abort();
    r.state.free();
  }, []);
  const restart = useCallback(() => setGeneration((g) => g + 1), []);
  return useMemo(() => ({ snapshot, stop, restart }), [snapshot, stop, restart]);
}
