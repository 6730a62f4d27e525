// streamroute/react: React hooks over the client entry. `useStreamState` renders a StreamState;
// `useSseStream` fetches an event stream, reads it with `fromSse(profile)` into a StreamState
// of its own and renders that. `react` and `streamroute/client` stay imports (scripts/build
// leaves both external): the page's one React, and the client entry's one wasm instance.
// Nothing here runs at import time, so the entry loads wherever React does (browsers, Node
// for server rendering, workers).
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { StreamState, StreamrouteError, fromSse } from 'streamroute/client';
import type { SseProfile, StreamSnapshot, WireEvent } from 'streamroute/client';

/** Options of `useStreamState`. */
export interface UseStreamStateOptions {
  /** Re-render at most once per this many milliseconds (passed to `state.subscribe`). */
  throttleMs?: number;
}

/** What `useSseStream` fetches: a URL, a `Request`, or a function that fetches with the signal. */
export type SseStreamRequest = string | URL | Request | ((signal: AbortSignal) => Promise<Response>);

/** Options of `useSseStream`. */
export interface UseSseStreamOptions extends UseStreamStateOptions {
  /** The wire vocabulary the server writes (`toSse(profile)`); required. */
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

const PROFILES: readonly string[] = ['planner', 'tagged', 'ai-sdk'];

function profileOf(options: UseSseStreamOptions | undefined): SseProfile {
  const profile: unknown = options?.profile;
  if (typeof profile !== 'string' || !PROFILES.includes(profile)) {
    const got = typeof profile === 'string' ? JSON.stringify(profile) : `a ${typeof profile}`;
    throw new StreamrouteError('invalid_option', `useSseStream: profile must be "planner", "tagged" or "ai-sdk", got ${got}`);
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
  (typeof (err as { message?: unknown })?.message === 'string' ? (err as { message: string }).message : String(err));

// The fetch of one run: a Request is cloned (its body can be read once; restart reads it again)
// and keeps following its own signal.
function open(request: SseStreamRequest, signal: AbortSignal): Promise<Response> {
  if (typeof request === 'function') return request(signal);
  if (typeof request === 'string' || !('clone' in request)) return fetch(request, { signal });
  const both = typeof AbortSignal.any === 'function' ? AbortSignal.any([request.signal, signal]) : signal;
  return fetch(request.clone(), { signal: both });
}

// Fetches `request` and folds what `fromSse(profile)` reads into `state`, until the body ends
// or `signal` aborts. Failures are folded as errors (a StreamrouteError, e.g. a cap of the
// state's, with its own code); an abort folds nothing. Never rejects.
async function pump(request: SseStreamRequest, profile: SseProfile, state: StreamState, signal: AbortSignal): Promise<void> {
  const fail = (code: string, message: string) => {
    if (signal.aborted) return;
    try {
      state.apply({ type: 'error', code, message } as WireEvent);
    } catch {
      // A state that refuses even the error keeps what it has.
    }
  };
  let response: Response;
  try {
    response = await open(request, signal);
  } catch (err) {
    return fail('network', messageOf(err));
  }
  if (!response.ok || !response.body) {
    response.body?.cancel().catch(() => {});
    if (!response.ok) return fail('http_error', `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    return fail('network', 'the response has no body');
  }
  const reader = response.body.pipeThrough(fromSse(profile)).getReader();
  const stop = () => {
    reader.cancel().catch(() => {});
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      state.apply(value);
    }
    // A body cut short (no `done`, no error) would otherwise look like a stream still going.
    if (!state.ended && state.snapshot().status !== 'error') fail('network', 'the stream ended before its done event');
  } catch (err) {
    reader.cancel().catch(() => {});
    fail(err instanceof StreamrouteError ? err.code : 'network', messageOf(err));
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

interface Run {
  readonly deps: readonly unknown[];
  readonly state: StreamState;
  readonly abort: AbortController;
}

const sameDeps = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

/**
 * Fetches `request`, reads the body with `fromSse(profile)` into a fresh `StreamState` and
 * renders its snapshot. The fetch is aborted on unmount and when `request` changes (a URL by
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
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
