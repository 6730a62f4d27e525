// SseLog in Node over MemorySseStore: what toSse writes, cut anywhere, is logged with ids
// 1..n; readers connected through connectSse lose their connection at random points (after 1
// to 7 frames, and inside a frame), reconnect with the last id they saw, and get every frame
// once, in order: from the start, joining late, resuming from an id, and on a stream stopped on
// purpose. StreamState fed through the drops ends as a whole read does. Past maxBytes the
// oldest frames go (a reader that needs them is refused) while the live stream goes on; a
// finished stream stays readable until its TTL; the work per frame does not grow with the stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemorySseStore, SseLog, StreamRouter, StreamState, connectSse, fromSse, toSse } from 'streamroute';
import { SEED, splitings } from './helpers/chunking.mjs';
import { SAMPLES } from './helpers/streams.mjs';
import { EXTRA_EVENTS, collect, fold, streamOf, withRun } from './helpers/client-roundtrip.mjs';
import { droppingFetch } from './helpers/drops.mjs';
import { framesOf, routed, wire } from './helpers/log-streams.mjs';

const sr = { toSse, StreamRouter, StreamState };
const SSE = (body) => new Response(body, { headers: { 'content-type': 'text/event-stream' } });
const tick = () => new Promise((r) => setImmediate(r));

/** Writes `chunks` to the log's writable, a tick between them (readers read while it is live); `stopAt`: stop there. */
async function write(log, chunks, { stopAt = -1, onChunk } = {}) {
  const w = log.writable.getWriter();
  for (let i = 0; i < chunks.length; i++) {
    if (i === stopAt) {
      await log.stop('stopped by the user');
      await w.write(chunks[i]).then(
        () => assert.fail('a write after stop fails'),
        (e) => assert.equal(e.code, 'invalid_state'),
      );
      return;
    }
    await w.write(chunks[i]);
    await onChunk?.(i);
    await tick();
  }
  await w.close();
}

/** Everything one reader gets through connectSse over dropping connections: the raw events, or with `profile` the wire events. */
async function readThrough(log, seed, { profile, start } = {}) {
  const lastIds = [];
  const fetch = droppingFetch((lastId) => SSE(log.readable(lastId ?? start, { heartbeatMs: 0 })), seed, lastIds);
  const out = [];
  for await (const e of connectSse('http://log.test/', {}, { fetch, retryMs: 0, maxRetries: 10_000, ...(profile ? { profile } : {}) })) {
    out.push(e);
  }
  return { out, lastIds };
}

test('readers that drop every 1–7 frames and inside frames get every frame once, in order: from the start, late, from an id', async () => {
  const samples = SAMPLES.filter((s) => !s.binary).slice(0, 10);
  let runs = 0;
  let drops = 0;
  for (const [k, s] of samples.entries()) {
    const profile = ['planner', 'tagged', 'ai-sdk', 'ag-ui'][k % 4];
    const text = await wire(routed(s), profile);
    const source = framesOf(text);
    for (const [label, chunks] of splitings(text, SEED + k).filter(([l]) => l.startsWith('whole') || /<=(3|64) /.test(l))) {
      const at = `${s.file} ${profile} ${label} (seed ${SEED})`;
      const log = new SseLog(new MemorySseStore(), { streamId: `s-${k}` });
      const half = Math.floor(chunks.length / 2);
      let late;
      const first = readThrough(log, SEED + runs);
      await write(log, chunks, {
        onChunk: (i) => {
          if (i === half) late = readThrough(log, SEED + runs + 1);
        },
      });
      late ??= readThrough(log, SEED + runs + 1);
      // (An id past the last frame written reads from the first: this reader comes once there are 3.)
      const fromId = readThrough(log, SEED + runs + 2, { start: String(Math.min(3, source.length)) });
      const [a, b, c] = await Promise.all([first, late, fromId]);
      const ids = source.map((_, i) => String(i + 1));
      for (const [name, r, skip] of [
        ['first', a, 0],
        ['late', b, 0],
        ['from id', c, Math.min(3, source.length)],
      ]) {
        assert.deepEqual(
          r.out.map((e) => e.id),
          ids.slice(skip),
          `${at}: ${name} ids`,
        );
        assert.deepEqual(
          r.out.map(({ event, data }) => ({ event, data })),
          source.slice(skip),
          `${at}: ${name} frames`,
        );
        // Each reconnection asked for what it had.
        assert.ok(
          r.lastIds.slice(1).every((id, i) => id === null || Number(id) >= Number(r.lastIds[i] ?? 0)),
          `${at}: ${r.lastIds}`,
        );
      }
      drops += a.lastIds.length + b.lastIds.length + c.lastIds.length - 3;
      runs += 3;
    }
  }
  assert.ok(runs >= 60, `${runs} readers`);
  assert.ok(drops >= runs, `${drops} dropped connections for ${runs} readers`);
});

test('a reader whose connection drops exactly at a frame boundary resumes (a case that once left connectSse waiting forever)', async () => {
  // Seed 1000005 over this sample cuts the first connection after one whole frame with no
  // extra bytes, at the very start of the log's next batch: the dropping body must drop there
  // and not end its pull having given nothing (a read waiting on it would wait forever).
  const seed = 1_000_005;
  const cases = SAMPLES.filter((s) => !s.binary).slice(0, 12);
  const k = cases.findIndex((s) => s.file === 'openai-responses-error.sse');
  assert.ok(k >= 0, 'the sample is bundled');
  const text = await wire(routed(cases[k]), 'ai-sdk');
  const pieces = splitings(text, seed + k).find(([l]) => l.startsWith('random byte pieces <=64'))[1];
  const log = new SseLog(new MemorySseStore(), { streamId: 'boundary' });
  const reading = readThrough(log, seed + k * 7, { profile: 'ai-sdk' });
  await write(log, pieces);
  let timer;
  const stalled = new Promise((r) => {
    timer = setTimeout(() => r(null), 10_000);
  });
  const done = await Promise.race([reading, stalled]);
  clearTimeout(timer);
  assert.ok(done !== null, 'the reader ended');
  assert.ok(done.lastIds.length > 1, `it reconnected (${done.lastIds.length} connections)`);
  assert.equal(done.out.at(-1).type, 'done');
});

test('StreamState fed through dropped connections ends as a whole read: no delta twice, none lost, in every profile', async () => {
  const cases = [
    ...SAMPLES.filter((s) => !s.binary)
      .slice(0, 12)
      .map((s) => [s.file, routed(s)]),
    ['extra events', EXTRA_EVENTS],
  ];
  for (const [k, [name, events]] of cases.entries()) {
    for (const profile of ['planner', 'tagged', 'ai-sdk', 'ag-ui']) {
      const text = await wire(events, profile);
      const pieces = splitings(text, SEED + k).find(([l]) => l.startsWith('random byte pieces <=64'))[1];
      const log = new SseLog(new MemorySseStore(), { streamId: name });
      const reading = readThrough(log, SEED + k * 7, { profile });
      await write(log, pieces);
      const { out, lastIds } = await reading;
      const state = new StreamState();
      state.apply(out);
      const want = fold(sr, withRun(profile, events));
      for (const f of ['status', 'answer', 'thinking', 'userText', 'artifactText', 'toolCalls', 'sources', 'usage', 'errors', 'finish']) {
        assert.deepEqual(state.snapshot()[f], want[f], `${name} ${profile}: ${f} after ${lastIds.length} connections (seed ${SEED})`);
      }
    }
  }
});

test('a stream stopped on purpose ends every reader with a stopped frame; one that drops resumes up to it; late readers too', async () => {
  const s = SAMPLES.find((x) => x.file === 'anthropic-tools.sse');
  const text = await wire(routed(s), 'ag-ui');
  const chunks = splitings(text, SEED).find(([l]) => l.startsWith('random string pieces <=64'))[1];
  const stopAt = Math.floor(chunks.length * 0.6);
  const log = new SseLog(new MemorySseStore(), { streamId: 'stop' });
  const raw = readThrough(log, SEED + 1);
  const folded = readThrough(log, SEED + 2, { profile: 'ag-ui' });
  await write(log, chunks, { stopAt });
  const written = framesOf(chunks.slice(0, stopAt).join(''));
  const [a, b] = await Promise.all([raw, folded]);
  assert.deepEqual(
    a.out.slice(0, -1).map(({ event, data }) => ({ event, data })),
    written,
    'every frame before the stop, once',
  );
  assert.deepEqual(a.out.at(-1), {
    event: 'stopped',
    data: '{"code":"stream_stopped","message":"stopped by the user"}',
    id: String(written.length),
  });
  const state = new StreamState();
  state.apply(b.out);
  assert.equal(state.snapshot().status, 'error');
  assert.equal(state.snapshot().finish, 'stopped');
  assert.deepEqual(state.snapshot().errors.at(-1), { code: 'stream_stopped', message: 'stopped by the user' });
  // A late reader, and one resuming: the same frames, the same end.
  const late = await readThrough(log, SEED + 3);
  assert.deepEqual(late.out, a.out);
  const resumed = await collect(log.readable('2', { heartbeatMs: 0 }));
  assert.deepEqual(framesOf(new TextDecoder().decode(Buffer.concat(resumed))).slice(0, -1), written.slice(2));
  assert.equal((await log.status()).state, 'stopped');
  // A stop is distinct from a disconnect: a reader cancelled mid-way changes nothing for others.
});

test('past maxBytes the oldest frames go: a reader that keeps up gets every frame, one that needs a dropped frame is refused', async () => {
  const store = new MemorySseStore();
  const maxBytes = 4096;
  const log = new SseLog(store, { streamId: 'big', maxBytes });
  const events = Array.from({ length: 400 }, (_, i) => ({ type: 'answer_delta', text: `chunk ${i} `.repeat(3) }));
  events.push({ type: 'done', ok: true, parse_ok: true, finish_reason: 'stop' });
  const text = await wire(events, 'planner');
  const live = collect(log.readable(null, { heartbeatMs: 0 }).pipeThrough(new TextDecoderStream()));
  const w = log.writable.getWriter();
  const pieces = text.match(/[\s\S]{1,300}/g);
  for (const p of pieces) {
    await w.write(p);
    for (let i = 0; i < 20; i++) await tick(); // the live reader keeps up
    assert.ok((await log.status()).bytes <= maxBytes, 'the log keeps at most maxBytes');
  }
  await w.close();
  const out = await collect(streamOf([(await live).join('')]).pipeThrough(fromSse('planner')));
  const state = new StreamState();
  state.apply(out);
  assert.equal(
    state.snapshot().answer,
    events
      .slice(0, -1)
      .map((e) => e.text)
      .join(''),
    'the live stream went on',
  );
  const status = await log.status();
  assert.ok(status.firstId > 1 && status.state === 'finished', JSON.stringify(status));
  // A reader from the start is refused: a final stopped frame with buffer_limit_exceeded.
  const refused = framesOf(new TextDecoder().decode(Buffer.concat(await collect(log.readable(null, { heartbeatMs: 0 })))));
  assert.equal(refused.length, 1);
  assert.equal(refused[0].event, 'stopped');
  assert.equal(JSON.parse(refused[0].data).code, 'buffer_limit_exceeded');
  // One from a kept id reads on.
  const kept = await collect(log.readable(String(status.firstId - 1), { heartbeatMs: 0 }));
  assert.equal(framesOf(new TextDecoder().decode(Buffer.concat(kept))).length, status.lastId - status.firstId + 1);
});

test('a finished stream stays readable until its TTL, then is unknown; an idle live stream expires too; maxStreams', async () => {
  const store = new MemorySseStore({ maxStreams: 2 });
  const log = new SseLog(store, { streamId: 'ttl', ttlMs: 200 });
  await streamOf(['data: a\n\n', 'data: b\n\n']).pipeTo(log.writable);
  assert.equal((await log.status()).state, 'finished');
  const read = async (l) => framesOf(new TextDecoder().decode(Buffer.concat(await collect(l.readable(null, { heartbeatMs: 0 })))));
  assert.deepEqual(
    (await read(log)).map((f) => f.data),
    ['a', 'b'],
  );
  await new Promise((r) => setTimeout(r, 250));
  assert.equal((await log.status()).state, 'unknown');
  assert.deepEqual(
    (await read(log)).map((f) => [f.event, JSON.parse(f.data).code]),
    [['stopped', 'stream_unknown']],
  );
  // Stream slots: a third live stream is refused, an expired one frees its slot.
  const w1 = new SseLog(store, { streamId: 'one', ttlMs: 100 }).writable.getWriter();
  const w2 = new SseLog(store, { streamId: 'two', ttlMs: 100 }).writable.getWriter();
  await Promise.all([w1.ready, w2.ready]);
  const third = new SseLog(store, { streamId: 'three' }).writable.getWriter();
  await assert.rejects(third.write('data: x\n\n'), (e) => e.code === 'buffer_limit_exceeded');
  await new Promise((r) => setTimeout(r, 1100)); // past the TTL and the sweep interval
  const fourth = new SseLog(store, { streamId: 'four' }).writable.getWriter();
  await fourth.write('data: x\n\n');
  // Options and misuse.
  assert.throws(
    () => new SseLog(store, {}),
    (e) => e.code === 'invalid_option',
  );
  assert.throws(
    () => new SseLog({}, { streamId: 'x' }),
    (e) => e.code === 'invalid_input',
  );
  assert.throws(
    () => new SseLog(store, { streamId: 'x', maxBytes: 0 }),
    (e) => e.code === 'invalid_option',
  );
  assert.throws(
    () => new SseLog(store, { streamId: 'x', nope: 1 }),
    (e) => e.code === 'invalid_input',
  );
  const one = new SseLog(store, { streamId: 'five' });
  void one.writable;
  assert.throws(
    () => one.writable,
    (e) => e.code === 'invalid_state',
  );
});

test('hostile Last-Event-ID values read from the first frame; a reader of a live stream waits for its first frame', async () => {
  const log = new SseLog(new MemorySseStore(), { streamId: 'h' });
  const w = log.writable.getWriter();
  await w.ready;
  const early = collect(log.readable(null, { heartbeatMs: 0 }));
  await w.write('event: x\ndata: 1\n\n');
  await w.write('data: 2\r\n\r\n: comment\n\n');
  await w.close();
  const text = (chunks) => new TextDecoder().decode(Buffer.concat(chunks));
  assert.equal(text(await early), 'id: 1\nevent: x\ndata: 1\n\nid: 2\ndata: 2\n\n');
  for (const bad of ['', 'x', '-1', '1e3', '99', '9'.repeat(40), '__proto__', '0x1']) {
    assert.equal(text(await collect(log.readable(bad, { heartbeatMs: 0 }))), 'id: 1\nevent: x\ndata: 1\n\nid: 2\ndata: 2\n\n', bad);
  }
  assert.equal(text(await collect(log.readable('1', { heartbeatMs: 0 }))), 'id: 2\ndata: 2\n\n');
  assert.equal(text(await collect(log.readable(' 2 ', { heartbeatMs: 0 }))), '');
});

test('heartbeats while nothing comes; cancelling a reader leaves no waiter behind', async () => {
  const log = new SseLog(new MemorySseStore(), { streamId: 'beat' });
  const w = log.writable.getWriter();
  await w.ready;
  const reader = log.readable(null, { heartbeatMs: 10 }).getReader();
  const { value } = await reader.read();
  assert.equal(new TextDecoder().decode(value), ': ping\n\n');
  await reader.cancel();
  await w.write('data: after\n\n');
  await w.close();
  const ac = new AbortController();
  const stopped = log.readable('1', { heartbeatMs: 0, signal: ac.signal });
  ac.abort();
  assert.deepEqual(await collect(stopped), []);
});

test('work per frame does not grow with the stream: frames read per reader and store calls stay linear', async () => {
  const work = async (n) => {
    const store = new MemorySseStore();
    let read = 0;
    let calls = 0;
    const counted = {
      append: (...a) => store.append(...a),
      finish: (...a) => store.finish(...a),
      wait: (...a) => store.wait(...a),
      read: (...a) => {
        calls++;
        const r = store.read(...a);
        read += r.frames.length;
        return r;
      },
    };
    const log = new SseLog(counted, { streamId: 'n' });
    const readers = [0, 1, 2].map((i) => collect(log.readable(null, { heartbeatMs: 0 })).then((c) => c.length + i * 0));
    const w = log.writable.getWriter();
    for (let i = 0; i < n; i++) {
      await w.write(`data: ${i}\n\n`);
      if (i % 7 === 0) await tick();
    }
    await w.close();
    await Promise.all(readers);
    return read + calls;
  };
  const base = await work(500);
  for (const k of [2, 4, 8]) {
    const w = await work(500 * k);
    assert.ok(w <= 1.5 * k * base, `${k}×: ${w} vs ${base}`);
  }
});
