// The Cloudflare Durable Object side of SseLog: `DurableObjectSseStore` keeps streams in a
// Durable Object's storage, and `SseLogDurableObject` is the Durable Object class a worker
// exports, so that requests on any machine reach the one object that owns a stream.
//
// Storage layout (per stream, its id URI-encoded): `m/<id>` the stream's state (`lastId`,
// `firstId`, `bytes`, `end`, `expires`); `r/<id>/<last id, 12 digits>` a record: the frames of
// one append (`{ first, texts }`), at most PIECE UTF-16 units of text; a longer frame is a
// record of its first piece (`{ first, texts: [piece], pieces }`) and keys `<key>.<k, 3 digits>`
// for the rest. Every value stays under the storage's 128 KiB.
import { StreamrouteError } from './runtime.js';
import { ABSENT, FRAME_OVERHEAD, SseLog, Waiters } from './log.js';

const PIECE = 32 * 1024;
/** Keys per storage call (the storage's limit). */
const BATCH = 128;

const pad = (n, w) => String(n).padStart(w, '0');
const metaKey = (id) => `m/${encodeURIComponent(id)}`;
const recordPrefix = (id) => `r/${encodeURIComponent(id)}/`;
const recordKey = (id, last) => `${recordPrefix(id)}${pad(last, 12)}`;

/** `keys` in slices the storage takes in one call. */
function* batches(keys) {
  for (let i = 0; i < keys.length; i += BATCH) yield keys.slice(i, i + BATCH);
}

/**
 * An `SseStore` over a Durable Object's storage (`ctx.storage`). The object is the one place
 * a stream's readers wait, so their wake-ups stay in memory; the frames are in storage, and
 * survive the object's eviction. A stream is deleted `ttlMs` after its end or its last frame
 * (by `sweep()`, which the object's alarm runs, or when it is next read).
 */
export class DurableObjectSseStore {
  #storage;
  #waiters = new Waiters();
  #locks = new Map(); // stream id -> the tail of its changes

  constructor(storage) {
    if (storage === null || typeof storage !== 'object' || typeof storage.get !== 'function' || typeof storage.list !== 'function') {
      throw new StreamrouteError('invalid_input', 'DurableObjectSseStore: storage must be a Durable Object storage (ctx.storage)');
    }
    this.#storage = storage;
  }

  append(id, frames, limits, create) {
    return this.#serial(id, () => this.#append(id, frames, limits, create));
  }

  finish(id, stop, ttlMs) {
    return this.#serial(id, () => this.#finish(id, stop, ttlMs));
  }

  /** Runs the changes of one stream one after the other (a stop never overwrites an append's state, or the reverse). */
  #serial(id, change) {
    const run = (this.#locks.get(id) ?? Promise.resolve()).then(change);
    const tail = run.catch(() => {});
    this.#locks.set(id, tail);
    tail.then(() => {
      if (this.#locks.get(id) === tail) this.#locks.delete(id);
    });
    return run;
  }

  async #append(id, frames, limits, create) {
    const storage = this.#storage;
    let m = await this.#meta(id);
    if (!m || (create && m.end !== null)) {
      if (m) await this.#delete(id);
      m = { firstId: 1, lastId: 0, bytes: 0, end: null, expires: 0 };
    }
    if (m.end !== null) throw new StreamrouteError('invalid_state', `stream "${id}" has ended`);
    const puts = {};
    let texts = [];
    let size = 0;
    const flush = () => {
      if (texts.length) puts[recordKey(id, m.lastId)] = { first: m.lastId - texts.length + 1, texts };
      texts = [];
      size = 0;
    };
    for (const f of frames) {
      if (size + f.text.length > PIECE) flush();
      m.lastId = f.id;
      m.bytes += f.bytes + FRAME_OVERHEAD;
      if (f.text.length <= PIECE) {
        texts.push(f.text);
        size += f.text.length;
        continue;
      }
      const key = recordKey(id, f.id);
      const pieces = Math.ceil(f.text.length / PIECE);
      puts[key] = { first: f.id, texts: [f.text.slice(0, PIECE)], pieces };
      for (let k = 1; k < pieces; k++) puts[`${key}.${pad(k, 3)}`] = f.text.slice(k * PIECE, (k + 1) * PIECE);
    }
    flush();
    m.expires = Date.now() + limits.ttlMs;
    const entries = Object.entries(puts);
    for (const part of batches(entries)) await storage.put(Object.fromEntries(part));
    // The oldest records go past maxBytes.
    while (m.bytes > limits.maxBytes) {
      const oldest = await storage.list({ prefix: recordPrefix(id), limit: 16 });
      if (oldest.size === 0) break;
      const gone = [];
      for (const [key, r] of oldest) {
        if (m.bytes <= limits.maxBytes) break;
        gone.push(key);
        if (typeof r === 'string') continue; // a piece of a frame already gone
        const last = Number(key.slice(-12));
        for (let k = 1; k < (r.pieces ?? 0); k++) gone.push(`${key}.${pad(k, 3)}`);
        m.bytes -= await this.#recordBytes(key, r);
        m.firstId = last + 1;
      }
      for (const part of batches(gone)) await storage.delete(part);
    }
    await storage.put(metaKey(id), m);
    await this.#alarm(m.expires);
    if (frames.length) this.#waiters.wake(id);
  }

  async read(id, after, maxBytes) {
    const m = await this.#meta(id);
    if (!m) return ABSENT;
    const out = [];
    let bytes = 0;
    let start = recordKey(id, Math.max(after + 1, m.firstId));
    while (bytes < maxBytes && after < m.lastId) {
      const records = await this.#storage.list({ prefix: recordPrefix(id), start, limit: 32 });
      if (records.size === 0) break;
      for (const [key, r] of records) {
        start = `${key}\0`;
        if (typeof r === 'string' || bytes >= maxBytes) continue;
        const texts = r.pieces ? [await this.#whole(key, r)] : r.texts;
        texts.forEach((text, i) => {
          const fid = r.first + i;
          if (fid <= after || bytes >= maxBytes) return;
          const b = byteLength(text);
          out.push({ id: fid, text, bytes: b });
          bytes += b;
        });
      }
      if (out.length) break;
    }
    // Frames from a record that starts before a frame left out would be given twice: cut at a gap.
    const firstGap = out.findIndex((f, i) => f.id !== after + 1 + i);
    if (firstGap >= 0) out.length = firstGap;
    return { exists: true, frames: out, firstId: m.firstId, lastId: m.lastId, bytes: m.bytes, end: m.end };
  }

  async #finish(id, stop, ttlMs) {
    const m = await this.#meta(id);
    if (!m || m.end !== null) return;
    m.end = stop ?? { code: 'finished', message: '' };
    m.expires = Date.now() + ttlMs;
    await this.#storage.put(metaKey(id), m);
    await this.#alarm(m.expires);
    this.#waiters.wake(id);
  }

  async wait(id, after, signal) {
    // Waiting first, then looking: a change between the two still wakes this wait.
    const mine = new AbortController();
    const onAbort = () => mine.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const woken = this.#waiters.wait(id, mine.signal);
    const m = await this.#meta(id);
    if (!m || m.lastId > after || m.end !== null) mine.abort();
    await woken;
    signal?.removeEventListener('abort', onAbort);
  }

  /** Deletes the expired streams; sets the alarm for the next expiry. */
  async sweep() {
    const now = Date.now();
    let next = Infinity;
    for (const [key, m] of await this.#storage.list({ prefix: 'm/' })) {
      if (m.expires <= now) await this.#delete(decodeURIComponent(key.slice(2)));
      else next = Math.min(next, m.expires);
    }
    if (next !== Infinity) await this.#storage.setAlarm?.(next);
  }

  async #meta(id) {
    const m = await this.#storage.get(metaKey(id));
    if (m && m.expires <= Date.now()) {
      await this.#delete(id);
      return undefined;
    }
    return m;
  }

  async #delete(id) {
    for (;;) {
      const keys = [...(await this.#storage.list({ prefix: recordPrefix(id), limit: BATCH })).keys()];
      if (keys.length === 0) break;
      await this.#storage.delete(keys);
    }
    await this.#storage.delete(metaKey(id));
  }

  async #whole(key, r) {
    const keys = [];
    for (let k = 1; k < r.pieces; k++) keys.push(`${key}.${pad(k, 3)}`);
    let text = r.texts[0];
    for (const part of batches(keys)) {
      const got = await this.#storage.get(part);
      for (const k of part) text += got.get(k) ?? '';
    }
    return text;
  }

  async #recordBytes(key, r) {
    const texts = r.pieces ? [await this.#whole(key, r)] : r.texts;
    return texts.reduce((n, t) => n + byteLength(t) + FRAME_OVERHEAD, 0);
  }

  async #alarm(at) {
    if (typeof this.#storage.setAlarm !== 'function') return;
    const current = await this.#storage.getAlarm();
    if (current === null || current > at) await this.#storage.setAlarm(at);
  }
}

/** UTF-8 length of a string, without encoding it. */
function byteLength(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' };

/**
 * The Durable Object class of SseLog: export it from the worker (`export { SseLogDurableObject }
 * from 'streamroute'`) and bind it (`durable_objects.bindings`). Each object serves the
 * streams routed to it (`env.LOG.get(env.LOG.idFromName(streamId))`), over HTTP:
 * - `POST ?stream=<id>[&maxBytes=&ttlMs=]` with what `toSse` writes as the body: logs it, and
 *   answers 204 when the body has ended (so keep the worker's request alive until then:
 *   `ctx.waitUntil(stub.fetch(...))`);
 * - `GET ?stream=<id>` (with `Last-Event-ID` to resume): the reader, `text/event-stream`;
 *   `GET ?stream=<id>&status`: `log.status()` as JSON;
 * - `DELETE ?stream=<id>&reason=<text>`: `stop(reason)`.
 * Its alarm deletes the streams past their TTL.
 */
export class SseLogDurableObject {
  #store;

  constructor(ctx) {
    this.#store = new DurableObjectSseStore(ctx.storage);
  }

  async fetch(request) {
    const url = new URL(request.url);
    const number = (k) => (url.searchParams.has(k) ? Number(url.searchParams.get(k)) : undefined);
    let log;
    try {
      log = new SseLog(this.#store, { streamId: url.searchParams.get('stream'), maxBytes: number('maxBytes'), ttlMs: number('ttlMs') });
    } catch (err) {
      return new Response(err.message, { status: 400 });
    }
    if (request.method === 'GET' && url.searchParams.has('status')) return Response.json(await log.status());
    if (request.method === 'GET') {
      return new Response(log.readable(request.headers.get('last-event-id'), { signal: request.signal }), { headers: SSE_HEADERS });
    }
    if (request.method === 'POST' && request.body) {
      try {
        await request.body.pipeTo(log.writable);
      } catch (err) {
        return new Response(err?.message ?? String(err), { status: err?.code === 'invalid_state' ? 409 : 500 });
      }
      return new Response(null, { status: 204 });
    }
    if (request.method === 'DELETE') {
      await log.stop(url.searchParams.get('reason') ?? '');
      return new Response(null, { status: 204 });
    }
    return new Response('method not allowed', { status: 405 });
  }

  async alarm() {
    await this.#store.sweep();
  }
}
