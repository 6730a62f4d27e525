// SseLog in workerd (through miniflare): the Durable Object class the package exports keeps each
// stream in Durable Object storage (a real store: miniflare's, not a mock). A writer POSTs what
// toSse writes, cut into pieces that arrive over time; readers connected through connectSse lose
// their connection at random points (after 1 to 7 frames, and inside a frame), reconnect with the
// last id they saw, and get every frame once, in order: from the start, joining late, on a
// stopped stream. Frames longer than a storage value, maxBytes and the TTL too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { StreamState, connectSse } from 'streamroute';
import { JS_DIR, bundleWorker, listen } from './helpers/runtimes.mjs';
import { SEED, rng, splitings } from './helpers/chunking.mjs';
import { SAMPLES } from './helpers/streams.mjs';
import { fold } from './helpers/client-roundtrip.mjs';
import { droppingFetch } from './helpers/drops.mjs';
import { framesOf, routed, wire } from './helpers/log-streams.mjs';

const MODULES_ROOT = join(JS_DIR, '.tmp', 'log-worker-bundle');
let mf;

before(async () => {
  const bundle = await bundleWorker(join(JS_DIR, 'worker', 'log-worker.js'), MODULES_ROOT);
  mf = new Miniflare({
    modulesRoot: MODULES_ROOT,
    modules: bundle.modules,
    compatibilityDate: '2025-01-01',
    durableObjects: { LOG: 'SseLogDurableObject' },
  });
  await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

const url = (stream, query = '') => `http://log.test/?stream=${encodeURIComponent(stream)}${query}`;

/** A request body of `chunks` that arrive over time; `onChunk(i)` after each, `stopAt`: it waits there until released. */
function slowBody(chunks, { onChunk, hold } = {}) {
  let i = 0;
  return new ReadableStream({
    async pull(c) {
      if (hold && i === hold.at) await hold.until;
      if (i >= chunks.length) return c.close();
      c.enqueue(typeof chunks[i] === 'string' ? new TextEncoder().encode(chunks[i]) : chunks[i]);
      onChunk?.(i++);
      await new Promise((r) => setTimeout(r, 1));
    },
  });
}

/** POSTs the body to the stream's Durable Object: resolves with its answer once the body has ended. */
const post = (stream, body, query = '') => mf.dispatchFetch(url(stream, query), { method: 'POST', body, duplex: 'half' });

/**
 * Logs `chunks` through a writer in the worker (`?upstream=`: its body is fetched there, as a
 * provider's is), and waits until the stream has ended.
 */
async function writeFrom(stream, chunks, query = '') {
  const upstream = await listen(async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const c of chunks) if (!res.write(c)) await new Promise((r) => res.once('drain', r));
    res.end();
  });
  try {
    const started = await mf.dispatchFetch(url(stream, `${query}&upstream=${encodeURIComponent(upstream.origin)}`), { method: 'POST' });
    assert.equal(started.status, 202);
    for (let i = 0; i < 2000; i++) {
      const { state } = await (await mf.dispatchFetch(url(stream, '&status'))).json();
      if (state === 'finished' || state === 'stopped') return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`stream ${stream} did not end`);
  } finally {
    await upstream.close();
  }
}

/** One reader through connectSse over dropping connections to the worker. */
async function readThrough(stream, seed, profile) {
  const lastIds = [];
  const serve = (lastId) => mf.dispatchFetch(url(stream), { headers: lastId ? { 'last-event-id': lastId } : {} });
  const out = [];
  const fetch = droppingFetch(serve, seed, lastIds);
  for await (const e of connectSse('http://log.test/', {}, { fetch, retryMs: 0, maxRetries: 10_000, ...(profile ? { profile } : {}) })) {
    out.push(e);
  }
  return { out, lastIds };
}

/** Waits until the stream is in storage (the writer's first request has reached the object). */
async function started(stream) {
  for (let i = 0; i < 400; i++) {
    const { state } = await (await mf.dispatchFetch(url(stream, '&status'))).json();
    if (state !== 'unknown') return;
    await new Promise((res) => setTimeout(res, 5));
  }
  throw new Error(`stream ${stream} never started`);
}

test('readers that drop every 1–7 frames and inside frames get every frame once, from the start and joining late', {
  timeout: 300_000,
}, async () => {
  const samples = SAMPLES.filter((s) => !s.binary).slice(0, 6);
  let readers = 0;
  let drops = 0;
  for (const [k, s] of samples.entries()) {
    const profile = ['planner', 'tagged', 'ai-sdk', 'ag-ui'][k % 4];
    const text = await wire(routed(s), profile);
    const source = framesOf(text);
    const chunks = splitings(text, SEED + k).find(([l]) => l.startsWith('random byte pieces <=64'))[1];
    const stream = `wd-${k}-${SEED}`;
    let late;
    const half = Math.floor(chunks.length / 2);
    let release;
    const hold = {
      at: 1,
      until: new Promise((r) => {
        release = r;
      }),
    };
    const writing = post(
      stream,
      slowBody(chunks, {
        hold,
        onChunk: (i) => {
          if (i === half) late = readThrough(stream, SEED + k + 100, profile);
        },
      }),
    );
    await started(stream);
    const first = readThrough(stream, SEED + k, profile);
    release();
    const res = await writing;
    assert.equal(res.status, 204, await res.text());
    const [a, b, c] = await Promise.all([first, late, readThrough(stream, SEED + k + 200, profile)]);
    const ids = source.map((_, i) => String(i + 1));
    for (const [name, r] of [
      ['first', a],
      ['late', b],
      ['after the end', c],
    ]) {
      const events = r.out;
      if (profile) {
        // Read with the profile: the state equals the source's, no delta twice.
        const state = new StreamState();
        assert.ok(
          events.every((e) => typeof e?.type === 'string'),
          `${name}: ${JSON.stringify(events.slice(0, 3))}`,
        );
        state.apply(events);
        const want = fold({ StreamState }, routed(s));
        for (const f of ['status', 'answer', 'thinking', 'toolCalls', 'userText', 'artifactText']) {
          assert.deepEqual(state.snapshot()[f], want[f], `${s.file} ${profile} ${name}: ${f} (seed ${SEED})`);
        }
      }
      readers++;
    }
    // The same readers without a profile: the raw frames, ids 1..n.
    const raw = await readThrough(stream, SEED + k + 300);
    assert.deepEqual(
      raw.out.map((e) => e.id),
      ids,
      `${s.file}: ids`,
    );
    assert.deepEqual(
      raw.out.map(({ event, data }) => ({ event, data })),
      source,
      `${s.file}: frames`,
    );
    drops += a.lastIds.length + b.lastIds.length + c.lastIds.length + raw.lastIds.length - 4;
  }
  assert.ok(readers >= 18);
  assert.ok(drops >= readers, `${drops} dropped connections for ${readers} readers`);
});

test('a stopped stream ends every reader with the stopped frame; readers that dropped resume up to it', { timeout: 120_000 }, async () => {
  const s = SAMPLES.find((x) => x.file === 'openai-chat-tools.sse');
  const text = await wire(routed(s), 'planner');
  const chunks = text.match(/[\s\S]{1,40}/g);
  const stream = `stop-${SEED}`;
  const stopAt = Math.floor(chunks.length / 2);
  let release;
  const until = new Promise((r) => {
    release = r;
  });
  // The writer runs in the worker (a request body from outside arrives whole): it reads an
  // upstream that holds before chunk `stopAt` until the stop.
  const upstream = await listen(async (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [i, c] of chunks.entries()) {
      if (i === stopAt) await until;
      if (!res.write(c)) await new Promise((r) => res.once('drain', r));
      await new Promise((r) => setTimeout(r, 1));
    }
    res.end();
  });
  after(() => upstream.close());
  assert.equal((await mf.dispatchFetch(url(stream, `&upstream=${encodeURIComponent(upstream.origin)}`), { method: 'POST' })).status, 202);
  await started(stream);
  const first = readThrough(stream, SEED + 1);
  const folded = readThrough(stream, SEED + 2, 'planner');
  // Wait until the writer holds (every frame before it stored), then stop.
  const written = framesOf(chunks.slice(0, stopAt).join(''));
  for (let i = 0; i < 1000; i++) {
    const { lastId } = await (await mf.dispatchFetch(url(stream, '&status'))).json();
    if (lastId >= written.length) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const del = await mf.dispatchFetch(url(stream, '&reason=enough'), { method: 'DELETE' });
  assert.equal(del.status, 204);
  release();
  const [a, b] = await Promise.all([first, folded]);
  assert.deepEqual(
    a.out.slice(0, -1).map(({ event, data }) => ({ event, data })),
    written,
  );
  assert.deepEqual([a.out.at(-1).event, JSON.parse(a.out.at(-1).data)], ['stopped', { code: 'stream_stopped', message: 'enough' }]);
  const state = new StreamState();
  state.apply(b.out);
  assert.deepEqual(
    [state.snapshot().status, state.snapshot().finish, state.snapshot().errors.at(-1).code],
    ['error', 'stopped', 'stream_stopped'],
  );
  const late = await readThrough(stream, SEED + 3);
  assert.deepEqual(late.out, a.out);
});

test('frames longer than one storage value, maxBytes and the TTL in Durable Object storage', { timeout: 120_000 }, async () => {
  const next = rng(SEED);
  const big = Array.from({ length: 5 }, (_, i) => `data: ${String.fromCharCode(0x61 + i).repeat(40_000 + next(100_000))}é😀\n\n`).join('');
  const small = 'data: x\n\n'.repeat(50);
  const stream = `big-${SEED}`;
  await writeFrom(stream, (small + big + small).match(/[\s\S]{1,7000}/g));
  const source = framesOf(small + big + small);
  const raw = await readThrough(stream, SEED + 5);
  assert.deepEqual(
    raw.out.map(({ event, data }) => ({ event, data })),
    source,
    'long frames whole, once',
  );

  // maxBytes: the oldest frames go; a reader from the start is refused, one from a kept id reads on.
  const capped = `cap-${SEED}`;
  const many = Array.from({ length: 300 }, (_, i) => `data: frame ${i} ${'z'.repeat(40)}\n\n`);
  await writeFrom(capped, [many.join('')], '&maxBytes=4096');
  const refused = framesOf(await (await mf.dispatchFetch(url(capped))).text());
  assert.deepEqual(
    refused.map((f) => [f.event, JSON.parse(f.data).code]),
    [['stopped', 'buffer_limit_exceeded']],
  );
  const tail = framesOf(await (await mf.dispatchFetch(url(capped), { headers: { 'last-event-id': '290' } })).text());
  assert.deepEqual(
    tail.map((f) => f.data),
    many.slice(290).map((f) => f.slice(6, -2)),
  );

  // The TTL: readable until it passes, then unknown.
  const short = `ttl-${SEED}`;
  await writeFrom(short, ['data: a\n\n'], '&ttlMs=300');
  assert.deepEqual(
    framesOf(await (await mf.dispatchFetch(url(short))).text()).map((f) => f.data),
    ['a'],
  );
  await new Promise((r) => setTimeout(r, 400));
  const gone = framesOf(await (await mf.dispatchFetch(url(short))).text());
  assert.deepEqual(
    gone.map((f) => JSON.parse(f.data).code),
    ['stream_unknown'],
  );
});

test('examples/resume-worker.js: a provider call routed into the log; a page that reloads halfway reads the whole answer once', {
  timeout: 120_000,
}, async () => {
  const s = SAMPLES.find((x) => x.file === 'anthropic-thinking.sse');
  const pieces = s.text.match(/[\s\S]{1,24}/g);
  // The provider: its stream in small pieces, over time.
  const upstream = await listen(async (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const p of pieces) {
      res.write(p);
      await new Promise((r) => setTimeout(r, 5));
    }
    res.end();
  });
  const root = join(JS_DIR, '.tmp', 'resume-worker-bundle');
  const bundle = await bundleWorker(join(JS_DIR, '..', '..', 'examples', 'resume-worker.js'), root, {
    nodePaths: [join(JS_DIR, 'node_modules')],
  });
  const worker = new Miniflare({
    modulesRoot: root,
    modules: bundle.modules,
    compatibilityDate: '2025-01-01',
    durableObjects: { LOG: 'SseLogDurableObject' },
    bindings: { UPSTREAM_URL: upstream.origin },
  });
  try {
    await worker.ready;
    const turn = `turn-${SEED}`;
    const page = `http://app.test/chat?turn=${turn}`;
    const started = await worker.dispatchFetch(page, { method: 'POST', body: 'question' });
    assert.equal(started.status, 202);
    // The first page reads part of the answer, then reloads (its connection is gone).
    const first = new StreamState();
    const ac = new AbortController();
    const fetch = (u, init) => worker.dispatchFetch(u, init);
    try {
      for await (const e of connectSse(page, { signal: ac.signal }, { profile: 'ag-ui', fetch })) {
        first.apply(e);
        if (first.snapshot().answer.length > 10) ac.abort();
      }
    } catch (err) {
      assert.equal(err.name, 'AbortError');
    }
    const partial = first.snapshot().answer;
    assert.ok(partial.length > 10, partial);
    // The reloaded page: a fresh state, from the first frame, with drops on the way.
    const again = new StreamState();
    for await (const e of connectSse(
      page,
      {},
      {
        profile: 'ag-ui',
        fetch: droppingFetch((id) => worker.dispatchFetch(page, { headers: id ? { 'last-event-id': id } : {} }), SEED),
        retryMs: 0,
        maxRetries: 10_000,
      },
    ))
      again.apply(e);
    const want = fold({ StreamState }, routed({ ...s, content: 'text' }));
    for (const f of ['status', 'answer', 'thinking', 'toolCalls', 'errors']) assert.deepEqual(again.snapshot()[f], want[f], f);
    assert.ok(want.answer.startsWith(partial));
  } finally {
    await worker.dispose();
    await upstream.close();
  }
});
