// @ts-nocheck
// StreamMux: one connection, several streams.
import { StreamrouteError } from '../runtime.js';
import { isObject } from './common.js';
import { ENDED, StreamState } from './state.js';

const KEY_FIELDS = new Set(['session_id', 'trace_id', 'action_seq', 'stream_id']);

/**
 * Splits events that carry several streams into one `StreamState` per stream. `key` is a field
 * name (`session_id`, `trace_id`, `action_seq`, `stream_id`) or a function of the event; events
 * without one go to the stream `null`.
 */
export class StreamMux {
  #key;
  #states = new Map();
  #ended = new Set();
  #keys = [];
  #keysFrozen = Object.freeze([]);
  #listeners = new Set();

  constructor(options) {
    const key = options?.key;
    if (typeof key === 'function') this.#key = key;
    else if (typeof key === 'string' && KEY_FIELDS.has(key)) this.#key = (e) => e[key];
    else {
      throw new StreamrouteError('invalid_option',
        'key must be "session_id", "trace_id", "action_seq", "stream_id" or a function of the event');
    }
    this.apply = this.apply.bind(this);
    this.get = this.get.bind(this);
    this.keys = this.keys.bind(this);
    this.subscribe = this.subscribe.bind(this);
  }

  /** Routes one event or an array of them to their streams. */
  apply(events) {
    const list = Array.isArray(events) ? events : [events];
    // Checked first: a batch with a bad element adds no stream and changes none.
    for (const e of list) {
      if (!isObject(e) || typeof e.type !== 'string') {
        throw new StreamrouteError('invalid_input', 'StreamMux.apply takes an event object (with a string type) or an array of them');
      }
    }
    const batches = new Map();
    const changes = [];
    for (const e of list) {
      const k = this.#key(e) ?? null;
      let state = this.#states.get(k);
      if (!state) {
        this.#states.set(k, (state = new StreamState()));
        this.#keys.push(k);
        this.#keysFrozen = null;
        changes.push({ type: 'added', key: k, state });
      }
      let batch = batches.get(k);
      if (!batch) batches.set(k, (batch = []));
      batch.push(e);
    }
    for (const [k, batch] of batches) {
      const state = this.#states.get(k);
      state.apply(batch);
      if (!this.#ended.has(k) && state[ENDED]()) {
        this.#ended.add(k);
        changes.push({ type: 'ended', key: k, state });
      }
    }
    for (const c of changes) for (const l of [...this.#listeners]) l(c);
  }

  /** The stream's state, or `undefined`. */
  get(key) {
    return this.#states.get(key);
  }

  /** The stream keys in order of arrival (the same array until a stream is added). */
  keys() {
    return (this.#keysFrozen ??= Object.freeze([...this.#keys]));
  }

  /** Frees every stream's wasm argument parsers (see `StreamState.free`). */
  free() {
    for (const state of this.#states.values()) state.free();
  }

  /** Whether a stream has ended. */
  ended(key) {
    return this.#ended.has(key);
  }

  /** Calls `listener({type: "added" | "ended", key, state})`; returns the function that stops it. */
  subscribe(listener) {
    if (typeof listener !== 'function') throw new StreamrouteError('invalid_input', 'subscribe takes a function');
    const entry = (c) => listener(c);
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }
}
