// SSE decoding throughput: streamroute's SseDecoder against eventsource-parser, in one process
// and one run, over the ~5 MB OpenAI-style stream of gen.mjs, at chunk sizes of 64 B and 4 KiB.
//
//   (a) streamroute  SseDecoder.feed(string)       string chunks
//   (b) eventsource-parser feed(string)            the same string chunks
//   (c) streamroute  SseDecoder.feed(Uint8Array)   byte chunks
//   (d) TextDecoder.decode(chunk, {stream: true}) + eventsource-parser   the same byte chunks
//
// A measurement, not a test: nothing here asserts a speed. The one check is correctness: every
// variant must deliver every event of the generator with all its data (event count and total
// UTF-16 length of `data`), else this prints an ERROR and exits 1.
//
//   node sse.mjs [--iterations N] [--warmup-ms MS] [--sizes 64,4096] [--json FILE]
//
// Timing: every (chunk size, variant) first runs for at least --warmup-ms (default 1500 ms,
// and at least 3 runs) so that V8 has tiered up both the JS and the wasm (Liftoff -> TurboFan
// takes a few hundred ms to seconds here); then --iterations rounds (default 15) run the four
// variants interleaved, each after a full gc(), and the median is reported with the range.

import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createParser } from 'eventsource-parser';

// The built package by default; STREAMROUTE_ENTRY=/path/to/dist/streamroute/node.js measures another
// build (a branch, an experiment) against the same peers.
const ENTRY = process.env.STREAMROUTE_ENTRY
  ? new URL(process.env.STREAMROUTE_ENTRY, `file://${process.cwd()}/`).href
  : new URL('../pkg/dist/streamroute/node.js', import.meta.url).href;
const { SseDecoder } = await import(ENTRY);
import { generateStream, chunkStream } from './gen.mjs';
import { fullGc, median } from './timing.mjs';

function parseArgs(argv) {
  const o = { iterations: 15, warmupMs: 1500, sizes: [64, 4096], json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--iterations') o.iterations = Number(argv[++i]);
    else if (a === '--warmup-ms') o.warmupMs = Number(argv[++i]);
    else if (a === '--sizes') o.sizes = argv[++i].split(',').map(Number);
    else if (a === '--json') o.json = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

// Each variant decodes the whole stream once with a fresh decoder and returns
// [events, total data length] so the work cannot be optimised away and can be compared.

function streamrouteRun(chunks) {
  const d = new SseDecoder();
  let n = 0;
  let len = 0;
  for (let i = 0; i < chunks.length; i++) {
    const evs = d.feed(chunks[i]);
    for (let k = 0; k < evs.length; k++) len += evs[k].data.length;
    n += evs.length;
  }
  const evs = d.finish();
  for (let k = 0; k < evs.length; k++) len += evs[k].data.length;
  n += evs.length;
  d.free();
  return [n, len];
}

function parserRun(chunks) {
  let n = 0;
  let len = 0;
  const p = createParser({
    onEvent(ev) {
      n++;
      len += ev.data.length;
    },
  });
  for (let i = 0; i < chunks.length; i++) p.feed(chunks[i]);
  return [n, len];
}

function textDecoderParserRun(chunks) {
  let n = 0;
  let len = 0;
  const p = createParser({
    onEvent(ev) {
      n++;
      len += ev.data.length;
    },
  });
  const td = new TextDecoder('utf-8');
  for (let i = 0; i < chunks.length; i++) p.feed(td.decode(chunks[i], { stream: true }));
  const rest = td.decode();
  if (rest) p.feed(rest);
  return [n, len];
}

const VARIANTS = [
  { key: 'a', input: 'string', lib: 'streamroute', label: 'streamroute feed(string)', fn: streamrouteRun },
  { key: 'b', input: 'string', lib: 'peer', label: 'eventsource-parser feed(string)', fn: parserRun },
  { key: 'c', input: 'bytes', lib: 'streamroute', label: 'streamroute feed(Uint8Array)', fn: streamrouteRun },
  { key: 'd', input: 'bytes', lib: 'peer', label: 'TextDecoder + eventsource-parser', fn: textDecoderParserRun },
];

/**
 * Runs the SSE comparison and prints a markdown table.
 * @returns {Promise<{ ok: boolean, results: object[] }>}
 */
export async function runSseBench(argv = []) {
  const opts = parseArgs(argv);
  const gc = fullGc();
  const stream = generateStream();
  const total = stream.bytes.length;
  const MB = total / 1e6;
  console.log(
    `stream: ${total} bytes (${MB.toFixed(2)} MB), ${stream.text.length} UTF-16 units, ` +
      `${stream.events} events; warm-up >= ${opts.warmupMs} ms per variant, median of ${opts.iterations} runs, minor gc() before each`,
  );
  const load0 = loadavg()[0];

  const results = [];
  let ok = true;
  for (const size of opts.sizes) {
    const { byteChunks, stringChunks } = chunkStream(stream, size);
    const inputOf = (v) => (v.input === 'string' ? stringChunks : byteChunks);
    const times = new Map(VARIANTS.map((v) => [v.key, []]));
    const seen = new Map();
    // Correctness, not timing: every run of every variant must deliver all the events with all
    // their data, as the generator wrote them.
    const check = (v, [n, len]) => {
      seen.set(v.key, n);
      if (n === stream.events && len === stream.dataUnits) return;
      if (!ok) return;
      console.error(
        `ERROR: ${v.label} at ${size} B chunks saw ${n} events / ${len} data units; ` +
          `expected ${stream.events} events / ${stream.dataUnits} data units`,
      );
      ok = false;
    };

    // Warm-up, then timed rounds interleaving the variants so that drift on the machine
    // (other load, tier-up, GC state) hits all of them alike.
    for (const v of VARIANTS) {
      const t0 = performance.now();
      for (let i = 0; i < 3 || performance.now() - t0 < opts.warmupMs; i++) check(v, v.fn(inputOf(v)));
    }
    for (let r = 0; r < opts.iterations; r++) {
      for (const v of VARIANTS) {
        const chunks = inputOf(v);
        gc({ type: 'minor' }); // a full gc() slows the next wasm run 3-4x (see json.mjs timeRun)
        const t0 = process.hrtime.bigint();
        const res = v.fn(chunks);
        const t1 = process.hrtime.bigint();
        times.get(v.key).push(Number(t1 - t0) / 1e9);
        check(v, res);
      }
    }

    for (const v of VARIANTS) {
      const n = seen.get(v.key);
      const t = times.get(v.key);
      const sec = median(t);
      results.push({
        size,
        chunks: byteChunks.length,
        variant: v.key,
        label: v.label,
        input: v.input,
        lib: v.lib,
        events: n,
        seconds: sec,
        mbps: MB / sec,
        minMbps: MB / Math.max(...t),
        maxMbps: MB / Math.min(...t),
        nsPerFeed: (sec * 1e9) / byteChunks.length,
      });
    }
  }

  printTable(results, opts);
  const load1 = loadavg()[0];
  console.log(
    `1-min load average: ${load0.toFixed(2)} before, ${load1.toFixed(2)} after` +
      (Math.max(load0, load1) > 1.2 ? ' (other work was running: expect wide ranges)' : ''),
  );
  if (opts.json) {
    writeFileSync(
      opts.json,
      JSON.stringify(
        { date: new Date().toISOString(), node: process.version, entry: ENTRY, bytes: total, events: stream.events, results },
        null,
        2,
      ),
    );
  }
  return { ok, results };
}

function printTable(results, opts) {
  const get = (size, key) => results.find((r) => r.size === size && r.variant === key);
  const fmt = (x) => x.toFixed(1);
  const sizeLabel = (s) => (s >= 1024 && s % 1024 === 0 ? `${s / 1024} KiB` : `${s} B`);
  console.log('');
  console.log('| chunk | input | feeds | streamroute MB/s | peer | peer MB/s | streamroute / peer | (best runs) |');
  console.log('|---|---|--:|--:|---|--:|--:|--:|');
  for (const size of opts.sizes) {
    for (const [input, sr, peer] of [
      ['string', 'a', 'b'],
      ['bytes', 'c', 'd'],
    ]) {
      const a = get(size, sr);
      const b = get(size, peer);
      const peerName = input === 'string' ? 'eventsource-parser' : 'TextDecoder + eventsource-parser';
      console.log(
        `| ${sizeLabel(size)} | ${input} | ${a.chunks} | ${fmt(a.mbps)} (${fmt(a.minMbps)}–${fmt(a.maxMbps)}) | ${peerName} | ` +
          `${fmt(b.mbps)} (${fmt(b.minMbps)}–${fmt(b.maxMbps)}) | **${(a.mbps / b.mbps).toFixed(2)}×** | ${(a.maxMbps / b.maxMbps).toFixed(2)}× |`,
      );
    }
  }
  console.log('');
  console.log(
    'Per feed (median): ' + results.map((r) => `${r.variant}@${sizeLabel(r.size)} ${(r.nsPerFeed / 1000).toFixed(2)} µs`).join(', '),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ok } = await runSseBench(process.argv.slice(2));
  if (!ok) process.exit(1);
}
