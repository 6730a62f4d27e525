// StreamState's fold: n small deltas (1-6 characters) folded into snapshots, at n = 10,000,
// 20,000 and 100,000, to show that the cost per delta stays flat (O(total text), no string or
// array rebuilt per delta), with a snapshot taken after every delta (what a UI re-rendering on
// every event asks for) and once at the end:
//   (a) answer text: `answer_delta`s
//   (b) tool arguments: one call whose argument string grows by `tool_call_delta`s (through
//       PartialJson, the partial value snapshotted)
//   (c) the same answer text through toSse("ai-sdk") → fromSse("ai-sdk") → StreamState
//   (d) peer: a fold that keeps the deltas in an array and joins them for every snapshot
//       (the O(n²) pattern), only up to 20,000 (100,000 takes minutes)
// and, in a second table, one tool call whose arguments are a flat object that gains one key
// per delta (`"k17":17`), a snapshot after every delta, at 1,000 to 8,000 keys.
// StreamState and fromSse come from 'streamroute/client', toSse from the main entry
// (STREAMROUTE_ENTRY=path/to/node.js takes all three from one build, to compare builds).
// A measurement, not a test: it checks that every variant ends with the right text and
// reports time per delta; nothing asserts a speed.
//
//   node client.mjs [--iterations N] [--json FILE]

import { writeFileSync } from 'node:fs';
import { mulberry32 } from './gen.mjs';
import { fullGc, median } from './timing.mjs';

const ENTRY = process.env.STREAMROUTE_ENTRY ? new URL(process.env.STREAMROUTE_ENTRY, `file://${process.cwd()}/`).href : null;
const { StreamState, fromSse } = await import(ENTRY ?? new URL('../pkg/dist/client/node.js', import.meta.url).href);
const { toSse } = await import(ENTRY ?? new URL('../pkg/dist/streamroute/node.js', import.meta.url).href);

const PIECES = ['the ', 'a', 'é', '日本', '😀', 'word', ' ', 'x\n', '"q"', '\\'];

function deltas(n) {
  const rand = mulberry32(0xc11e);
  return Array.from({ length: n }, () => PIECES[Math.floor(rand() * PIECES.length)]);
}

function foldAnswer(ds, every) {
  const s = new StreamState();
  for (const text of ds) {
    s.apply({ type: 'answer_delta', text });
    if (every) s.snapshot();
  }
  return s.snapshot().answer;
}

function foldArgs(ds, every) {
  const s = new StreamState();
  s.apply({ type: 'tool_call_start', index: 0, id: 'c', name: 'write' });
  s.apply({ type: 'tool_call_delta', index: 0, arguments: '{"text": "' });
  for (const d of ds) {
    s.apply({ type: 'tool_call_delta', index: 0, arguments: JSON.stringify(d).slice(1, -1) });
    if (every) s.snapshot();
  }
  const text = s.snapshot().toolCalls[0].partialArguments.text;
  s.free();
  return text;
}

function foldKeys(n) {
  const s = new StreamState();
  s.apply({ type: 'tool_call_start', index: 0, id: 'c', name: 'write' });
  s.apply({ type: 'tool_call_delta', index: 0, arguments: '{' });
  for (let i = 0; i < n; i++) {
    s.apply({ type: 'tool_call_delta', index: 0, arguments: `${i ? ',' : ''}"k${i}":${i}` });
    s.snapshot();
  }
  s.apply({ type: 'tool_call_delta', index: 0, arguments: '}' });
  const keys = Object.keys(s.snapshot().toolCalls[0].partialArguments).length;
  s.free();
  return keys;
}

async function viaWire(ds) {
  const events = ds.map((text) => ({ type: 'answer_delta', text }));
  let i = 0;
  const source = new ReadableStream({
    pull(c) {
      i < events.length ? c.enqueue(events[i++]) : c.close();
    },
  });
  const s = new StreamState();
  for await (const e of source.pipeThrough(toSse('ai-sdk', { heartbeatMs: 0 })).pipeThrough(fromSse('ai-sdk'))) s.apply(e);
  return s.snapshot().answer;
}

function naive(ds) {
  const parts = [];
  let snap = '';
  for (const d of ds) {
    parts.push(d);
    snap = parts.join('');
  }
  return snap;
}

async function time(f, iterations) {
  const gc = fullGc();
  const ms = [];
  let out;
  for (let i = 0; i < iterations; i++) {
    gc();
    const t0 = performance.now();
    out = await f();
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), out };
}

export async function runClientBench(argv) {
  let iterations = 3;
  let json = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--iterations') iterations = Number(argv[++i]);
    else if (argv[i] === '--json') json = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  const rows = [];
  let ok = true;
  console.log('| deltas | variant | snapshots | ms | ns per delta |');
  console.log('|--:|---|---|--:|--:|');
  for (const n of [10_000, 20_000, 100_000]) {
    const ds = deltas(n);
    const want = ds.join('');
    const variants = [
      ['(a) StreamState answer', 'every delta', () => foldAnswer(ds, true)],
      ['(a) StreamState answer', 'at the end', () => foldAnswer(ds, false)],
      ['(b) StreamState tool arguments (PartialJson)', 'every delta', () => foldArgs(ds, true)],
      ['(c) toSse → fromSse → StreamState', 'at the end', () => viaWire(ds)],
      ...(n <= 20_000 ? [['(d) peer: deltas joined per snapshot', 'every delta', () => naive(ds)]] : []),
    ];
    for (const [variant, snapshots, f] of variants) {
      const { ms, out } = await time(f, iterations);
      if (out !== want) {
        ok = false;
        console.log(`ERROR: ${variant} at ${n} deltas gave the wrong text`);
      }
      const ns = (ms * 1e6) / n;
      rows.push({ n, variant, snapshots, ms, nsPerDelta: ns });
      console.log(`| ${n.toLocaleString('en')} | ${variant} | ${snapshots} | ${ms.toFixed(1)} | ${ns.toFixed(0)} |`);
    }
  }
  console.log('\n| keys | variant | snapshots | ms | ns per key |');
  console.log('|--:|---|---|--:|--:|');
  for (const n of [1000, 2000, 4000, 8000]) {
    const { ms, out } = await time(() => foldKeys(n), iterations);
    if (out !== n) {
      ok = false;
      console.log(`ERROR: ${n} keys gave ${out}`);
    }
    const ns = (ms * 1e6) / n;
    rows.push({ n, variant: '(e) tool arguments, one key per delta', snapshots: 'every delta', ms, nsPerDelta: ns });
    console.log(
      `| ${n.toLocaleString('en')} | (e) tool arguments, one key per delta | every delta | ${ms.toFixed(1)} | ${ns.toFixed(0)} |`,
    );
  }
  if (json) writeFileSync(json, JSON.stringify(rows, null, 2));
  return { ok, rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ok } = await runClientBench(process.argv.slice(2));
  if (!ok) process.exit(1);
}
