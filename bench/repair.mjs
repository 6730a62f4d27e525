// JSON repair and action normalisation from JS, in one process and one run:
//
//   (r1) streamroute  repairJson(text)
//   (r2) jsonrepair   jsonrepair(text)  (npm, the JavaScript reference for repair)
//   (n1) streamroute  normalizeAction(text)
//   (n2) JS baseline  strip a markdown fence (or cut from the first "{" to the last "}"), then
//                     JSON.parse: what apps do before they reach for a repair library
//
// Documents, all generated from a fixed seed (no Math.random):
// - "broken N KB": one big model-written document of ~N KB: a ```json fence around an object
//   with `//` and `/* */` comments (jsonrepair takes no `#` comments and no prose, so none here), single-quoted keys and strings, trailing commas in every
//   object and array, Python `True`/`None` (500 KB and 1 MB; the pair shows the scaling).
// - "2 KB outputs": 64 model outputs of ~2 KB, each broken in one or two of the ways models
//   break JSON (fence, prose around it, comments, single quotes, unquoted keys, Python
//   literals, trailing commas, a truncated end, a missing comma). Outputs jsonrepair throws
//   on are timed for streamroute but left out of the ratio.
// - "2 KB actions": 64 planner actions of ~2 KB (fenced, prose-wrapped, `<think>`-prefixed,
//   plain) for normalizeAction against the strip-fence + JSON.parse baseline.
//
// Checks, outside the timed region: every repairJson output must parse and equal the value the
// generator wrote (the broken documents) or jsonrepair's value where jsonrepair succeeds (the
// 2 KB outputs; disagreements are counted and listed); normalizeAction must give the generated
// next_node and answer. A failed check prints ERROR and makes the run exit 1. Speed is
// reported, never asserted.
//
//   node repair.mjs [--iterations N] [--quadratic-max-ms MS] [--json FILE]

import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { jsonrepair } from 'jsonrepair';
import { mulberry32 } from './gen.mjs';
import { fullGc, median } from './timing.mjs';

const ENTRY = process.env.STREAMROUTE_ENTRY
  ? new URL(process.env.STREAMROUTE_ENTRY, `file://${process.cwd()}/`).href
  : new URL('../pkg/dist/streamroute/node.js', import.meta.url).href;
const { repairJson, normalizeAction } = await import(ENTRY);

const SEED = 0x5eed_4444;
const WORDS = [
  'revenue',
  'region',
  'EMEA',
  'APAC',
  'growth',
  'quarter',
  'users',
  'churn',
  'forecast',
  'table',
  'chart',
  'model',
  'token',
  'stream',
  'café',
  'naïve',
  '数据',
  '分析',
  'résumé',
  'ok 👍',
  'Zürich',
];
const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const words = (rand, n) => Array.from({ length: n }, () => pick(rand, WORDS)).join(' ');

// ---------------------------------------------------------------------------------------------
// The big broken document

/** One record as [value, broken text]. */
function record(rand, i) {
  const value = {
    id: i,
    name: words(rand, 2),
    tags: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(rand, WORDS)),
    score: Math.round(rand() * 10000) / 100,
    active: rand() < 0.5,
    parent: null,
    note: words(rand, 4),
  };
  const sq = (s) => `'${s}'`;
  const comment = rand() < 0.3 ? ` // record ${i}` : '';
  const text =
    `    { 'id': ${value.id}, 'name': ${sq(value.name)}, /* tags */ 'tags': [${value.tags.map(sq).join(', ')},], ` +
    `'score': ${value.score}, 'active': ${value.active ? 'True' : 'False'}, 'parent': None, ` +
    `note: ${sq(value.note)}, },${comment}\n`;
  return [value, text];
}

export function brokenDocument(targetBytes, seed = SEED) {
  const rand = mulberry32(seed);
  const records = [];
  let body = '';
  while (Buffer.byteLength(body) < targetBytes - 200) {
    const [v, t] = record(rand, records.length);
    records.push(v);
    body += t;
  }
  const value = { source: 'export', records, total: records.length };
  const text =
    "```json\n{\n  // generated export\n  'source': 'export',\n" +
    `  'records': [\n${body}  ],\n  'total': ${records.length}, /* count */\n}\n\`\`\`\n`;
  return { text, value, bytes: Buffer.byteLength(text) };
}

// ---------------------------------------------------------------------------------------------
// The 2 KB outputs and actions

const BREAKS = [
  ['fence', (t) => '```json\n' + t + '\n```'],
  ['prose', (t) => 'Sure! Here is the JSON:\n' + t + '\nLet me know if you need more.'],
  ['comments', (t) => t.replace(/,\n/g, ', // note\n')],
  ['single quotes', (t) => t.replace(/"/g, "'")],
  ['unquoted keys', (t) => t.replace(/"([a-z_]+)":/g, '$1:')],
  [
    'python literals',
    (t) =>
      t
        .replace(/\btrue\b/g, 'True')
        .replace(/\bfalse\b/g, 'False')
        .replace(/\bnull\b/g, 'None'),
  ],
  ['trailing commas', (t) => t.replace(/\n(\s*)([}\]])/g, ',\n$1$2')],
  ['truncated', (t) => t.slice(0, Math.floor(t.length * 0.9))],
  ['missing comma', (t) => t.replace(/,\n/, '\n')],
];

function smallValue(rand, targetBytes) {
  const items = [];
  const v = { title: words(rand, 3), ok: true, missing: null, items };
  while (JSON.stringify(v, null, 2).length < targetBytes) {
    items.push({ name: words(rand, 2), value: Math.round(rand() * 1e4) / 100, flag: rand() < 0.5, note: words(rand, 6) });
  }
  return v;
}

export function smallOutputs(n = 64, seed = SEED + 1) {
  const rand = mulberry32(seed);
  const out = [];
  for (let i = 0; i < n; i++) {
    const value = smallValue(rand, 1900);
    let text = JSON.stringify(value, null, 2);
    const kinds = [];
    const a = BREAKS[i % BREAKS.length];
    text = a[1](text);
    kinds.push(a[0]);
    if (i % 3 === 0) {
      const b = BREAKS[(i * 7 + 3) % BREAKS.length];
      if (b[0] !== a[0] && b[0] !== 'truncated' && a[0] !== 'truncated') {
        text = b[1](text);
        kinds.push(b[0]);
      }
    }
    out.push({ text, value, kinds });
  }
  return out;
}

export function smallActions(n = 64, seed = SEED + 2) {
  const rand = mulberry32(seed);
  const out = [];
  for (let i = 0; i < n; i++) {
    let answer = '';
    while (Buffer.byteLength(answer) < 1700) answer += words(rand, 8) + (rand() < 0.2 ? '.\n' : '. ');
    const final = i % 2 === 0;
    const action = final
      ? { next_node: 'final_response', args: { answer, confidence: 0.8 } }
      : { next_node: 'search_docs', args: { query: answer.slice(0, 1500), top_k: 5 } };
    const json = JSON.stringify(action, null, i % 4 < 2 ? 2 : undefined);
    const wrap = [
      (j) => j,
      (j) => '```json\n' + j + '\n```',
      (j) => 'I will answer now.\n\n```json\n' + j + '\n```\nDone.',
      (j) => '<think>The user wants a summary; no tool needed.</think>\n' + j,
    ][i % 4];
    out.push({ text: wrap(json), nextNode: action.next_node, answer: final ? answer : null });
  }
  return out;
}

/** The JS baseline: strip a fence (or cut to the outer braces), then JSON.parse. */
export function baselineParse(text) {
  const fence = /```[a-zA-Z]*\s*\n([\s\S]*?)```/.exec(text);
  let body = fence ? fence[1] : text;
  if (!fence) {
    const a = body.indexOf('{');
    const b = body.lastIndexOf('}');
    if (a >= 0 && b > a) body = body.slice(a, b + 1);
  }
  return JSON.parse(body);
}

// ---------------------------------------------------------------------------------------------
// Timing

function minorGc() {
  const gc = fullGc();
  return () => gc({ type: 'minor' });
}
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** Times `fn` `iterations` times (interleaving is done by the caller); median ms per call. */
function sample(fn, gc, reps = 1) {
  gc();
  const t0 = now();
  for (let i = 0; i < reps; i++) fn();
  return (now() - t0) / reps;
}

function parseArgs(argv) {
  const o = { iterations: 11, quadraticMaxMs: 30_000, json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--iterations') o.iterations = Number(argv[++i]);
    else if (a === '--quadratic-max-ms') o.quadraticMaxMs = Number(argv[++i]);
    else if (a === '--json') o.json = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

const mbps = (bytes, ms) => bytes / 1e6 / (ms / 1e3);
const fmt = (x, d = 1) => (x >= 100 ? x.toFixed(0) : x.toFixed(d));

/**
 * Runs the repair comparison and prints markdown tables.
 * @returns {Promise<{ ok: boolean, results: object }>}
 */
export async function runRepairBench(argv = []) {
  const opts = parseArgs(argv);
  const gc = minorGc();
  const load0 = loadavg()[0];
  let ok = true;
  const fail = (msg) => {
    console.error(`ERROR: ${msg}`);
    ok = false;
  };
  const results = {};

  // --- The big documents.
  const big = [500_000, 1_000_000].map((n) => brokenDocument(n));
  for (const d of big) {
    const got = JSON.parse(repairJson(d.text));
    if (JSON.stringify(got) !== JSON.stringify(d.value)) fail(`repairJson on the ${d.bytes} B document: value differs`);
  }
  // Warm-up (tier the wasm up).
  for (let t0 = now(); now() - t0 < 1500; ) repairJson(big[0].text);

  const rows = [];
  for (const d of big) {
    const sr = [];
    for (let i = 0; i < opts.iterations; i++) sr.push(sample(() => repairJson(d.text), gc));
    rows.push({ bytes: d.bytes, sr: median(sr), srMin: Math.min(...sr), srMax: Math.max(...sr) });
  }
  // jsonrepair is quadratic on these documents: a single run each, the smaller one first; the
  // larger one only when the smaller one suggests it fits the budget (x4 for quadratic).
  for (const r of rows) {
    const d = big.find((x) => x.bytes === r.bytes);
    const prev = rows[0].jr;
    if (r !== rows[0] && prev !== undefined && prev * 4 > opts.quadraticMaxMs) {
      r.jr = undefined;
      continue;
    }
    let out;
    r.jr = sample(() => (out = jsonrepair(d.text)), gc);
    if (JSON.stringify(JSON.parse(out)) !== JSON.stringify(d.value)) {
      console.log(`note: jsonrepair's value for the ${d.bytes} B document differs from the generated one`);
    }
  }
  results.big = rows;
  console.log(
    `broken documents: fenced, // and /* */ comments, single quotes, trailing commas, Python literals; streamroute median of ${opts.iterations} runs, jsonrepair one run`,
  );
  console.log('');
  console.log('| document | streamroute repairJson | MB/s | jsonrepair | MB/s | streamroute / jsonrepair |');
  console.log('|---|--:|--:|--:|--:|--:|');
  for (const r of rows) {
    const jr = r.jr === undefined ? 'skipped' : `${fmt(r.jr)} ms`;
    const jrm = r.jr === undefined ? '' : fmt(mbps(r.bytes, r.jr));
    const ratio = r.jr === undefined ? '' : `**${fmt(r.jr / r.sr)}×**`;
    console.log(
      `| ${(r.bytes / 1e6).toFixed(2)} MB | ${fmt(r.sr)} ms (${fmt(r.srMin)}–${fmt(r.srMax)}) | ${fmt(mbps(r.bytes, r.sr))} | ${jr} | ${jrm} | ${ratio} |`,
    );
  }
  const scaling = rows[1].sr / rows[0].sr;
  results.scaling = scaling;
  console.log('');
  console.log(
    `scaling: time(1 MB) / time(500 KB) = ${scaling.toFixed(2)} (linear ≈ 2.0; target ≤ 2.5)` +
      (rows[0].jr !== undefined && rows[1].jr !== undefined ? `; jsonrepair ${(rows[1].jr / rows[0].jr).toFixed(2)}` : ''),
  );

  // --- 2 KB outputs.
  const outs = smallOutputs();
  let jrOk = 0;
  const disagree = [];
  for (const o of outs) {
    const srText = repairJson(o.text);
    const srValue = JSON.parse(srText);
    try {
      o.jr = JSON.parse(jsonrepair(o.text));
      jrOk++;
      if (JSON.stringify(o.jr) !== JSON.stringify(srValue)) disagree.push(o.kinds.join('+'));
    } catch {
      o.jr = undefined;
    }
    if (!o.kinds.includes('truncated') && !o.kinds.includes('missing comma') && JSON.stringify(srValue) !== JSON.stringify(o.value)) {
      fail(`repairJson on a 2 KB output (${o.kinds.join('+')}): value differs from the generated one`);
    }
  }
  const both = outs.filter((o) => o.jr !== undefined).map((o) => o.text);
  const all = outs.map((o) => o.text);
  const bytesBoth = both.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const bytesAll = all.reduce((n, t) => n + Buffer.byteLength(t), 0);
  for (let t0 = now(); now() - t0 < 500; ) {
    for (const t of both) repairJson(t), jsonrepair(t);
  }
  const s1 = [],
    s2 = [],
    s3 = [];
  const reps = 20;
  for (let i = 0; i < opts.iterations; i++) {
    s1.push(
      sample(
        () => {
          for (const t of both) repairJson(t);
        },
        gc,
        reps,
      ),
    );
    s2.push(
      sample(
        () => {
          for (const t of both) jsonrepair(t);
        },
        gc,
        reps,
      ),
    );
    s3.push(
      sample(
        () => {
          for (const t of all) repairJson(t);
        },
        gc,
        reps,
      ),
    );
  }
  const [m1, m2, m3] = [median(s1), median(s2), median(s3)];
  results.small = { outputs: outs.length, both: both.length, srMs: m1, jrMs: m2, srAllMs: m3, disagree };
  console.log('');
  console.log(
    `2 KB outputs: ${outs.length} generated; jsonrepair repairs ${jrOk}${jrOk < outs.length ? ' (throws on the others)' : ''}, ` +
      `its value differs from streamroute's on ${disagree.length}${disagree.length ? ` (${[...new Set(disagree)].join(', ')})` : ''}`,
  );
  console.log('');
  console.log('| set | outputs | streamroute | µs / output | MB/s | jsonrepair | µs / output | MB/s | streamroute / jsonrepair |');
  console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|');
  console.log(
    `| both repair | ${both.length} | ${fmt(m1, 2)} ms | ${fmt((m1 * 1e3) / both.length)} | ${fmt(mbps(bytesBoth, m1))} | ${fmt(m2, 2)} ms | ${fmt((m2 * 1e3) / both.length)} | ${fmt(mbps(bytesBoth, m2))} | **${fmt(m2 / m1, 2)}×** |`,
  );
  console.log(
    `| all (incl. prose) | ${all.length} | ${fmt(m3, 2)} ms | ${fmt((m3 * 1e3) / all.length)} | ${fmt(mbps(bytesAll, m3))} | | | | |`,
  );

  // --- normalizeAction on 2 KB actions.
  const acts = smallActions();
  let baseOk = 0;
  for (const a of acts) {
    const got = normalizeAction(a.text);
    if (got.next_node !== a.nextNode) fail(`normalizeAction: next_node ${got.next_node} instead of ${a.nextNode}`);
    if (a.answer !== null && got.args.answer !== a.answer) fail('normalizeAction: answer differs');
    try {
      if (baselineParse(a.text).next_node === a.nextNode) baseOk++;
    } catch {
      /* counted as a miss */
    }
  }
  const texts = acts.map((a) => a.text);
  const bytesActs = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const baseline = (t) => {
    try {
      return baselineParse(t);
    } catch {
      return null;
    }
  };
  for (let t0 = now(); now() - t0 < 500; ) for (const t of texts) normalizeAction(t), baseline(t);
  const a1 = [],
    a2 = [];
  for (let i = 0; i < opts.iterations; i++) {
    a1.push(
      sample(
        () => {
          for (const t of texts) normalizeAction(t);
        },
        gc,
        reps,
      ),
    );
    a2.push(
      sample(
        () => {
          for (const t of texts) baseline(t);
        },
        gc,
        reps,
      ),
    );
  }
  const [n1, n2] = [median(a1), median(a2)];
  results.actions = { actions: acts.length, srMs: n1, baseMs: n2, baseOk };
  console.log('');
  console.log(
    `2 KB actions: ${acts.length} (plain, fenced, prose + fence, <think> + JSON); the baseline gets ${baseOk} right (normalizeAction ${acts.length})`,
  );
  console.log('');
  console.log('| | per action | MB/s | streamroute / baseline |');
  console.log('|---|--:|--:|--:|');
  console.log(
    `| streamroute normalizeAction | ${fmt((n1 * 1e3) / acts.length)} µs | ${fmt(mbps(bytesActs, n1))} | **${fmt(n2 / n1, 2)}×** |`,
  );
  console.log(`| strip fence + JSON.parse | ${fmt((n2 * 1e3) / acts.length)} µs | ${fmt(mbps(bytesActs, n2))} | |`);

  const load1 = loadavg()[0];
  console.log('');
  console.log(
    `1-min load average: ${load0.toFixed(2)} before, ${load1.toFixed(2)} after${Math.max(load0, load1) > 1.2 ? ' (other work was running: expect wide ranges)' : ''}`,
  );
  if (opts.json) writeFileSync(opts.json, JSON.stringify(results, null, 2));
  return { ok, results };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ok } = await runRepairBench(process.argv.slice(2));
  if (!ok) process.exit(1);
}
