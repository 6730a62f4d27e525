// Public types of the `streamroute` package. Data types and classes come from the generated
// declarations (tsify + wasm-bindgen); this file adds what the entries define by hand.
export * from './dist/streamroute.js';

/** Every error streamroute throws: a stable `code`, a `message`, and `offset` where known. */
export declare class StreamrouteError extends Error {
  constructor(code: string, message: string, offset?: number);
  readonly name: 'StreamrouteError';
  /** Stable machine-readable code, e.g. `"sse_event_too_large"`. */
  readonly code: string;
  /** Byte offset in the input where the problem was found, when there is one. */
  readonly offset?: number;
  /** Results produced before the failure by the call that threw (e.g. SSE events). */
  readonly events?: unknown[];
  /** Every problem of a `payload_invalid` error, with its path (e.g. `sources[0].title`). */
  readonly problems?: { path: string; message: string }[];
  /** `tag_contract_violation` (`parseTagged`): every violation, byte offsets. */
  readonly violations?: { code: string; offset: number }[];
  /** `TagFilter.feed`: the deltas produced before the failure. */
  readonly deltas?: { type: string; text: string }[];
  /** `requirements_invalid`: every problem with its path (see `reextractionMessage`). */
  readonly errors?: import('./dist/streamroute.js').RequirementIssue[];
}

/**
 * Loads the WebAssembly module. Idempotent: resolves at once where the module is already
 * loaded (Node, workers). In browsers, `input` may say where the `.wasm` comes from.
 */
export declare function init(
  input?: string | URL | Request | Response | BufferSource | WebAssembly.Module,
): Promise<void>;

import type {
  ArtifactChunkEvent, FinalPayload, FinalPayloadDoneEvent, RoutedEvent, SseEvent, StreamRouterInit,
} from './dist/streamroute.js';

declare module './dist/streamroute.js' {
  interface StreamRouter {
    /** A TransformStream that routes the chunks written to it (`feed`, then `finish` at the end). */
    transform(): TransformStream<Uint8Array | string, RoutedEvent>;
  }
}

/** `routeResponse` options: the router's, plus an `AbortSignal`. */
export interface RouteResponseOptions extends StreamRouterInit {
  signal?: AbortSignal;
}

/**
 * Routes a provider's streaming `Response` as it arrives. A non-2xx response yields
 * `error {code: "http_error"}` and `done {ok: false}`; aborting makes the iterator throw the
 * signal's reason.
 */
export declare function routeResponse(response: Response, options?: RouteResponseOptions): AsyncIterable<RoutedEvent>;

/** The wire vocabularies of `toSse`. */
export type SseProfile = 'planner' | 'tagged' | 'ai-sdk';

/** Options of `toSse`. */
export interface ToSseOptions {
  /** The first `id:` (default 1); ids count up by one per frame. */
  firstId?: number;
  /** A `retry:` (ms) sent once, with the first frame. */
  retry?: number;
  /** Idle time (ms) before a heartbeat (default 15000; 0: none). */
  heartbeatMs?: number;
  /** planner: the `action_seq` stamped on chunks (default null). */
  actionSeq?: number | null;
  /** planner: `trace_id` / `session_id` added to every frame. */
  traceId?: string;
  sessionId?: string;
  /** ai-sdk: the `messageId` of the `start` part. */
  messageId?: string;
}

/**
 * What `toSse` accepts: routed events, `ArtifactStream`'s artifact chunks and final `done`, and
 * a routed `done` that carries the final payload.
 */
export type SseInputEvent =
  | Exclude<RoutedEvent, { type: 'done' }>
  | (Extract<RoutedEvent, { type: 'done' }> & { payload?: FinalPayload })
  | ArtifactChunkEvent
  | FinalPayloadDoneEvent;

/**
 * Encodes events as `text/event-stream` bytes in one of three vocabularies, with `id:` on
 * every frame, an optional `retry:` and heartbeats while idle.
 */
export declare function toSse(profile: SseProfile, options?: ToSseOptions): TransformStream<SseInputEvent, Uint8Array>;

/** Options of `connectSse`. */
export interface ConnectSseOptions {
  /** Reconnections in a row before giving up with `sse_connection_failed` (default 3). */
  maxRetries?: number;
  /** Wait before reconnecting when the server sent no `retry:` (default 1000 ms). Any wait,
   * the server's `retry:` too, is clamped to at most one hour (3600000 ms). */
  retryMs?: number;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
}

/**
 * A fetch-based event-stream client (POST bodies, headers, `init.signal`) that reconnects
 * with `Last-Event-ID` after a dropped connection. Yields `SseEvent`s, or with `router`
 * options the `RoutedEvent`s of the stream.
 */
export declare function connectSse(url: string | URL, init?: RequestInit, options?: ConnectSseOptions & { router?: undefined }): AsyncIterable<SseEvent>;
export declare function connectSse(url: string | URL, init: RequestInit | undefined, options: ConnectSseOptions & { router: StreamRouterInit }): AsyncIterable<RoutedEvent>;
