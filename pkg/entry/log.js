// SseLog: a resumable event stream. It sits between `toSse(...)` and the responses: the frames
// written to `log.writable` get ids 1, 2, 3, ... and go to a store; `log.readable(lastEventId)`
// serves a reader the stored frames after that id, then the live ones as they are stored, so a
// reader that reconnects with `Last-Event-ID` (connectSse does) loses and repeats nothing.
//
// Invariants:
// - A frame is stored whole or not at all, with its id in its text; ids are consecutive.
// - A reader reads the store only (never the writer), one bounded batch per pull, so any number
//   of readers, on any object over the same store, see the same frames in the same order.
// - The store keeps at most `maxBytes` of a stream: past it the oldest frames go, and a reader
//   that needs one of them is refused (a final `stopped` frame, code `buffer_limit_exceeded`);
//   the writer and the readers that keep up go on.
// - A stream ends finished (`writable` closed) or stopped (`stop(reason)`, or the writable
//   aborted): readers at the end close, after a final `stopped` frame for a stop. Either way it
//   stays readable until `ttlMs` after its end (or after its last frame, for a writer that died).
import { SseDecoder } from './classes/sse.js';
import { StreamrouteError } from './runtime.js';
import { decoderCaps, optionsIn } from './connect.js';

const utf8 = new TextEncoder();

/** Defaults: 16 MiB kept per stream, readable 10 minutes after its end, batches of 256 KiB per pull. */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_TTL_MS = 10 * 60 * 1000;
const READ_BYTES = 256 * 1024;
/** What a stored frame costs beyond its text: its id, length and slot. */
export const FRAME_OVERHEAD = 64;

/** The end a stopped stream's readers get: a `stopped` frame (client/wire.ts reads it in every profile). */
const stoppedFrame = (code, message) => utf8.encode(`event: stopped\ndata: ${JSON.stringify({ code, message })}\n\n`);

const positive = (v, name, fallback) => {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < 1) throw new StreamrouteError('invalid_option', `${name} must be a positive integer`);
  return v;
};

/**
 * The id a reader resumes after: `Last-Event-ID` as this log writes ids (a decimal integer),
 * else 0 (from the first frame). An id the log never gave (past its last) reads from the first too.
 */
const resumeId = (lastEventId, lastId) => {
  const n = typeof lastEventId === 'string' && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : 0;
  return n <= lastId ? n : 0;
};

/**
 * A resumable event stream over a store. `store` is an `SseStore` (`MemorySseStore`,
 * `DurableObjectSseStore`, or yours); `options.streamId` names the stream in it,
 * `options.maxBytes` (default 16 MiB) bounds what is kept of it, `options.ttlMs` (default
 * 10 minutes) how long it stays readable after it ended, `options.maxEventBytes` (default
 * 8 MiB) one frame's data.
 */
export class SseLog {
  #store;
  #id;
  #limits;
  #caps;
  #writable = null;
  /** Set by this object's `stop()`: its writer's next write fails (a stop from elsewhere shows at its next frame). */
  #halted = false;
  /** The writer's start (the stream is in the store once it resolves): this object's readers wait for it. */
  #started = null;

  constructor(store, options) {
    if (store === null || typeof store !== 'object' || ['append', 'read', 'finish', 'wait'].some((m) => typeof store[m] !== 'function')) {
      throw new StreamrouteError('invalid_input', 'SseLog: store must have append, read, finish and wait methods (an SseStore)');
    }
    const o = optionsIn(options, ['streamId', 'maxBytes', 'ttlMs', 'maxEventBytes']);
    if (typeof o.streamId !== 'string' || o.streamId === '' || o.streamId.length > 512) {
      throw new StreamrouteError('invalid_option', 'SseLog: streamId must be a string of 1 to 512 characters');
    }
    this.#store = store;
    this.#id = o.streamId;
    this.#limits = { maxBytes: positive(o.maxBytes, 'maxBytes', DEFAULT_MAX_BYTES), ttlMs: positive(o.ttlMs, 'ttlMs', DEFAULT_TTL_MS) };
    this.#caps = decoderCaps(o.maxEventBytes);
  }

  /** The stream's name in the store. */
  get streamId() {
    return this.#id;
  }

  /**
   * The writer side: a WritableStream of what `toSse` writes (bytes or text, cut anywhere).
   * Each frame (comments and `ping`s aside) is stored with the next id; closing finishes the
   * stream, aborting stops it. A write after the stream was stopped (by `stop()`, from this
   * object or another over the same store) fails, so a pipe into it cancels its source. One
   * writer per log: a second `writable` is `invalid_state`.
   */
  get writable() {
    if (this.#writable) throw new StreamrouteError('invalid_state', 'SseLog: the stream already has its writer');
    const store = this.#store;
    const id = this.#id;
    const limits = this.#limits;
    const decoder = new SseDecoder(this.#caps);
    let lastId = 0;
    let retry;
    let done = false;
    const frames = (events) => {
      const out = [];
      for (const e of events) {
        if (e.event === 'ping') continue;
        let text = `id: ${++lastId}\n`;
        if (decoder.retry !== retry) {
          retry = decoder.retry;
          if (retry !== undefined) text += `retry: ${retry}\n`;
        }
        if (e.event !== 'message') text += `event: ${e.event}\n`;
        text += `data: ${e.data.replaceAll('\n', '\ndata: ')}\n\n`;
        const bytes = utf8.encode(text);
        out.push({ id: lastId, text, bytes: bytes.length });
      }
      return out;
    };
    const end = async (stop) => {
      if (done) return;
      done = true;
      decoder.free();
      await store.finish(id, stop, limits.ttlMs);
    };
    const start = async () => {
      // The stream is there from the start: a reader that comes before the first frame waits for it.
      const head = await store.read(id, 0, 0);
      if (head.exists && head.end === null) throw new StreamrouteError('invalid_state', `SseLog: stream "${id}" already has a writer`);
      await store.append(id, [], limits, true);
    };
    this.#started = start();
    const started = this.#started;
    this.#started.catch(() => {});
    this.#writable = new WritableStream({
      start: () => started,
      write: async (chunk) => {
        if (done || this.#halted) throw new StreamrouteError('invalid_state', 'SseLog: the stream has ended');
        let out;
        try {
          out = frames(decoder.feed(chunk));
        } catch (err) {
          await end({ code: err?.code ?? 'invalid_input', message: err?.message ?? String(err) });
          throw err;
        }
        if (out.length) await store.append(id, out, limits);
      },
      async close() {
        if (done) return;
        const out = frames(decoder.finish());
        if (out.length) await store.append(id, out, limits);
        await end(null);
      },
      async abort(reason) {
        await end({ code: 'stream_stopped', message: reason instanceof Error ? reason.message : String(reason ?? '') });
      },
    });
    return this.#writable;
  }

  /**
   * Stops the stream on purpose: every reader ends with a final `stopped` frame (`{ code:
   * "stream_stopped", message: reason }`), and the writer's next write fails. A stream already
   * ended stays as it ended.
   */
  async stop(reason = '') {
    this.#halted = true;
    const head = await this.#store.read(this.#id, 0, 0);
    if (!head.exists || head.end !== null) return;
    await this.#store.finish(this.#id, { code: 'stream_stopped', message: String(reason) }, this.#limits.ttlMs);
  }

  /**
   * Where the stream stands: `state` (`"unknown"`: never written or expired, `"live"`,
   * `"finished"`, `"stopped"`), `lastId`, `firstId` (the oldest id still kept) and `bytes` kept.
   */
  async status() {
    const r = await this.#store.read(this.#id, 0, 0);
    const state = !r.exists ? 'unknown' : r.end === null ? 'live' : r.end.code === 'finished' ? 'finished' : 'stopped';
    return { state, lastId: r.lastId, firstId: r.firstId, bytes: r.bytes };
  }

  /**
   * A reader: a ReadableStream<Uint8Array> of the frames after `lastEventId` (a request's
   * `Last-Event-ID`; none: from the first), then the live ones, closing when the stream ends
   * (after a `stopped` frame for a stop). A reader of a stream that is unknown ends with a
   * `stopped` frame `stream_unknown`; one that needs frames no longer kept, with
   * `buffer_limit_exceeded`. `options.heartbeatMs` (default 15000; 0: none): a `: ping` comment
   * while nothing comes; `options.signal` ends it (as cancelling it does).
   */
  readable(lastEventId, options) {
    const o = optionsIn(options, ['heartbeatMs', 'signal']);
    const heartbeatMs = o.heartbeatMs ?? 15000;
    const store = this.#store;
    const id = this.#id;
    const stop = new AbortController();
    o.signal?.addEventListener('abort', () => stop.abort(), { once: true });
    let after = null;
    const started = () => this.#started?.catch(() => {});
    const final = (controller, chunk) => {
      if (chunk) controller.enqueue(chunk);
      controller.close();
      stop.abort();
    };
    return new ReadableStream(
      {
        async pull(controller) {
          if (after === null) await started();
          for (;;) {
            if (stop.signal.aborted) return final(controller);
            const r = await store.read(id, after ?? 0, READ_BYTES);
            if (!r.exists) return final(controller, stoppedFrame('stream_unknown', `no stream "${id}": never written, or expired`));
            if (after === null) {
              after = resumeId(lastEventId, r.lastId);
              if (after !== 0) continue;
            }
            if (after + 1 < r.firstId) {
              return final(
                controller,
                stoppedFrame(
                  'buffer_limit_exceeded',
                  `frames after ${after} are no longer kept (maxBytes); the oldest kept is ${r.firstId}`,
                ),
              );
            }
            if (r.frames.length) {
              after = r.frames[r.frames.length - 1].id;
              controller.enqueue(utf8.encode(r.frames.map((f) => f.text).join('')));
              return;
            }
            if (r.end !== null) return final(controller, r.end.code === 'finished' ? null : stoppedFrame(r.end.code, r.end.message));
            if (!(await waitOrBeat(store, id, after, stop.signal, heartbeatMs))) {
              controller.enqueue(utf8.encode(': ping\n\n'));
              return;
            }
          }
        },
        cancel() {
          stop.abort();
        },
      },
      { highWaterMark: 0 },
    );
  }
}

/** Waits for the store to change after `after`: true, or false when `heartbeatMs` passed first. */
async function waitOrBeat(store, id, after, signal, heartbeatMs) {
  const wait = new AbortController();
  const onAbort = () => wait.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let timer;
  const beat =
    heartbeatMs > 0
      ? new Promise((resolve) => {
          timer = setTimeout(() => resolve(false), heartbeatMs);
        })
      : null;
  try {
    const changed = store.wait(id, after, wait.signal).then(() => true);
    return await (beat ? Promise.race([changed, beat]) : changed);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    wait.abort();
  }
}

/**
 * Who waits for which stream (`wait`), woken by `wake(id)`: the live half of the stores here,
 * which serve every reader of a stream from one place (a process, a Durable Object).
 */
export class Waiters {
  #waiting = new Map(); // stream id -> Set of resolve functions

  /** Resolves at the next `wake(id)`, or when `signal` aborts. */
  wait(id, signal) {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      let set = this.#waiting.get(id);
      if (!set) this.#waiting.set(id, (set = new Set()));
      const done = () => {
        set.delete(done);
        if (set.size === 0 && this.#waiting.get(id) === set) this.#waiting.delete(id);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      set.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  wake(id) {
    const set = this.#waiting.get(id);
    if (set) for (const done of [...set]) done();
  }
}

/** What `read` answers for a stream that is not there. */
export const ABSENT = Object.freeze({ exists: false, frames: [], firstId: 1, lastId: 0, bytes: 0, end: null });

/**
 * An `SseStore` in memory, for one process: every stream's kept frames (at most its
 * `maxBytes`: frame text in UTF-8 bytes plus 64 per frame), at most `maxStreams` streams
 * (default 10,000; a new one past it is `buffer_limit_exceeded`). A stream is deleted `ttlMs`
 * after its end or its last frame.
 */
export class MemorySseStore {
  #streams = new Map();
  #maxStreams;
  #waiters = new Waiters();
  #nextSweep = 0;

  constructor(options) {
    const o = optionsIn(options, ['maxStreams']);
    this.#maxStreams = positive(o.maxStreams, 'maxStreams', 10_000);
  }

  append(id, frames, limits, create) {
    const now = Date.now();
    this.#sweep(now);
    let s = this.#live(id, now);
    if (!s || (create && s.end !== null)) {
      if (!create) throw new StreamrouteError('invalid_state', `stream "${id}" is not there (expired)`);
      if (!s && this.#streams.size >= this.#maxStreams) {
        throw new StreamrouteError('buffer_limit_exceeded', `MemorySseStore: ${this.#maxStreams} streams (maxStreams) already kept`);
      }
      // (A writer over a stream that ended starts it afresh.)
      this.#streams.delete(id);
      s = { frames: [], head: 0, bytes: 0, firstId: 1, lastId: 0, end: null, expires: 0 };
      this.#streams.set(id, s);
    }
    if (s.end !== null) throw new StreamrouteError('invalid_state', `stream "${id}" has ended`);
    for (const f of frames) {
      s.frames.push(f);
      s.bytes += f.bytes + FRAME_OVERHEAD;
      s.lastId = f.id;
    }
    // The oldest frames go past maxBytes.
    while (s.bytes > limits.maxBytes && s.head < s.frames.length) {
      const f = s.frames[s.head];
      s.frames[s.head++] = undefined;
      s.bytes -= f.bytes + FRAME_OVERHEAD;
      s.firstId = f.id + 1;
    }
    if (s.head > 1024 && s.head * 2 > s.frames.length) {
      s.frames = s.frames.slice(s.head);
      s.head = 0;
    }
    s.expires = now + limits.ttlMs;
    if (frames.length) this.#waiters.wake(id);
  }

  read(id, after, maxBytes) {
    const s = this.#live(id, Date.now());
    if (!s) return ABSENT;
    const out = [];
    // Frames are consecutive: the one after `after` is at a computed position.
    let bytes = 0;
    for (let i = s.head + Math.max(0, after + 1 - s.firstId); i < s.frames.length && bytes < maxBytes; i++) {
      out.push(s.frames[i]);
      bytes += s.frames[i].bytes;
    }
    return { exists: true, frames: out, firstId: s.firstId, lastId: s.lastId, bytes: s.bytes, end: s.end };
  }

  finish(id, stop, ttlMs) {
    const s = this.#live(id, Date.now());
    if (!s || s.end !== null) return;
    s.end = stop ?? { code: 'finished', message: '' };
    s.expires = Date.now() + ttlMs;
    this.#waiters.wake(id);
  }

  wait(id, after, signal) {
    const s = this.#live(id, Date.now());
    if (!s || s.lastId > after || s.end !== null) return Promise.resolve();
    return this.#waiters.wait(id, signal);
  }

  /** The stream `id` unless it expired (an expired one is deleted). */
  #live(id, now) {
    const s = this.#streams.get(id);
    if (s && s.expires <= now) {
      this.#streams.delete(id);
      return undefined;
    }
    return s;
  }

  /** Deletes expired streams, at most once a second (each check is one pass over the streams). */
  #sweep(now) {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 1000;
    for (const [id, s] of this.#streams) if (s.expires <= now) this.#streams.delete(id);
  }
}
