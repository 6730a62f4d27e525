// SseLog's cost per frame, beside toSse alone: n routed events (answer deltas of 8-40
// characters, a tool call with streamed arguments every 50 events) written by toSse("ag-ui"),
//   (a) toSse alone, its bytes drained;
//   (b) toSse into an SseLog over MemorySseStore, with one reader draining log.readable() as
//       the frames are stored (what a live request costs);
//   (c) the same bytes POSTed to SseLogDurableObject in workerd (miniflare, Durable Object
//       storage in memory) and one reader GETting them from it, the time from the first byte
//       posted to the reader's last byte (every frame through a worker and the object).
// (c) needs the JS tests installed (tests/js: miniflare and the packed package,
// ./tests/js/setup-consumer.sh). A measurement, not a test: each variant checks the reader got
// every frame; nothing asserts a speed.
//
//   node log.mjs [--iterations N] [--frames N]

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { median } from './timing.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ITERATIONS = flag('--iterations', 7);
const FRAMES = flag('--frames', 20_000);

const ENTRY = process.env.STREAMROUTE_ENTRY ?? new URL('../pkg/dist/streamroute/node.js', import.meta.url).href;
const { MemorySseStore, SseLog, toSse } = await import(ENTRY);

function events(n) {
  const out = [];
  for (let i = 0; out.length < n; i++) {
    if (i % 50 === 49) {
      out.push({ type: 'tool_call_start', index: i, id: `call-${i}`, name: 'search' });
      out.push({ type: 'tool_call_delta', index: i, arguments: '{"q": "' });
      out.push({ type: 'tool_call_delta', index: i, arguments: `query ${i}"}` });
      out.push({ type: 'tool_call', index: i, id: `call-${i}`, name: 'search', arguments: { q: `query ${i}` }, repaired: false });
    } else out.push({ type: 'answer_delta', text: 'word '.repeat(2 + (i % 7)) });
  }
  out.push({ type: 'done', ok: true, parse_ok: true, finish_reason: 'stop' });
  return out;
}

const streamOf = (items) => {
  let i = 0;
  return new ReadableStream({ pull: (c) => (i < items.length ? c.enqueue(items[i++]) : c.close()) });
};

async function drain(readable) {
  let bytes = 0;
  const reader = readable.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
  return bytes;
}

const frameCount = (text) => text.split('\n\n').filter((b) => b.startsWith('id: ')).length;

const EVENTS = events(FRAMES);
const sse = () => streamOf(EVENTS).pipeThrough(toSse('ag-ui', { threadId: 't', runId: 'r', heartbeatMs: 0 }));
const WIRE = new Uint8Array(await new Response(sse()).arrayBuffer());
const N = frameCount(new TextDecoder().decode(WIRE));

async function alone() {
  const t = performance.now();
  await drain(sse());
  return performance.now() - t;
}

let round = 0;
async function memory() {
  const log = new SseLog(new MemorySseStore(), { streamId: `m${round++}`, maxBytes: 256 * 1024 * 1024 });
  const t = performance.now();
  const writing = sse().pipeTo(log.writable);
  const text = new TextDecoder().decode(new Uint8Array(await new Response(log.readable(null, { heartbeatMs: 0 })).arrayBuffer()));
  await writing;
  const ms = performance.now() - t;
  if (frameCount(text) !== N) throw new Error(`memory: ${frameCount(text)} frames of ${N}`);
  return ms;
}

async function durableObject() {
  const require = createRequire(join(fileURLToPath(new URL('../tests/js/', import.meta.url)), 'package.json'));
  const { Miniflare } = require('miniflare');
  const { bundleWorker, JS_DIR } = await import('../tests/js/helpers/runtimes.mjs');
  const root = join(JS_DIR, '.tmp', 'bench-log-bundle');
  const bundle = await bundleWorker(join(JS_DIR, 'worker', 'log-worker.js'), root);
  const mf = new Miniflare({
    modulesRoot: root,
    modules: bundle.modules,
    compatibilityDate: '2025-01-01',
    durableObjects: { LOG: 'SseLogDurableObject' },
  });
  await mf.ready;
  const run = async () => {
    const url = `http://log.test/?stream=do${round++}&maxBytes=${256 * 1024 * 1024}`;
    const t = performance.now();
    const posting = mf.dispatchFetch(url, { method: 'POST', body: WIRE });
    for (;;) {
      const { state } = await (await mf.dispatchFetch(`${url}&status`)).json();
      if (state !== 'unknown') break;
    }
    const text = await (await mf.dispatchFetch(url)).text();
    await (await posting).arrayBuffer();
    const ms = performance.now() - t;
    if (frameCount(text) !== N) throw new Error(`durable object: ${frameCount(text)} frames of ${N}`);
    return ms;
  };
  return { run, dispose: () => mf.dispose() };
}

const measure = async (fn) => {
  await fn();
  const times = [];
  for (let i = 0; i < ITERATIONS; i++) times.push(await fn());
  return median(times);
};

const rows = [
  ['toSse("ag-ui") alone', await measure(alone)],
  ['toSse + SseLog, MemorySseStore, one reader', await measure(memory)],
];
try {
  const d = await durableObject();
  rows.push(['toSse bytes → SseLogDurableObject (miniflare), one reader', await measure(d.run)]);
  await d.dispose();
} catch (err) {
  console.log(`(Durable Object variant skipped: ${err.message})`);
}
console.log(`${N} frames (${(WIRE.length / 1024).toFixed(0)} KiB), median of ${ITERATIONS}, node ${process.version}`);
console.log('| variant | total ms | µs per frame |');
console.log('| --- | --: | --: |');
for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(1)} | ${((ms * 1000) / N).toFixed(2)} |`);
