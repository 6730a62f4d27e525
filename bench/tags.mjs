// Nonce-tag streaming from JS, in one process and one run: streamroute's TagFilter against a
// straightforward JS implementation of the same contract (tags-js.mjs: a string buffer with
// `indexOf` on the markers), on ~1 MB tagged responses fed as 4-byte and 4 KiB chunks.
//
//   (a) streamroute  TagFilter.feed(string)
//   (b) JS indexOf   JsTagFilter.feed(string)
//   (c) streamroute  TagFilter.feed(Uint8Array)
//   (d) JS indexOf   TextDecoder({stream}) + JsTagFilter.feed(string)
//
// Responses: `[ARTIFACT:<nonce>]…[/ARTIFACT:<nonce>]\n[USER:<nonce>]…[/USER:<nonce>]` with
// ~1 MB of artifact text: "prose" is markdown-like ASCII with brackets, links, JSON arrays and
// markers of other nonces; "mixed" adds CJK, emoji and Latin-1 letters.
//
// A measurement, not a test: nothing asserts a speed. Every run of every variant must give
// the artifact and user text the generator wrote and parse_ok; otherwise ERROR and exit 1.
// Chunks as sse.mjs (gen.mjs chunkStream): byte chunks of exactly N bytes, and the string
// chunks a streaming TextDecoder would give for them. Timing as sse.mjs: warm-up, then rounds
// interleaving the variants, a minor GC before each run, median (range in the table), and
// the ratio of the best runs too (the machine may be shared).
//
//   node tags.mjs [--sizes 4,4096] [--docs prose,mixed] [--iterations N] [--warmup-ms MS] [--json FILE]

import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chunkStream, mulberry32 } from './gen.mjs';
import { fullGc, median } from './timing.mjs';
import { JsTagFilter } from './tags-js.mjs';

const ENTRY = process.env.STREAMROUTE_ENTRY
  ? new URL(process.env.STREAMROUTE_ENTRY, `file://${process.cwd()}/`).href
  : new URL('../pkg/dist/streamroute/node.js', import.meta.url).href;
const { TagFilter } = await import(ENTRY);

export const TAGS_SEED = 0x7a65_0005;
const NONCE = '3f9a1c7e5b2d4f608a1e3c5b7d9f2a4c';
const PROSE = [
  ' the',
  ' a',
  ' of',
  ' and',
  ' to',
  ' in',
  ' is',
  ' plan',
  ' step',
  ' artifact',
  ' user',
  ' section',
  ' revenue',
  ' table',
  ' data',
  ' model',
  '.',
  ',',
  ':',
  '\n',
  '\n\n',
  '- ',
  '## ',
  ' **bold**',
  ' `code`',
  ' [link](https://example.com/x)',
  ' [1, 2, 3]',
  ' a[i]',
  ' [ ]',
  ' [/ARTIFACT:0000]',
  ' [USER:x]',
  ' (see below)',
  ' "quoted"',
  ' 42',
  ' 2026',
];
const WIDE = ['中文', '的一是不了', '😀', '🚀', 'ü', 'ñ', 'ç', 'é', '👩‍💻'];

function makeText(rand, target, mixed) {
  const parts = [];
  let n = 0;
  while (n < target) {
    const p = mixed && rand() < 0.15 ? WIDE[Math.floor(rand() * WIDE.length)] : PROSE[Math.floor(rand() * PROSE.length)];
    parts.push(p);
    n += Buffer.byteLength(p);
  }
  return parts.join('');
}

export function generateResponse(kind, bytes = 1_000_000) {
  const rand = mulberry32(TAGS_SEED ^ (kind === 'mixed' ? 1 : 0));
  const artifact = makeText(rand, bytes - 2_000, kind === 'mixed');
  const user = makeText(rand, 1_500, kind === 'mixed');
  const text = `[ARTIFACT:${NONCE}]${artifact}[/ARTIFACT:${NONCE}]\n[USER:${NONCE}]${user}[/USER:${NONCE}]\n`;
  return { text, bytes: new TextEncoder().encode(text), artifact, user };
}

function collect(deltas, acc) {
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i];
    if (d.type === 'artifact_delta') acc.a.push(d.text);
    else acc.u.push(d.text);
  }
}

function runStreamroute(chunks) {
  const f = new TagFilter(NONCE);
  const acc = { a: [], u: [] };
  for (let i = 0; i < chunks.length; i++) collect(f.feed(chunks[i]), acc);
  const r = f.finish();
  collect(r.deltas, acc);
  return { acc, parseOk: r.parse_ok };
}

// The same for byte chunks: a separate function, as the peer has (runJs / runJsBytes), so
// that neither side's call sites see both input kinds.
function runStreamrouteBytes(chunks) {
  const f = new TagFilter(NONCE);
  const acc = { a: [], u: [] };
  for (let i = 0; i < chunks.length; i++) collect(f.feed(chunks[i]), acc);
  const r = f.finish();
  collect(r.deltas, acc);
  return { acc, parseOk: r.parse_ok };
}

function runJs(chunks) {
  const f = new JsTagFilter(NONCE);
  const acc = { a: [], u: [] };
  for (let i = 0; i < chunks.length; i++) collect(f.feed(chunks[i]), acc);
  const r = f.finish();
  collect(r.deltas, acc);
  return { acc, parseOk: r.parse_ok };
}

function runJsBytes(chunks) {
  const dec = new TextDecoder('utf-8', { ignoreBOM: true });
  const f = new JsTagFilter(NONCE);
  const acc = { a: [], u: [] };
  for (let i = 0; i < chunks.length; i++) collect(f.feed(dec.decode(chunks[i], { stream: true })), acc);
  collect(f.feed(dec.decode()), acc);
  const r = f.finish();
  collect(r.deltas, acc);
  return { acc, parseOk: r.parse_ok };
}

const VARIANTS = [
  { key: 'a', input: 'string', lib: 'streamroute', label: 'streamroute TagFilter.feed(string)', fn: runStreamroute },
  { key: 'b', input: 'string', lib: 'peer', label: 'JS indexOf feed(string)', fn: runJs },
  { key: 'c', input: 'bytes', lib: 'streamroute', label: 'streamroute TagFilter.feed(Uint8Array)', fn: runStreamrouteBytes },
  { key: 'd', input: 'bytes', lib: 'peer', label: 'TextDecoder + JS indexOf', fn: runJsBytes },
];

function parseArgs(argv) {
  const o = { sizes: [4, 4096], docs: ['prose', 'mixed'], iterations: 7, warmupMs: 300, json: null };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (argv[i] === '--sizes') {
      o.sizes = v.split(',').map(Number);
      i++;
    } else if (argv[i] === '--docs') {
      o.docs = v.split(',');
      i++;
    } else if (argv[i] === '--iterations') {
      o.iterations = Number(v);
      i++;
    } else if (argv[i] === '--warmup-ms') {
      o.warmupMs = Number(v);
      i++;
    } else if (argv[i] === '--json') {
      o.json = v;
      i++;
    }
  }
  return o;
}

/** Runs the comparison and prints a markdown table. */
export async function runTagsBench(argv = []) {
  const opts = parseArgs(argv);
  const gc = fullGc();
  const load0 = loadavg()[0];
  const results = [];
  let ok = true;
  for (const kind of opts.docs) {
    const doc = generateResponse(kind);
    const MB = doc.bytes.length / 1e6;
    console.log(`response "${kind}": ${doc.bytes.length} bytes, ${doc.text.length} UTF-16 units`);
    for (const size of opts.sizes) {
      const { byteChunks, stringChunks } = chunkStream(doc, size);
      const inputOf = (v) => (v.input === 'string' ? stringChunks : byteChunks);
      const check = (v, { acc, parseOk }) => {
        if (!ok) return;
        if (parseOk && acc.a.join('') === doc.artifact && acc.u.join('') === doc.user) return;
        console.error(`ERROR: ${v.label} on "${kind}" at ${size} B chunks did not give the generated blocks`);
        ok = false;
      };
      const times = new Map(VARIANTS.map((v) => [v.key, []]));
      for (const v of VARIANTS) {
        const t0 = performance.now();
        for (let i = 0; i < 2 || performance.now() - t0 < opts.warmupMs; i++) check(v, v.fn(inputOf(v)));
      }
      for (let r = 0; r < opts.iterations; r++) {
        for (const v of VARIANTS) {
          const chunks = inputOf(v);
          gc({ type: 'minor' });
          const t0 = process.hrtime.bigint();
          const res = v.fn(chunks);
          const t1 = process.hrtime.bigint();
          times.get(v.key).push(Number(t1 - t0) / 1e9);
          check(v, res);
        }
      }
      for (const v of VARIANTS) {
        const t = times.get(v.key);
        const sec = median(t);
        results.push({
          doc: kind,
          size,
          chunks: byteChunks.length,
          variant: v.key,
          label: v.label,
          input: v.input,
          lib: v.lib,
          seconds: sec,
          mbps: MB / sec,
          minMbps: MB / Math.max(...t),
          maxMbps: MB / Math.min(...t),
        });
      }
    }
  }
  printTable(results);
  const load1 = loadavg()[0];
  console.log(
    `1-min load average: ${load0.toFixed(2)} before, ${load1.toFixed(2)} after` +
      (Math.max(load0, load1) > 1.2 ? ' (other work was running: expect wide ranges)' : ''),
  );
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2));
  return { ok, results };
}

function printTable(results) {
  console.log('');
  console.log('| response | chunk | variant | MB/s median | range | vs JS peer (median) | vs JS peer (best runs) |');
  console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    const peer = results.find((p) => p.doc === r.doc && p.size === r.size && p.input === r.input && p.lib === 'peer');
    const ratio = (x, y) => (r.lib === 'peer' ? '1.00×' : `${(x / y).toFixed(2)}×`);
    console.log(
      `| ${r.doc} | ${r.size} B | (${r.variant}) ${r.label} | ${r.mbps.toFixed(0)} | ` +
        `${r.minMbps.toFixed(0)}–${r.maxMbps.toFixed(0)} | ${ratio(r.mbps, peer.mbps)} | ${ratio(r.maxMbps, peer.maxMbps)} |`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ok } = await runTagsBench(process.argv.slice(2));
  if (!ok) process.exit(1);
}
