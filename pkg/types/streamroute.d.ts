// Public types of the main entry, `streamroute`. Data types and classes come from the
// generated declarations of its build (tsify + wasm-bindgen); this file adds what the entry
// defines by hand. What every entry shares (StreamrouteError, init) is in common.d.ts.
export * from '../dist/streamroute/streamroute.js';
export * from './common.js';
export * from './log.js';

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
export declare function routeResponse(response: Response, options?: RouteResponseOptions): RoutedEvents;

/** What `routeResponse` gives: an async iterator of the events that also pipes into a transform. */
export interface RoutedEvents extends AsyncGenerator<RoutedEvent, void, undefined> {
  /**
   * The events through `transform` (e.g. `toSse(profile)`), as a ReadableStream; cancelling
   * it stops the routing and the provider's body.
   */
  pipeThrough<T>(transform: { writable: WritableStream<RoutedEvent>; readable: ReadableStream<T> }, options?: { preventClose?: boolean; preventAbort?: boolean; preventCancel?: boolean; signal?: AbortSignal }): ReadableStream<T>;
}

/** The wire vocabularies of `toSse`. */
export type SseProfile = 'planner' | 'tagged' | 'ai-sdk' | 'ag-ui';

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
  /** ag-ui: the run's `threadId` and `runId` (RUN_STARTED, RUN_FINISHED; a random UUID each when absent). */
  threadId?: string;
  runId?: string;
  /** ag-ui: the `parentRunId` of RUN_STARTED. */
  parentRunId?: string;
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
 * Encodes events as `text/event-stream` bytes in one of four vocabularies, with `id:` on
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

/**
 * What `fromSse` gives: routed events (carrying the frame's `trace_id`, `session_id`,
 * `message_id`, `action_seq` when it has them; with `"ag-ui"`, the run's `thread_id`, `run_id`
 * and `parent_run_id`), artifact chunks and a `done` with the payload.
 */
export type WireEvent = (SseInputEvent
  | { type: 'tool_result' | 'source' | 'refusal_delta' | 'continuation' | 'compaction' | 'model_fallback' | 'container'; [field: string]: unknown }) & {
  trace_id?: string;
  session_id?: string;
  message_id?: string;
  action_seq?: number;
  thread_id?: string;
  run_id?: string;
  parent_run_id?: string;
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
  /**
   * The part of `partialArguments` whose values have ended: closed strings, numbers followed by
   * a delimiter, `true`/`false`/`null`, and every object or array (an open one with only its
   * complete members). A complete value never changes afterwards. After `tool_call`, the final
   * `arguments` when they parsed (are not `null`). `undefined` before the arguments begin.
   */
  readonly completeArguments: unknown;
  /** The final arguments (`tool_call`), `undefined` until then. */
  readonly arguments: unknown;
  readonly providerExecuted: boolean;
  /** Who called the tool, as the provider says (`tool_call_start`/`tool_call` `caller`); absent when it said nothing. */
  readonly caller?: unknown;
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

/** A source in a snapshot: a `source` event's members (or its `source`), or one of the payload's. */
export interface Source {
  readonly id?: string | null;
  readonly url?: string | null;
  readonly title?: string | null;
  readonly snippet?: string | null;
  readonly [key: string]: unknown;
}

/** Options of `new StreamState(options)`. */
export interface StreamStateOptions {
  /**
   * The most bytes the state keeps (default 64 MiB): text at 2 bytes a UTF-16 unit, JSON
   * values at about 2 bytes a character of their JSON text, records and gap ranges at a fixed
   * cost. Past it one `buffer_limit_exceeded` error is folded and further growth is dropped.
   */
  maxBytes?: number;
  /** Hears what a listener threw (default: thrown again from a microtask). */
  onListenerError?: (error: unknown) => void;
}

/** Options of `subscribe(listener, options)`. */
export interface SubscribeOptions {
  /**
   * Call the listener at most once per this many milliseconds (default 0: after every change);
   * the last change is always heard, `done` and errors at once.
   */
  throttleMs?: number;
}

/** Options of `new StreamMux(options)`. */
export interface StreamMuxOptions {
  key: 'session_id' | 'trace_id' | 'action_seq' | 'stream_id' | 'run_id' | 'thread_id' | ((event: StreamStateEvent) => unknown);
  /** The most streams at once (default 10,000); events of a new stream past it are dropped. */
  maxStreams?: number;
  /** Release a stream once its `ended` change has been heard (default false). */
  releaseEnded?: boolean;
  /** `maxBytes` of each stream's `StreamState`. */
  maxBytes?: number;
  /** Hears what a listener (of the mux or of one of its streams) threw. */
  onListenerError?: (error: unknown) => void;
  /** The default `throttleMs` of `subscribe`. */
  throttle?: number;
}

/** An immutable snapshot of a stream (`StreamState.snapshot()`). */
export interface StreamSnapshot {
  /** `"error"` once an error arrived or `done.ok` was false. */
  readonly status: 'streaming' | 'done' | 'error';
  /** Text of `answer_delta` events, but those whose `phase` is `"commentary"`. */
  readonly answer: string;
  /** Text of `answer_delta` events whose `phase` is `"commentary"` (what the model says between tool calls). */
  readonly commentary: string;
  readonly thinking: { readonly reasoning: string; readonly thought: string };
  readonly artifactText: string;
  readonly userText: string;
  /** Text of `refusal_delta` events. */
  readonly refusal: string;
  readonly toolCalls: readonly ToolCallSnapshot[];
  readonly action: import('../dist/streamroute/streamroute.js').PlannerAction | null;
  readonly artifacts: { readonly [streamId: string]: ArtifactSnapshot };
  /** Sources of `source` events and of the final payload, without repeats. */
  readonly sources: readonly Source[];
  /** The last `usage` event's members (without `type` and the wire fields). */
  readonly usage: {
    readonly input_tokens?: number | null;
    readonly output_tokens?: number | null;
    readonly total_tokens?: number | null;
    readonly reasoning_tokens?: number | null;
    readonly cached_input_tokens?: number | null;
    readonly [key: string]: unknown;
  } | null;
  readonly payload: FinalPayload | null;
  /** `done.finish` when the wire has it, else `done.finish_reason`. */
  readonly finish: string | null;
  readonly errors: readonly { readonly code: string; readonly message: string }[];
  /** Text of `compaction` events (context compaction: not answer text). */
  readonly compaction: string;
  /** Every `continuation` event, in order, as received: what the next request sends back unmodified. */
  readonly continuations: readonly ContinuationSnapshot[];
  /** The last `model_fallback` event's models. */
  readonly modelFallback: { readonly from: unknown; readonly to: unknown } | null;
  /** The last `container` event's members (without `type` and the wire fields): Anthropic `{id, expires_at}`. */
  readonly container: { readonly id?: string; readonly expires_at?: string; readonly [key: string]: unknown } | null;
  /** `done.stop_details` (Anthropic's details of why it stopped), `null` until then or when absent. */
  readonly stopDetails: unknown;
  /** `done.finish_message` (Gemini's message about the finish), `null` until then or when absent. */
  readonly finishMessage: string | null;
}

/** A `continuation` event in a snapshot: its `kind` and the provider's own fields, as received. */
export interface ContinuationSnapshot {
  readonly type: 'continuation';
  /** `thinking_signature`, `redacted_thinking`, `reasoning`, `compaction`, `thought_signature`, `item`, ... */
  readonly kind: string;
  readonly [field: string]: unknown;
}

/**
 * What `StreamState.apply` and `StreamMux.apply` take: the events `fromSse` reads and the
 * router writes, and those a user builds by hand (an `error` without `provider_code`).
 */
export type StreamStateEvent =
  | WireEvent
  | RoutedEvent
  | { type: 'error'; code: string; message: string; provider_code?: string | null };

/** Folds events into immutable snapshots; `snapshot` and `subscribe` are bound (`useSyncExternalStore(state.subscribe, state.snapshot)`). */
export declare class StreamState {
  constructor(options?: StreamStateOptions);
  /**
   * Folds one event or several; listeners hear once per call that changed something. A batch
   * with an element that is not an event of JSON data is refused whole (`invalid_input`).
   */
  apply(events: StreamStateEvent | readonly StreamStateEvent[]): void;
  /** The current snapshot: the same object until something changes. */
  snapshot(): StreamSnapshot;
  subscribe(listener: () => void, options?: SubscribeOptions): () => void;
  /** Frees the wasm argument parsers of tool calls still streaming (`done` frees them too). */
  free(): void;
  /** Whether a `done` arrived. */
  readonly ended: boolean;
  /** The bytes the state keeps, as counted against `maxBytes`. */
  readonly bytes: number;
}

/** What `StreamMux.subscribe` listeners hear. */
export interface StreamMuxChange {
  readonly type: 'added' | 'ended';
  readonly key: unknown;
  readonly state: StreamState;
}

/** Splits a connection that carries several streams into one `StreamState` per stream. */
export declare class StreamMux {
  constructor(options: StreamMuxOptions);
  /** Routes events; a batch with a bad element, or whose key function throws, is refused whole (`invalid_input`). */
  apply(events: StreamStateEvent | readonly StreamStateEvent[]): void;
  get(key: unknown): StreamState | undefined;
  /** Stream keys in order of arrival (the same array until one is added or released). */
  keys(): readonly unknown[];
  /** Whether a stream has ended (done, failed, or all its artifacts complete). */
  ended(key: unknown): boolean;
  /** Releases a stream (frees its parsers, forgets it); whether it was there. */
  delete(key: unknown): boolean;
  /** The mux's own errors (`buffer_limit_exceeded` past `maxStreams`). */
  errors(): readonly { readonly code: string; readonly message: string }[];
  subscribe(listener: (change: StreamMuxChange) => void, options?: SubscribeOptions): () => void;
  /** Frees every stream's wasm argument parsers. */
  free(): void;
}

/** The providers `assistantTurn` writes for. */
export type TurnProvider = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock' | 'ollama';

/** What `assistantTurn` reads: the events of one response, as the router or `fromSse` gives them. */
export type TurnEvent = RoutedEvent | WireEvent | { type: string; [field: string]: unknown };

/** A tool call's caller, as the provider named it. */
type TurnCaller = { caller?: unknown };

/** OpenAI Chat Completions: the assistant message (`ChatCompletionAssistantMessageParam`). */
export type OpenAiChatTurnMessage = {
  role: 'assistant';
  /** `null` when there is no text and there are tool calls (or a refusal). */
  content: string | null;
  refusal?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
};

/** OpenAI Responses: input items (`ResponseInputItem`). */
export type OpenAiResponsesTurnItem =
  | { type: 'reasoning'; id?: string; encrypted_content?: string | null; summary?: unknown[]; [field: string]: unknown }
  | { type: 'compaction'; id?: string; encrypted_content?: string; [field: string]: unknown }
  | { type: 'message'; role: 'assistant'; content: string; phase?: string }
  | {
      type: 'message';
      id: string;
      role: 'assistant';
      status: 'completed';
      content: { type: 'output_text'; text: string; annotations: [] }[];
      phase?: string;
    }
  | ({ type: 'function_call'; call_id: string; name: string; arguments: string; id?: string } & TurnCaller);

/** Anthropic Messages: a content block of the assistant message (`ContentBlockParam`). */
export type AnthropicTurnBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'compaction'; content?: string; [field: string]: unknown }
  | ({ type: 'tool_use' | 'server_tool_use'; id: string; name: string; input: unknown } & TurnCaller)
  | { type: `${string}_tool_result`; tool_use_id: string; content: unknown };

/** Anthropic Messages: the assistant message (`MessageParam`). */
export type AnthropicTurnMessage = { role: 'assistant'; content: AnthropicTurnBlock[] };

/** Gemini: a part of the model's content (`Part`). */
export type GeminiTurnPart =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { functionCall: { name: string; args: unknown; id?: string }; thoughtSignature?: string };

/** Gemini: the model's content (`Content`). */
export type GeminiTurnContent = { role: 'model'; parts: GeminiTurnPart[] };

/** Bedrock Converse: a content block of the assistant message (`ContentBlock`; `redactedContent` as sent, base64). */
export type BedrockTurnBlock =
  | { text: string }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } | { redactedContent: unknown } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } };

/** Bedrock Converse: the assistant message (`Message`). */
export type BedrockTurnMessage = { role: 'assistant'; content: BedrockTurnBlock[] };

/** Ollama `/api/chat`: the assistant message. */
export type OllamaTurnMessage = {
  role: 'assistant';
  content: string;
  thinking?: string;
  /** `id`: the provider's, where it sent one. */
  tool_calls?: { id?: string; function: { name: string; arguments: unknown } }[];
};

/**
 * The assistant message(s) of one response in `provider`'s request shape, to append to the
 * next request: text, reasoning with its signatures or encrypted content, and the client's
 * tool calls with their ids, in the order they came; `[]` when there is nothing to send back.
 * Throws `invalid_option` (another provider) or `invalid_input` (`events` not an iterable of
 * event objects, or holding what JSON cannot encode).
 */
export declare function assistantTurn(provider: 'openai-chat', events: Iterable<TurnEvent>): OpenAiChatTurnMessage[];
export declare function assistantTurn(provider: 'openai-responses', events: Iterable<TurnEvent>): OpenAiResponsesTurnItem[];
export declare function assistantTurn(provider: 'anthropic', events: Iterable<TurnEvent>): AnthropicTurnMessage[];
export declare function assistantTurn(provider: 'gemini', events: Iterable<TurnEvent>): GeminiTurnContent[];
export declare function assistantTurn(provider: 'bedrock', events: Iterable<TurnEvent>): BedrockTurnMessage[];
export declare function assistantTurn(provider: 'ollama', events: Iterable<TurnEvent>): OllamaTurnMessage[];
export declare function assistantTurn(provider: TurnProvider, events: Iterable<TurnEvent>): object[];
