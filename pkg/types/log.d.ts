// Public types of SseLog, its stores and its Durable Object class ('streamroute' and 'streamroute/sse').

/** One stored frame: its id, its SSE text (with its `id:` line) and that text's UTF-8 length. */
export interface SseLogFrame {
  readonly id: number;
  readonly text: string;
  readonly bytes: number;
}

/** How a stream ended: `{ code: "finished" }`, or stopped (`stream_stopped` and the reason, or another code). */
export interface SseLogEnd {
  readonly code: string;
  readonly message: string;
}

/** What `SseStore.read` answers. */
export interface SseStoreRead {
  /** False for a stream never written, or expired. */
  readonly exists: boolean;
  /** Frames after the id asked for, in order, consecutive. */
  readonly frames: readonly SseLogFrame[];
  /** The oldest id still kept (`lastId + 1` when none is). */
  readonly firstId: number;
  readonly lastId: number;
  /** What the stream keeps, as counted against `maxBytes` (frame text in UTF-8 bytes + 64 per frame). */
  readonly bytes: number;
  /** `null` while the stream is live. */
  readonly end: SseLogEnd | null;
}

/** The limits of one stream, as its SseLog passes them to the store. */
export interface SseStoreLimits {
  readonly maxBytes: number;
  readonly ttlMs: number;
}

/**
 * Where SseLog keeps streams: append, read from an id, finish, and wait for what comes next.
 * A stream expires `ttlMs` after its end (or its last append) and then reads as absent.
 */
export interface SseStore {
  /**
   * Appends frames (ids following the stream's last) and sets its expiry; past `maxBytes` the
   * oldest frames go. `create`: start the stream (afresh, if one of that id ended). Appending
   * to a stream that ended, or is not there without `create`, throws `invalid_state`.
   */
  append(streamId: string, frames: readonly SseLogFrame[], limits: SseStoreLimits, create?: boolean): void | Promise<void>;
  /** The frames after `afterId`, about `maxBytes` of them (at least one when there is one; none for 0), and the stream's state. */
  read(streamId: string, afterId: number, maxBytes: number): SseStoreRead | Promise<SseStoreRead>;
  /** Ends a live stream: finished (`stop` null) or stopped; it expires `ttlMs` later. */
  finish(streamId: string, stop: SseLogEnd | null, ttlMs: number): void | Promise<void>;
  /** Resolves once the stream has a frame after `afterId`, has ended or is gone, or `signal` aborts. */
  wait(streamId: string, afterId: number, signal?: AbortSignal): Promise<void>;
}

/** Options of `new SseLog(store, options)`. */
export interface SseLogOptions {
  /** The stream's name in the store (1 to 512 characters). */
  streamId: string;
  /** What the store keeps of the stream (default 16 MiB = 16777216; frame text in UTF-8 bytes + 64 per frame). */
  maxBytes?: number;
  /** How long the stream stays readable after it ended, or after its last frame (default 600000 ms). */
  ttlMs?: number;
  /** The most data bytes of one frame written (default 8 MiB). */
  maxEventBytes?: number;
}

/** Options of `log.readable(lastEventId, options)`. */
export interface SseLogReadableOptions {
  /** A `: ping` comment after this long without a frame (default 15000 ms; 0: none). */
  heartbeatMs?: number;
  /** Ends the reader. */
  signal?: AbortSignal;
}

/** Where a stream stands (`log.status()`). */
export interface SseLogStatus {
  readonly state: 'unknown' | 'live' | 'finished' | 'stopped';
  readonly lastId: number;
  readonly firstId: number;
  readonly bytes: number;
}

/**
 * A resumable event stream: between `toSse(...)` and the responses. Frames written to
 * `writable` get ids 1, 2, 3, ... and are stored; `readable(lastEventId)` serves the stored
 * frames after that id, then the live ones, so a reader that reconnects with `Last-Event-ID`
 * loses and repeats nothing.
 */
export declare class SseLog {
  constructor(store: SseStore, options: SseLogOptions);
  readonly streamId: string;
  /**
   * What `toSse` writes goes here (bytes or text, cut anywhere): closing finishes the stream,
   * aborting stops it; a write after a stop fails (a pipe into it cancels its source). One per log.
   */
  readonly writable: WritableStream<Uint8Array | string>;
  /**
   * A reader from after `lastEventId` (a request's `Last-Event-ID`; none: from the first
   * frame): stored frames, then live ones; closes when the stream ends, after a final
   * `stopped` frame (`event: stopped`, data `{ code, message }`) for a stopped stream, an
   * unknown one (`stream_unknown`) or frames no longer kept (`buffer_limit_exceeded`).
   */
  readable(lastEventId?: string | null, options?: SseLogReadableOptions): ReadableStream<Uint8Array>;
  /** Stops the stream on purpose: every reader ends with a `stopped` frame `{ code: "stream_stopped", message: reason }`. */
  stop(reason?: string): Promise<void>;
  status(): Promise<SseLogStatus>;
}

/** Options of `new MemorySseStore(options)`. */
export interface MemorySseStoreOptions {
  /** Streams kept at once (default 10,000); a new one past it is `buffer_limit_exceeded`. */
  maxStreams?: number;
}

/** An `SseStore` in memory, for one process. */
export declare class MemorySseStore implements SseStore {
  constructor(options?: MemorySseStoreOptions);
  append(streamId: string, frames: readonly SseLogFrame[], limits: SseStoreLimits, create?: boolean): void;
  read(streamId: string, afterId: number, maxBytes: number): SseStoreRead;
  finish(streamId: string, stop: SseLogEnd | null, ttlMs: number): void;
  wait(streamId: string, afterId: number, signal?: AbortSignal): Promise<void>;
}

/** The part of a Durable Object's storage (`ctx.storage`) the store uses. */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(key: string, value: unknown): Promise<void>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string | string[]): Promise<unknown>;
  list(options?: { prefix?: string; start?: string; limit?: number }): Promise<Map<string, unknown>>;
  getAlarm?(): Promise<number | null>;
  setAlarm?(at: number): Promise<void>;
}

/** An `SseStore` in a Durable Object's storage; its readers wait in the object. */
export declare class DurableObjectSseStore implements SseStore {
  constructor(storage: DurableObjectStorageLike);
  append(streamId: string, frames: readonly SseLogFrame[], limits: SseStoreLimits, create?: boolean): Promise<void>;
  read(streamId: string, afterId: number, maxBytes: number): Promise<SseStoreRead>;
  finish(streamId: string, stop: SseLogEnd | null, ttlMs: number): Promise<void>;
  wait(streamId: string, afterId: number, signal?: AbortSignal): Promise<void>;
  /** Deletes the streams past their TTL and sets the alarm for the next. */
  sweep(): Promise<void>;
}

/**
 * The Durable Object class of SseLog (export it from the worker and bind it). Over HTTP, per
 * `?stream=<id>`: `POST` logs the body (what `toSse` writes; `&maxBytes=`, `&ttlMs=`) and
 * answers 204 when it has ended; `GET` is a reader (`Last-Event-ID` resumes), `GET &status` the
 * stream's `SseLogStatus` as JSON; `DELETE
 * &reason=` stops the stream. Its alarm deletes streams past their TTL.
 */
export declare class SseLogDurableObject {
  constructor(ctx: { storage: DurableObjectStorageLike }, env?: unknown);
  fetch(request: Request): Promise<Response>;
  alarm(): Promise<void>;
}
