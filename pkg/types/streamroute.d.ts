// Public types of the main entry, `streamroute`. Data types and classes come from the
// generated declarations of its build (tsify + wasm-bindgen); this file adds what the entry
// defines by hand. What every entry shares (StreamrouteError, init) is in common.d.ts.
export * from '../dist/streamroute/streamroute.js';
export * from './common.js';

import type { RoutedEvent, SseEvent, StreamRouterInit } from '../dist/streamroute/streamroute.js';
// The artifact and payload types `toSse` and the snapshots carry ('streamroute/payload').
import type { ArtifactChunkEvent, FinalPayload, FinalPayloadDoneEvent } from './payload.js';

declare module '../dist/streamroute/streamroute.js' {
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
  /** Read the stream as `fromSse(profile)` does and yield its events. */
  profile?: SseProfile;
  /** Reconnections in a row before giving up with `sse_connection_failed` (default 3). */
  maxRetries?: number;
  /** Wait before reconnecting when the server sent no `retry:` (default 1000 ms). Any wait,
   * the server's `retry:` too, is clamped to at most one hour (3600000 ms). */
  retryMs?: number;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /**
   * The most data bytes of one event (default 8 MiB); an event up to it is read whole, whatever
   * its line length. Over it: with `profile`, one `error {code: "wire_invalid"}` and the frame
   * is skipped through its blank line (as `fromSse`); without, the iterator throws
   * `sse_event_too_large`.
   */
  maxEventBytes?: number;
}

/**
 * A fetch-based event-stream client (POST bodies, headers, `init.signal`) that reconnects
 * with `Last-Event-ID` after a dropped connection. Yields `SseEvent`s, or with `router`
 * options the `RoutedEvent`s of the stream.
 */
export declare function connectSse(url: string | URL, init?: RequestInit, options?: ConnectSseOptions & { router?: undefined; profile?: undefined }): AsyncIterable<SseEvent>;
export declare function connectSse(url: string | URL, init: RequestInit | undefined, options: ConnectSseOptions & { router: StreamRouterInit }): AsyncIterable<RoutedEvent>;

/** What `fromSse` gives: routed events (carrying the frame's `trace_id`, `session_id`, `message_id`, `action_seq` when it has them), artifact chunks and a `done` with the payload. */
export type WireEvent = (SseInputEvent | { type: 'tool_result' | 'source' | 'refusal_delta'; [field: string]: unknown }) & {
  trace_id?: string;
  session_id?: string;
  message_id?: string;
  action_seq?: number;
};

/** Options of `fromSse`. */
export interface FromSseOptions {
  /**
   * The most data bytes of one frame (default 8 MiB). A frame up to it is read whole, whatever
   * its line length; a longer one is one `error {code: "wire_invalid"}` and is skipped through
   * its terminating blank line (nothing of it is read as a frame).
   */
  maxEventBytes?: number;
}

/**
 * Reads what `toSse(profile)` writes (or a server writes by hand in the same vocabulary) back
 * into events. A frame it cannot read is an `error {code: "wire_invalid"}`; reading goes on.
 * A wire with none of the profile's vocabulary in its first 16 frames (or in all of them, if
 * fewer) is one `wire_invalid` naming the profile it looks like, then `done {ok: false}`, and
 * nothing more.
 */
export declare function fromSse(profile: SseProfile, options?: FromSseOptions): TransformStream<Uint8Array | string, WireEvent>;

export declare function connectSse(url: string | URL, init: RequestInit | undefined, options: ConnectSseOptions & { profile: SseProfile; router?: undefined }): AsyncIterable<WireEvent>;

/** One tool call in a snapshot. */
export interface ToolCallSnapshot {
  readonly index: number;
  readonly id: string | null;
  readonly name: string | null;
  /** The raw argument text so far. */
  readonly argumentsText: string;
  /** The arguments parsed so far (`PartialJson`): members only ever added, strings only grown. */
  readonly partialArguments: unknown;
  /** The final arguments (`tool_call`), `undefined` until then. */
  readonly arguments: unknown;
  readonly providerExecuted: boolean;
  /** The tool's result (`tool_result`), `undefined` until then. */
  readonly result: unknown;
  readonly state: 'input-streaming' | 'input-available' | 'output-available' | 'output-error';
}

/** One artifact stream in a snapshot: chunks in `seq` order, missing numbers in `gaps`. */
export interface ArtifactSnapshot {
  readonly chunks: readonly unknown[];
  /** The highest `seq` received (-1 before any). */
  readonly seq: number;
  /** The chunk marked `done` arrived. */
  readonly done: boolean;
  readonly artifact_type: string | null;
  readonly gaps: readonly number[];
}

/** An immutable snapshot of a stream (`StreamState.snapshot()`). */
export interface StreamSnapshot {
  /** `"error"` once an error arrived or `done.ok` was false. */
  readonly status: 'streaming' | 'done' | 'error';
  readonly answer: string;
  readonly thinking: { readonly reasoning: string; readonly thought: string };
  readonly artifactText: string;
  readonly userText: string;
  /** Text of `refusal_delta` events. */
  readonly refusal: string;
  readonly toolCalls: readonly ToolCallSnapshot[];
  readonly action: import('../dist/streamroute/streamroute.js').PlannerAction | null;
  readonly artifacts: { readonly [streamId: string]: ArtifactSnapshot };
  /** Sources of `source` events and of the final payload, without repeats. */
  readonly sources: readonly unknown[];
  readonly usage: Readonly<Record<string, number | null | undefined>> | null;
  readonly payload: FinalPayload | null;
  /** `done.finish` when the wire has it, else `done.finish_reason`. */
  readonly finish: string | null;
  readonly errors: readonly { readonly code: string; readonly message: string }[];
}

/** Folds events into immutable snapshots; `snapshot` and `subscribe` are bound (`useSyncExternalStore(state.subscribe, state.snapshot)`). */
export declare class StreamState {
  constructor();
  /** Folds one event or several; listeners hear once per call that changed something. */
  apply(events: WireEvent | RoutedEvent | readonly (WireEvent | RoutedEvent)[]): void;
  /** The current snapshot: the same object until something changes. */
  snapshot(): StreamSnapshot;
  subscribe(listener: () => void): () => void;
  /** Frees the wasm argument parsers of tool calls still streaming (`done` frees them too). */
  free(): void;
  /** Whether a `done` arrived. */
  readonly ended: boolean;
}

/** What `StreamMux.subscribe` listeners hear. */
export interface StreamMuxChange {
  type: 'added' | 'ended';
  key: unknown;
  state: StreamState;
}

/** Splits a connection that carries several streams into one `StreamState` per stream. */
export declare class StreamMux {
  constructor(options: { key: 'session_id' | 'trace_id' | 'action_seq' | 'stream_id' | ((event: WireEvent) => unknown) });
  apply(events: WireEvent | readonly WireEvent[]): void;
  get(key: unknown): StreamState | undefined;
  /** Stream keys in order of arrival (the same array until one is added). */
  keys(): readonly unknown[];
  /** Whether a stream has ended (done, failed, or all its artifacts complete). */
  ended(key: unknown): boolean;
  subscribe(listener: (change: StreamMuxChange) => void): () => void;
  /** Frees every stream's wasm argument parsers. */
  free(): void;
}
