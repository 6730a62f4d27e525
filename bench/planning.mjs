// Exact top-8 tool search from JS, in one process and one run: streamroute's ToolIndex.search
// (wasm, contiguous L2-normalised Float32Array, eight-lane dot product compiled to simd128)
// against plain JS loops over Float32Arrays, on 1,000 and 10,000 tools × 384 dimensions
// (the size of Workers AI's @cf/baai/bge-small-en-v1.5 and of all-MiniLM-L6-v2).
//
//   (1) streamroute   index.search(query, 8): the query is passed as a Float32Array (copied
//                     once into wasm memory by the glue, 1.5 KB), the result is 8 { name,
//                     index, score } objects
//   (2) JS rows       for each tool a Float32Array row, a dot product loop, top-8 insertion
//                     (what one writes by hand)
//   (3) JS flat       the same over one contiguous Float32Array (the fastest plain JS layout)
//
// Both JS variants normalise the query and compare with the same deterministic tie-break (score
// descending, then name). Vectors and queries are random (seeded mulberry32), rows normalised
// at load like the index does. A measurement, not a test: the only check is that all three
// variants return the same top 8 for every query (ERROR and exit 1 otherwise).
//
//   node planning.mjs [--tools 1000,10000] [--dim 384] [--queries 64] [--iterations N]
//                     [--min-ms MS] [--json FILE]

import { writeFileSync } from 'node:fs';
import { mulberry32 } from './gen.mjs';

const ENTRY = process.env.STREAMROUTE_ENTRY
  ? new URL(process.env.STREAMROUTE_ENTRY, `file://${process.cwd()}/`).href
  : new URL('../pkg/dist/planning/node.js', import.meta.url).href;
const { ToolIndex } = await import(ENTRY);

export const PLANNING_SEED = 0x5eed_0008;

function args(argv) {
  const o = { tools: [1000, 10000], dim: 384, queries: 64, iterations: 15, minMs: 20, json: null };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    switch (argv[i]) {
      case '--tools':
        o.tools = v.split(',').map(Number);
        i++;
        break;
      case '--dim':
        o.dim = Number(v);
        i++;
        break;
      case '--queries':
        o.queries = Number(v);
        i++;
        break;
      case '--iterations':
        o.iterations = Number(v);
        i++;
        break;
      case '--min-ms':
        o.minMs = Number(v);
        i++;
        break;
      case '--json':
        o.json = v;
        i++;
        break;
      default:
        throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return o;
}

function normalize(v) {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}

/** Random catalog: names, contiguous embeddings, per-row views of normalised copies. */
function makeCatalog(n, dim, rand) {
  const tools = [];
  const flat = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    tools.push({ name: `tool_${String(i).padStart(5, '0')}`, description: `synthetic tool ${i}`, capabilities: ['x'] });
    for (let d = 0; d < dim; d++) flat[i * dim + d] = rand() * 2 - 1;
  }
  const normFlat = flat.slice();
  const rows = [];
  for (let i = 0; i < n; i++) {
    const row = normalize(normFlat.subarray(i * dim, (i + 1) * dim));
    rows.push(new Float32Array(row));
  }
  return { tools, flat, normFlat, rows, names: tools.map((t) => t.name) };
}

/** Top-k insertion shared by both JS variants: score descending, then name ascending. */
function pushTop(top, k, score, i, names) {
  if (top.length === k) {
    const w = top[k - 1];
    if (!(score > w.score || (score === w.score && names[i] < names[w.index]))) return;
    top.pop();
  }
  let p = top.length;
  while (p > 0) {
    const h = top[p - 1];
    if (h.score > score || (h.score === score && names[h.index] < names[i])) break;
    p--;
  }
  top.splice(p, 0, { index: i, score });
}

function jsRows(rows, names, query, k) {
  const q = normalize(Float32Array.from(query));
  const top = [];
  const dim = q.length;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    let s = 0;
    for (let d = 0; d < dim; d++) s += q[d] * r[d];
    pushTop(top, k, s, i, names);
  }
  return top;
}

function jsFlat(flat, names, query, k) {
  const q = normalize(Float32Array.from(query));
  const top = [];
  const dim = q.length;
  const n = names.length;
  for (let i = 0, o = 0; i < n; i++, o += dim) {
    let s0 = 0,
      s1 = 0,
      s2 = 0,
      s3 = 0;
    let d = 0;
    for (; d + 4 <= dim; d += 4) {
      s0 += q[d] * flat[o + d];
      s1 += q[d + 1] * flat[o + d + 1];
      s2 += q[d + 2] * flat[o + d + 2];
      s3 += q[d + 3] * flat[o + d + 3];
    }
    let s = s0 + s1 + s2 + s3;
    for (; d < dim; d++) s += q[d] * flat[o + d];
    pushTop(top, k, s, i, names);
  }
  return top;
}

/**
 * Median time per call (ms) of each variant, with the range: rounds are interleaved (one
 * round of every variant per iteration) so that load on a shared machine hits all alike; a
 * round runs all queries until at least --min-ms has passed.
 */
function timeAll(fns, queries, o) {
  // Warm-up: enough calls for V8 to tier up both JS and wasm.
  for (const fn of fns) {
    const t0 = performance.now();
    while (performance.now() - t0 < 300) for (const q of queries) fn(q);
  }
  const samples = fns.map(() => []);
  for (let it = 0; it < o.iterations; it++) {
    fns.forEach((fn, v) => {
      let calls = 0;
      const start = performance.now();
      let now = start;
      do {
        for (const q of queries) fn(q);
        calls += queries.length;
        now = performance.now();
      } while (now - start < o.minMs);
      samples[v].push((now - start) / calls);
    });
  }
  return samples.map((s) => {
    s.sort((a, b) => a - b);
    return { median: s[s.length >> 1], min: s[0], max: s[s.length - 1] };
  });
}

const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(3)} ms`);

export async function runPlanningBench(argv = []) {
  const o = args(argv);
  const rand = mulberry32(PLANNING_SEED);
  let ok = true;
  const results = [];
  console.log(
    `top-8 exact cosine, ${o.dim} dims, ${o.queries} random queries, median time per search over ${o.iterations} interleaved rounds (range)`,
  );
  console.log('');
  console.log('| tools | (1) streamroute search | (2) JS rows loop | (3) JS flat loop | (1) vs (2) | (1) vs (3) |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const n of o.tools) {
    const cat = makeCatalog(n, o.dim, rand);
    const index = new ToolIndex(cat.tools, { model_id: 'bench', dim: o.dim, embeddings: cat.flat });
    const queries = [];
    for (let i = 0; i < o.queries; i++) {
      const q = new Float32Array(o.dim);
      for (let d = 0; d < o.dim; d++) q[d] = rand() * 2 - 1;
      queries.push(q);
    }
    // Correctness outside the timed region: the same top 8. JS sums in f64 and the wasm in
    // f32, so two tools closer than 1e-5 may swap; anything else is an error.
    for (const q of queries) {
      const a = index.search(q, 8);
      for (const [label, other] of [
        ['JS rows', jsRows(cat.rows, cat.names, q, 8)],
        ['JS flat', jsFlat(cat.normFlat, cat.names, q, 8)],
      ]) {
        const same = a.every((h, i) => h.name === cat.names[other[i].index] || Math.abs(h.score - other[i].score) < 1e-5);
        if (a.length !== 8 || other.length !== 8 || !same) {
          console.error(
            `ERROR: top-8 differs for ${n} tools (${label}): ${a.map((h) => h.name)} vs ${other.map((h) => cat.names[h.index])}`,
          );
          ok = false;
        }
      }
    }
    const [wasm, rows, flat] = timeAll(
      [(q) => index.search(q, 8), (q) => jsRows(cat.rows, cat.names, q, 8), (q) => jsFlat(cat.normFlat, cat.names, q, 8)],
      queries,
      o,
    );
    const range = (t) => `${fmt(t.median)} (${fmt(t.min)}–${fmt(t.max)})`;
    console.log(
      `| ${n.toLocaleString('en')} | ${range(wasm)} | ${range(rows)} | ${range(flat)} | ` +
        `${(rows.median / wasm.median).toFixed(2)}× | ${(flat.median / wasm.median).toFixed(2)}× |`,
    );
    results.push({ tools: n, dim: o.dim, streamroute: wasm, jsRows: rows, jsFlat: flat });
    index.free();
  }
  if (o.json) writeFileSync(o.json, JSON.stringify(results, null, 2));
  return { ok, results };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ok } = await runPlanningBench(process.argv.slice(2));
  if (!ok) process.exit(1);
}
