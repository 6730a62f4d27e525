// StreamMux: one connection, several streams.
//
// Invariants: a batch is copied and keyed whole before any stream changes (all or nothing);
// streams live in one Map in order of arrival, so adding, ending and releasing a stream touch
// only that stream; `keys()` is a frozen copy rebuilt only after the set of streams changed.
import { requireInit } from '../handled.js';
import { StreamrouteError } from '../runtime.js';
import {
  type CleanEvent,
  ENDED,
  FOLD,
  StreamState,
  Throttle,
  copyEvents,
  listenerErrorOption,
  positiveInteger,
  readOptions,
  reporter,
  throttleOption,
  work,
} from './state.js';

const KEY_FIELDS = ['session_id', 'trace_id', 'action_seq', 'stream_id', 'run_id', 'thread_id'];
const OPTIONS = ['key', 'maxStreams', 'releaseEnded', 'maxBytes', 'onListenerError', 'throttle'];
const DEFAULT_MAX_STREAMS = 10_000;

/** What `subscribe` listeners hear. */
export interface StreamMuxChange {
  readonly type: 'added' | 'ended';
  readonly key: unknown;
  readonly state: StreamState;
}

/** One listener: its changes wait in `queue` while its throttle window is open. */
class Subscriber {
  queue: StreamMuxChange[] = [];
  readonly throttle: Throttle;

  constructor(ms: number, listener: (change: StreamMuxChange) => void, report: (error: unknown) => void) {
    this.throttle = new Throttle(ms, () => {
      const queue = this.queue;
      this.queue = [];
      for (const c of queue) {
        try {
          listener(c);
        } catch (err) {
          report(err);
        }
      }
    });
  }

  offer(change: StreamMuxChange): void {
    this.queue.push(change);
    this.throttle.ring(change.type === 'ended');
  }
}

/**
 * Splits events that carry several streams into one `StreamState` per stream. `key` is a field
 * name (`session_id`, `trace_id`, `action_seq`, `stream_id`; `run_id`, `thread_id` of AG-UI) or a function of the event; events
 * without one go to the stream `null`.
 */
export class StreamMux {
  readonly #key: (event: CleanEvent) => unknown;
  readonly #maxStreams: number;
  readonly #releaseEnded: boolean;
  readonly #maxBytes: number | undefined;
  readonly #onListenerError: ((error: unknown) => void) | undefined;
  readonly #report: (error: unknown) => void;
  readonly #throttleMs: number;
  #states = new Map<unknown, StreamState>(); // in order of arrival
  #ended = new Set<unknown>();
  #keys: readonly unknown[] | null = Object.freeze([]);
  #errors: { code: string; message: string }[] = [];
  #errorsView: readonly { code: string; message: string }[] = Object.freeze([]);
  #full = false;
  #subs = new Set<Subscriber>();

  constructor(options: unknown) {
    requireInit(); // `not_initialized` before `await init()`, as StreamState
    const o = readOptions(options, OPTIONS, 'StreamMux');
    const key = o.key;
    if (typeof key === 'function') this.#key = key as (event: CleanEvent) => unknown;
    else if (typeof key === 'string' && KEY_FIELDS.includes(key)) this.#key = (e) => e[key];
    else {
      throw new StreamrouteError(
        'invalid_option',
        'key must be "session_id", "trace_id", "action_seq", "stream_id", "run_id", "thread_id" or a function of the event',
      );
    }
    this.#maxStreams = positiveInteger(o.maxStreams, 'maxStreams', DEFAULT_MAX_STREAMS);
    if (o.releaseEnded !== undefined && typeof o.releaseEnded !== 'boolean')
      throw new StreamrouteError('invalid_option', 'releaseEnded must be a boolean');
    this.#releaseEnded = o.releaseEnded === true;
    this.#maxBytes = o.maxBytes === undefined ? undefined : positiveInteger(o.maxBytes, 'maxBytes', 0);
    this.#onListenerError = listenerErrorOption(o.onListenerError);
    this.#report = reporter(this.#onListenerError);
    this.#throttleMs = o.throttle === undefined ? 0 : throttleOption({ throttleMs: o.throttle });
    this.apply = this.apply.bind(this);
    this.get = this.get.bind(this);
    this.keys = this.keys.bind(this);
    this.subscribe = this.subscribe.bind(this);
  }

  /**
   * Routes one event or an array of them to their streams. A batch with an element that is not
   * an event of JSON data, or whose key function throws, is refused whole (`invalid_input`).
   */
  apply(events: unknown): void {
    const list = copyEvents(events, 'StreamMux.apply');
    const keys = new Array<unknown>(list.length);
    for (let i = 0; i < list.length; i++) {
      try {
        keys[i] = this.#key(list[i]!) ?? null;
      } catch {
        throw new StreamrouteError('invalid_input', `StreamMux.apply: the key function threw on element ${i}`);
      }
    }
    const batches = new Map<unknown, CleanEvent[]>();
    const changes: StreamMuxChange[] = [];
    for (let i = 0; i < list.length; i++) {
      work.units++;
      const k = keys[i];
      let batch = batches.get(k);
      if (!batch) {
        if (!this.#states.has(k)) {
          if (this.#states.size >= this.#maxStreams) {
            this.#overflow();
            continue;
          }
          const state = new StreamState({ maxBytes: this.#maxBytes, onListenerError: this.#onListenerError });
          this.#states.set(k, state);
          this.#keys = null;
          changes.push({ type: 'added', key: k, state });
        }
        batches.set(k, (batch = []));
      }
      batch.push(list[i]!);
    }
    for (const [k, batch] of batches) {
      const state = this.#states.get(k)!;
      state[FOLD](batch);
      if (!this.#ended.has(k) && state[ENDED]()) {
        this.#ended.add(k);
        changes.push(Object.freeze({ type: 'ended', key: k, state }));
      }
    }
    const subs = [...this.#subs];
    for (const c of changes) {
      Object.freeze(c);
      for (const s of subs) s.offer(c);
      if (c.type === 'ended' && this.#releaseEnded) this.delete(c.key);
    }
  }

  #overflow(): void {
    if (this.#full) return;
    this.#full = true;
    this.#errors.push(
      Object.freeze({
        code: 'buffer_limit_exceeded',
        message: `more than maxStreams (${this.#maxStreams}) streams at once; events of new streams are dropped`,
      }),
    );
    this.#errorsView = Object.freeze(this.#errors.slice());
  }

  /** The stream's state, or `undefined`. */
  get(key: unknown): StreamState | undefined {
    return this.#states.get(key);
  }

  /** The stream keys in order of arrival (the same array until a stream is added or released). */
  keys(): readonly unknown[] {
    if (this.#keys === null) {
      work.units += this.#states.size;
      this.#keys = Object.freeze([...this.#states.keys()]);
    }
    return this.#keys;
  }

  /**
   * Releases a stream: frees its parsers and forgets it (`get` is then `undefined`, `keys()`
   * no longer lists it; a later event with its key starts a new stream). Returns whether it
   * was there.
   */
  delete(key: unknown): boolean {
    const state = this.#states.get(key);
    if (!state) return false;
    state.free();
    this.#states.delete(key);
    this.#ended.delete(key);
    this.#keys = null;
    return true;
  }

  /** The mux's own errors (`buffer_limit_exceeded` past `maxStreams`): a frozen array. */
  errors(): readonly { readonly code: string; readonly message: string }[] {
    return this.#errorsView;
  }

  /** Frees every stream's wasm argument parsers (see `StreamState.free`). */
  free(): void {
    for (const state of this.#states.values()) state.free();
  }

  /** Whether a stream has ended. */
  ended(key: unknown): boolean {
    return this.#ended.has(key);
  }

  /**
   * Calls `listener({type: "added" | "ended", key, state})` for each change; with `throttleMs`,
   * changes wait and are heard together at most once per that many milliseconds (`ended` at
   * once, with the changes before it). Returns the function that stops it.
   */
  subscribe(listener: (change: StreamMuxChange) => void, options?: { throttleMs?: number }): () => void {
    if (typeof listener !== 'function') throw new StreamrouteError('invalid_input', 'subscribe takes a function');
    const sub = new Subscriber(throttleOption(options, this.#throttleMs), listener, this.#report);
    this.#subs.add(sub);
    return () => {
      sub.throttle.stop();
      sub.queue = [];
      this.#subs.delete(sub);
    };
  }
}
