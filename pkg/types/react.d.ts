// Public types of 'streamroute/react': React hooks over 'streamroute/client' (`react` is an
// optional peer dependency; these declarations do not need `@types/react`).
import type { SseProfile, StreamSnapshot, StreamState } from './client.js';

/** Options of `useStreamState`. */
export interface UseStreamStateOptions {
  /** Re-render at most once per this many milliseconds (passed to `state.subscribe`). */
  throttleMs?: number;
}

/**
 * The snapshot of `state`, re-rendering when it changes (at most once per `throttleMs` when
 * given): `useSyncExternalStore` over `state.subscribe` and `state.snapshot`.
 */
export declare function useStreamState(state: StreamState, options?: UseStreamStateOptions): StreamSnapshot;

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

/**
 * Fetches `request`, reads the body with `connectSse({ profile })` into a fresh `StreamState`
 * and renders its snapshot; a connection that drops mid-stream is resumed with `Last-Event-ID`
 * (an `SseLog` on the server resumes it with nothing lost or repeated). Aborts on unmount and when `request` changes (a URL by its text, a
 * `Request` or a function by identity), or `profile` or `maxBytes`. A non-2xx response folds
 * `error {code: "http_error"}`, a failed fetch or read (or a body that ends before `done`)
 * `error {code: "network"}`.
 */
export declare function useSseStream(request: SseStreamRequest, options: UseSseStreamOptions): SseStream;
