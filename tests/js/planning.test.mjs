// Planning checks from the packed package: requirements and their re-extraction prompt, the
// capability map, ToolIndex (exact cosine against a JS brute force on embeddings from a real
// model, BM25 fallback, hybrid), narrowTools precedence, checkCoverage / applyRemovals on the
// design's walkthrough, classifyRepair, autoTimeGrain, errors, and the TypeScript types.
// The same fixtures as tests/planning.rs (tests/planning/*.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typecheck } from './helpers/typecheck.mjs';
import {
  CapabilityMap,
  StreamrouteError,
  ToolIndex,
  applyRemovals,
  autoTimeGrain,
  checkCoverage,
  classifyRepair,
  defaultLabels,
  narrowTools,
  reextractionMessage,
  retrievalQueries,
  validateRequirements,
} from 'streamroute/planning';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name) => JSON.parse(readFileSync(join(here, '..', 'planning', name), 'utf8'));
const catalog = fixture('catalog.json').tools;
const walk = fixture('walkthrough.json');
const emb = fixture('embeddings.json');
const MODEL = emb.model_id;

function contiguous() {
  const out = new Float32Array(emb.tools.length * emb.dim);
  emb.tools.forEach((t, i) => out.set(t.embedding, i * emb.dim));
  return out;
}
const index = new ToolIndex(catalog, { model_id: MODEL, dim: emb.dim, pooling: emb.pooling, embeddings: contiguous() });
const queryVectors = { model_id: MODEL, vectors: emb.walkthrough_queries.map((q) => Float32Array.from(q.embedding)) };
const isError = (code) => (e) => e instanceof StreamrouteError && e.code === code;

// ---------------------------------------------------------------------------------------------
// Requirements

test('validateRequirements: the walkthrough, normalised', () => {
  const r = validateRequirements(walk.requirements);
  assert.deepEqual(r, {
    metrics: ['revenue'],
    group_by: ['region', 'product_category'],
    time: { column: 'date', grain: 'unknown', typed: false },
    analysis: ['total', 'compare', 'trend'],
    outputs: ['chart', 'table'],
    constraints: [],
  });
  // JSON text works too; missing fields are empty; labels are lowercased and deduplicated.
  assert.deepEqual(validateRequirements(JSON.stringify(walk.requirements)), r);
  assert.deepEqual(validateRequirements({ analysis: ['Total', 'total'] }), {
    metrics: [],
    group_by: [],
    time: null,
    analysis: ['total'],
    outputs: [],
    constraints: [],
  });
});

test('validateRequirements: requirements_invalid lists every bad label with its path', () => {
  const bad = { analysis: ['total', 'forecasting'], outputs: ['dashboard'], time: { column: 'd', grain: 'biweekly' }, metrics: 'revenue' };
  let err;
  assert.throws(
    () => validateRequirements(bad),
    (e) => ((err = e), isError('requirements_invalid')(e)),
  );
  assert.equal(err.name, 'StreamrouteError');
  // In document order.
  assert.deepEqual(
    err.errors.map((i) => [i.path, i.label]),
    [
      ['analysis[1]', 'forecasting'],
      ['outputs[0]', 'dashboard'],
      ['time.grain', 'biweekly'],
      ['metrics', null],
    ],
  );
  assert.deepEqual(err.errors[1].allowed, ['chart', 'table', 'text']);
  for (const p of ['analysis[1]', 'outputs[0]', 'time.grain', 'metrics']) assert.ok(err.message.includes(p), err.message);
  const prompt = reextractionMessage(err);
  assert.equal(prompt, reextractionMessage(err.errors));
  assert.match(prompt, /^The requirements you extracted are invalid\./);
  assert.ok(
    prompt.includes(
      '- analysis[1]: "forecasting" is not an allowed label; use one of: total, compare, trend, distribution, anomaly, correlation, ranking, forecast, summary\n',
    ),
  );
  assert.ok(
    prompt.includes(
      '- time.grain: "biweekly" is not an allowed label; use one of: unknown, minute, hour, day, week, month, quarter, year\n',
    ),
  );
  assert.ok(prompt.includes('- metrics: must be an array of column names\n'));
  assert.match(prompt, /Return only the JSON object\.$/);
  assert.throws(() => validateRequirements('{"analysis": ['), isError('json_invalid'));
  assert.throws(() => validateRequirements([]), isError('requirements_invalid'));
  assert.throws(() => reextractionMessage([{ label: 'x' }]), isError('invalid_input'));
});

test('label sets: defaults, extended by the caller', () => {
  const d = defaultLabels();
  assert.deepEqual(d.outputs, ['chart', 'table', 'text']);
  assert.ok(d.analysis.includes('correlation') && d.grain.includes('unknown'));
  assert.throws(() => validateRequirements({ analysis: ['cohort'] }), isError('requirements_invalid'));
  assert.deepEqual(validateRequirements({ analysis: ['cohort', 'total'] }, { analysis: ['cohort'] }).analysis, ['cohort', 'total']);
  assert.throws(() => validateRequirements({}, { colors: [] }), isError('invalid_option'));
});

// ---------------------------------------------------------------------------------------------
// Capability map

test('CapabilityMap: the default mapping, versioned JSON, aliases, core fill-in', () => {
  const m = new CapabilityMap();
  assert.equal(m.version, '1');
  assert.deepEqual(m.warnings, []);
  assert.deepEqual(m.rule('analysis.compare'), [{ any_of: ['aggregate', 'segment'], grouping: true }]);
  assert.deepEqual(m.rule('time'), [
    { any_of: ['parse_datetime'], unless_typed: true },
    { any_of: ['time_series_plot', 'time_series_features'] },
  ]);
  assert.equal(m.rule('analysis.cohort'), null);
  assert.equal(m.canonical('time_series'), 'time_series_plot');
  const again = new CapabilityMap(m.toJSON());
  assert.deepEqual(again.toJSON(), m.toJSON());
  assert.deepEqual(new CapabilityMap(JSON.stringify(m)).toJSON(), m.toJSON());
  const small = new CapabilityMap({ version: 3, requirements: { 'analysis.total': ['sum_up'] }, aliases: { rollup: 'sum_up' } });
  assert.equal(small.version, '3');
  assert.equal(small.canonical('Rollup'), 'sum_up');
  assert.equal(small.warnings.length, 4);
  assert.ok(small.rule('group_by'));
  assert.throws(() => new CapabilityMap({ requirements: {} }), isError('invalid_input'));
  assert.throws(() => new CapabilityMap({ version: 1, requirements: { x: 'y' } }), isError('invalid_input'));
  const audit = m.audit(catalog, { analysis: ['cohort'] });
  assert.deepEqual(audit.unmapped, ['analysis.cohort']);
  assert.ok(audit.unknown_capabilities.includes('join'));
  assert.deepEqual(m.audit(index).unknown_capabilities, audit.unknown_capabilities);
});

// ---------------------------------------------------------------------------------------------
// ToolIndex

function bruteForce(q, n) {
  const norm = Math.hypot(...q);
  const rows = emb.tools.map((t) => {
    const tn = Math.hypot(...t.embedding);
    let s = 0;
    for (let d = 0; d < q.length; d++) s += q[d] * t.embedding[d];
    return { name: t.name, score: s / (norm * tn) };
  });
  rows.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
  return rows.slice(0, n);
}

test('ToolIndex.search: exact top-8 cosine equals a JS brute force for every fixture question', () => {
  assert.equal(index.size, 48);
  const stored = index.embeddings;
  assert.ok(stored instanceof Float32Array && stored.length === 48 * 384);
  assert.ok(Math.abs(Math.hypot(...stored.subarray(0, 384)) - 1) < 1e-5);
  assert.deepEqual(index.model, { model_id: MODEL, dim: 384, pooling: 'mean' });
  assert.ok(emb.questions.length >= 60);
  for (const q of emb.questions) {
    const hits = index.search(Float32Array.from(q.embedding), 8);
    const want = bruteForce(q.embedding, 8);
    assert.deepEqual(
      hits.map((h) => h.name),
      want.map((w) => w.name),
      q.q,
    );
    hits.forEach((h, i) => assert.ok(Math.abs(h.score - want[i].score) < 1e-5));
    assert.equal(catalog[hits[0].index].name, hits[0].name);
  }
  // Default n is 8; a plain array works; per-tool embeddings give the same index.
  const q = emb.questions[3].embedding;
  assert.equal(index.search(Float32Array.from(q)).length, 8);
  const perTool = new ToolIndex(
    catalog.map((t, i) => ({ ...t, embedding: emb.tools[i].embedding })),
    { model_id: MODEL },
  );
  assert.deepEqual(perTool.search(Float32Array.from(q), 5), index.search(Float32Array.from(q), 5));
  assert.equal(perTool.model.dim, 384);
  // Errors.
  assert.throws(() => index.search(new Float32Array(10)), isError('invalid_input'));
  assert.throws(() => new ToolIndex(catalog).search(new Float32Array(384)), isError('invalid_input'));
  assert.throws(() => new ToolIndex([{ name: 'a' }, { name: 'a' }]), isError('invalid_input'));
  assert.throws(() => new ToolIndex([{ name: 'a' }], { model_id: 'm', dim: 2, embeddings: new Float32Array(3) }), isError('invalid_input'));
  assert.throws(() => new ToolIndex([{ name: 'a', embedding: [1, 2] }]), isError('invalid_input'));
  assert.throws(() => new ToolIndex(3), isError('invalid_input'));
  assert.throws(() => new ToolIndex('[{"name":'), isError('json_invalid'));
  assert.throws(() => new ToolIndex([{ name: 'a' }], { model_id: 'm', embeddings: 'x' }), isError('invalid_input'));
  assert.throws(() => index.retrieve({ n: -1 }), isError('invalid_option'));
  // A string option of another type is invalid_option naming it, not dropped.
  assert.throws(
    () => index.retrieve({ text: 5 }),
    (e) => isError('invalid_option')(e) && /text must be a string, got a number/.test(e.message),
  );
  assert.throws(
    () => index.retrieve({ n: '3' }),
    (e) => isError('invalid_option')(e) && /n must be a finite number, got a string/.test(e.message),
  );
  assert.throws(
    () => new ToolIndex([{ name: 'a' }], { model_id: 5 }),
    (e) => isError('invalid_option')(e) && /model_id must be a string/.test(e.message),
  );
  assert.throws(
    () => new ToolIndex([{ name: 'a' }], { modelId: 'm', pooling: true }),
    (e) => isError('invalid_option')(e) && /pooling must be a string, got boolean/.test(e.message),
  );
  assert.throws(
    () => index.retrieve({ modle: 1 }),
    (e) => isError('invalid_input')(e) && /unknown option "modle"/.test(e.message),
  );
  assert.throws(() => validateRequirements('x'.repeat((64 << 20) + 1)), isError('input_too_large'));
  assert.throws(() => index.retrieve({ vectors: ['x'] }), isError('invalid_input'));
  assert.throws(() => checkCoverage({}, { steps: [] }, null, undefined), isError('invalid_input'));
});

/** The core's arithmetic in JS: f64 norm, f32 division, eight f32 lanes summed in a fixed order. */
function normalizeF32(v) {
  let s = 0;
  for (const x of v) s += x * x;
  const norm = Math.sqrt(s);
  return norm > 0 ? v.map((x) => Math.fround(x / norm)) : v.map(() => 0);
}
function dotF32(a, b) {
  const f = Math.fround;
  const acc = new Array(8).fill(0);
  const full = a.length - (a.length % 8);
  for (let i = 0; i < full; i += 8) for (let j = 0; j < 8; j++) acc[j] = f(acc[j] + f(a[i + j] * b[i + j]));
  let tail = 0;
  for (let i = full; i < a.length; i++) tail = f(tail + f(a[i] * b[i]));
  return f(f(f(f(acc[0] + acc[4]) + f(acc[1] + acc[5])) + f(f(acc[2] + acc[6]) + f(acc[3] + acc[7]))) + tail);
}

test('ToolIndex scores are bit-exact: the same f32 lane order in wasm (simd128) as specified', () => {
  const rows = emb.tools.map((t) => normalizeF32(Array.from(Float32Array.from(t.embedding))));
  const stored = index.embeddings;
  rows.forEach((r, i) => r.forEach((x, d) => assert.equal(stored[i * 384 + d], x)));
  for (const q of emb.questions.slice(0, 16)) {
    const qn = normalizeF32(Array.from(Float32Array.from(q.embedding)));
    for (const h of index.search(Float32Array.from(q.embedding), 8)) assert.equal(h.score, dotF32(qn, rows[h.index]), q.q);
  }
  // A dimension that is not a multiple of 8 exercises the tail.
  const odd = new ToolIndex([{ name: 'a' }, { name: 'b' }], {
    model_id: 'm',
    dim: 11,
    embeddings: Float32Array.from({ length: 22 }, (_, i) => Math.sin(i + 1)),
  });
  const q = Float32Array.from({ length: 11 }, (_, i) => Math.cos(i));
  const qn = normalizeF32(Array.from(q));
  for (const h of odd.search(q, 2)) {
    const row = normalizeF32(Array.from(Float32Array.from({ length: 11 }, (_, d) => Math.sin(h.index * 11 + d + 1))));
    assert.equal(h.score, dotF32(qn, row));
  }
});

test('ToolIndex from per-tool embeddings: arrays, typed arrays and JSON text read the same', () => {
  const withEmb = catalog.map((t, i) => ({ ...t, embedding: Array.from(Float32Array.from(emb.tools[i].embedding)) }));
  const model = { model_id: MODEL, dim: emb.dim, pooling: emb.pooling };
  const q = Float32Array.from(emb.questions[3].embedding);
  const want = index.search(q, 8);
  const forms = [
    withEmb,
    { tools: withEmb },
    withEmb.map((t) => ({ ...t, embedding: Float32Array.from(t.embedding) })),
    JSON.stringify(withEmb),
  ];
  for (const c of forms) {
    const ix = new ToolIndex(c, model);
    assert.deepEqual(ix.search(q, 8), want, typeof c);
    // (JSON text cannot hold -0, so compare with -0 as 0.)
    assert.deepEqual(
      Array.from(ix.embeddings, (x) => x + 0),
      Array.from(index.embeddings, (x) => x + 0),
    );
  }
  // Errors and their messages are the same on both paths (numbers read as numbers, or as text).
  const two = [
    { name: 'a', embedding: [1, 2] },
    { name: 'b', embedding: [3, 1e39] },
  ];
  const m2 = { model_id: 'm', dim: 2 };
  for (const c of [two, JSON.stringify(two)]) {
    assert.throws(
      () => new ToolIndex(c, m2),
      (e) => isError('invalid_input')(e) && /tools\[1\]\.embedding: 1e\+?39 is not a finite 32-bit float/.test(e.message),
      typeof c,
    );
  }
  for (const bad of [[1, '2'], [1, null], [1, Number.NaN], { 0: 1 }]) {
    assert.throws(
      () => new ToolIndex([{ name: 'a', embedding: bad }], { model_id: 'm', dim: 2 }),
      isError('invalid_input'),
      JSON.stringify(bad),
    );
  }
  // No embedding, null, and an empty one (a dimension error, not "no embedding").
  assert.equal(new ToolIndex([{ name: 'a', embedding: null }, { name: 'b' }]).embeddings.length, 0);
  assert.throws(
    () =>
      new ToolIndex(
        [
          { name: 'a', embedding: [] },
          { name: 'b', embedding: [1, 2] },
        ],
        m2,
      ),
    (e) => /embedding has 0 dimensions/.test(e.message),
  );
});

test('ToolIndex: ties break by tool name, not catalog order', () => {
  const tools = ['zeta', 'alpha', 'mid', 'beta'].map((name) => ({ name }));
  const vecs = new Float32Array([1, 2, 0, 2, 4, 0, 0.5, 1, 0, 3, 6, 0]);
  const a = new ToolIndex(tools, { model_id: 'm', dim: 3, embeddings: vecs });
  assert.deepEqual(
    a.search(new Float32Array([1, 2, 0]), 3).map((h) => h.name),
    ['alpha', 'beta', 'mid'],
  );
  const b = new ToolIndex([...tools].reverse(), {
    model_id: 'm',
    dim: 3,
    embeddings: new Float32Array([3, 6, 0, 0.5, 1, 0, 2, 4, 0, 1, 2, 0]),
  });
  assert.deepEqual(
    b.search(new Float32Array([1, 2, 0]), 3).map((h) => h.name),
    ['alpha', 'beta', 'mid'],
  );
});

test('ToolIndex.retrieve: BM25 fallback without a matching vector, hybrid, recall@8', () => {
  const q = emb.questions[10];
  assert.equal(q.q, 'plot a histogram of customer ages');
  const v = Float32Array.from(q.embedding);
  const cos = index.retrieve({ vectors: { model_id: MODEL, vectors: v }, text: q.q, n: 5 });
  assert.equal(cos.method, 'cosine');
  assert.equal(cos.fallback, null);
  assert.deepEqual(cos.hits, index.search(v, 5));
  const bm = index.searchText(q.q, 5);
  assert.equal(bm[0].name, 'plot_histogram');
  for (const [vectors, why] of [
    [undefined, 'no query vector'],
    [{ model_id: '@cf/baai/bge-small-en-v1.5', vectors: v }, 'differs from the index model'],
    [v.subarray(0, 100), 'dimension'],
    [{ dim: 768, vectors: v }, 'dimension 768'],
  ]) {
    for (const mode of ['auto', 'cosine', 'hybrid']) {
      const r = index.retrieve({ vectors, text: q.q, n: 5, mode });
      assert.equal(r.method, 'bm25');
      assert.ok(r.fallback.includes(why), r.fallback);
      assert.deepEqual(r.hits, bm);
    }
  }
  const h = index.retrieve({ vectors: v, texts: [q.q], mode: 'hybrid', n: 5 });
  assert.equal(h.method, 'hybrid');
  assert.equal(h.hits[0].name, 'plot_histogram');
  assert.throws(() => index.retrieve({ mode: 'fuzzy' }), isError('invalid_option'));

  // recall@8 of the tools a person marked relevant: the same numbers as tests/planning.rs.
  const recall = (mode) => {
    let sum = 0;
    for (const x of emb.questions) {
      const got = index.retrieve({ vectors: Float32Array.from(x.embedding), text: x.q, mode, n: 8 }).hits.map((h) => h.name);
      sum += x.relevant.filter((t) => got.includes(t)).length / x.relevant.length;
    }
    return (sum / emb.questions.length).toFixed(3);
  };
  assert.deepEqual([recall('cosine'), recall('bm25'), recall('hybrid')], ['0.757', '0.678', '0.746']);
});

// ---------------------------------------------------------------------------------------------
// Narrowing

const pick = (r) => r.tools.map((t) => [t.name, t.reason]);

test('narrowTools: the walkthrough exactly (template, retrieved, safety, cap 8)', () => {
  const r = narrowTools({
    requirements: walk.requirements,
    template: walk.template,
    retrieved: [
      { name: 'segment_metric', score: 0.61 },
      { name: 'plot_bar', score: 0.58 },
    ],
    safetySet: ['aggregate', 'plot_line', 'compute_summary_stats'],
    cap: 8,
    index,
  });
  assert.deepEqual(r.names, ['parse_datetime', 'aggregate', 'plot_line', 'compute_summary_stats', 'segment_metric', 'plot_bar']);
  assert.deepEqual(pick(r), [
    ['parse_datetime', 'template'],
    ['aggregate', 'template'],
    ['plot_line', 'template'],
    ['compute_summary_stats', 'template'],
    ['segment_metric', 'retrieval'],
    ['plot_bar', 'retrieval'],
  ]);
  assert.deepEqual(r.safety, [
    { name: 'aggregate', added: false },
    { name: 'plot_line', added: false },
    { name: 'compute_summary_stats', added: false },
  ]);
  assert.equal(r.method, 'given');
  assert.equal(r.cap, 8);
  assert.deepEqual(r.dropped, []);
  assert.deepEqual(r.tools[4], { name: 'segment_metric', reason: 'retrieval', score: 0.61, rank: 1 });
});

test('narrowTools: the walkthrough with the real model, and the BM25 fallback', () => {
  assert.deepEqual(retrievalQueries(walk.requirements), walk.queries);
  const opts = {
    requirements: walk.requirements,
    queryVectors,
    template: walk.template.tools,
    safetySet: ['aggregate', 'plot_line', 'compute_summary_stats'],
    cap: 8,
  };
  const r = index.narrow(opts);
  assert.deepEqual(narrowTools({ ...opts, index }), r);
  assert.equal(r.method, 'cosine');
  assert.deepEqual(r.names, [
    'parse_datetime',
    'aggregate',
    'plot_line',
    'compute_summary_stats',
    'plot_scatter',
    'plot_area',
    'plot_dual_axis',
    'plot_bar',
  ]);
  assert.deepEqual(r.queries, walk.queries);
  const other = index.narrow({ ...opts, queryVectors: { ...queryVectors, model_id: '@cf/baai/bge-small-en-v1.5' } });
  assert.equal(other.method, 'bm25');
  assert.match(other.fallback, /differs from the index model/);
  assert.deepEqual(other.names, [
    'parse_datetime',
    'aggregate',
    'plot_line',
    'compute_summary_stats',
    'cumulative_sum',
    'plot_bar',
    'plot_dual_axis',
    'plot_area',
  ]);
  // A plain catalog (no embeddings): BM25, same answer.
  assert.deepEqual(narrowTools({ ...opts, catalog }).names, other.names);
});

test('narrowTools: precedence (template always, cap, safety past the cap, lowest dropped)', () => {
  const retrieved = [
    { name: 'a', score: 0.9 },
    { name: 'b', score: 0.7 },
    { name: 'c', score: 0.6 },
  ];
  const base = { requirements: {}, retrieved };
  let r = narrowTools({ ...base, template: ['t1'], safetySet: ['s1', 's2'], cap: 4 });
  assert.deepEqual(pick(r), [
    ['t1', 'template'],
    ['a', 'retrieval'],
    ['s1', 'safety'],
    ['s2', 'safety'],
  ]);
  assert.deepEqual(r.dropped, [
    { name: 'b', score: 0.7 },
    { name: 'c', score: 0.6 },
  ]);
  r = narrowTools({ ...base, template: ['t1', 't2'], safetySet: ['s1', 's2'], cap: 3 });
  assert.deepEqual(r.names, ['t1', 't2', 's1', 's2']);
  r = narrowTools({ ...base, template: { tools: ['s1'] }, safetySet: ['s1', 's2'], cap: 8 });
  assert.deepEqual(r.safety, [
    { name: 's1', added: false },
    { name: 's2', added: true },
  ]);
  r = narrowTools({ ...base, safetySet: [], cap: 8, minScore: 0.65 });
  assert.deepEqual(r.names, ['a', 'b']);
  r = narrowTools({ ...base, safetySet: [], cap: 8, n: 1 });
  assert.deepEqual(r.names, ['a']);
  // Default safety set and cap.
  r = narrowTools({ requirements: {}, retrieved });
  assert.deepEqual(r.names, ['a', 'b', 'c', 'aggregate', 'plot_line', 'compute_summary_stats']);
  assert.equal(r.cap, 8);
  assert.throws(() => narrowTools({ requirements: {}, retrieved, cap: 0 }), isError('invalid_option'));
  assert.throws(() => narrowTools({ requirements: {}, retrieved, cap: 2.5 }), isError('invalid_option'));
  assert.throws(() => narrowTools({ requirements: {} }), isError('invalid_input'));
  assert.throws(() => narrowTools({ requirements: { analysis: 'x' }, retrieved }), isError('requirements_invalid'));
  assert.throws(() => narrowTools({ requirements: {}, index: {} }), isError('invalid_input'));
});

// ---------------------------------------------------------------------------------------------
// Coverage

test('checkCoverage + applyRemovals: the walkthrough exactly', () => {
  const report = checkCoverage(walk.requirements, walk.adapted_plan, new CapabilityMap(), catalog);
  assert.equal(report.ok, false);
  assert.deepEqual(report.missing, []);
  assert.deepEqual(report.unjustified, ['detect_anomalies', 'plot_histogram']);
  assert.deepEqual(report.unjustified_steps, [4, 5]);
  assert.equal(report.message, 'Remove unjustified steps: detect_anomalies, plot_histogram');
  const fixed = applyRemovals(walk.adapted_plan, report);
  assert.deepEqual(
    fixed.steps.map((s) => s.tool),
    ['parse_datetime', 'aggregate', 'plot_line', 'compute_summary_stats'],
  );
  assert.deepEqual(fixed.steps[1], walk.adapted_plan.steps[1]);
  const ok = checkCoverage(walk.requirements, fixed, null, index);
  assert.equal(ok.ok, true);
  assert.equal(ok.message, '');
  assert.deepEqual(ok.lines, [
    'analysis.total -> aggregate (OK)',
    'analysis.compare -> aggregate + grouping (OK)',
    'analysis.trend -> plot_line (OK)',
    'outputs.chart -> plot_line (OK)',
    'outputs.table -> compute_summary_stats (OK)',
    'group_by -> aggregate with group_by (OK)',
    'time -> parse_datetime + plot_line (OK)',
  ]);
  assert.deepEqual(ok.steps[1], { index: 1, tool: 'aggregate', valid: ['analysis.total', 'group_by'], invalid: ['time'] });
  // By tool name when the report has no positions.
  assert.deepEqual(applyRemovals(walk.adapted_plan.steps, { unjustified: ['plot_histogram'] }).length, 5);
});

test("checkCoverage: the design's retry payload exactly", () => {
  const plan = {
    steps: [
      { tool: 'parse_datetime', params: { column: 'date' }, satisfies: ['time'] },
      { tool: 'aggregate', params: { agg_func: 'sum', metrics: ['revenue'] }, satisfies: ['analysis.total'] },
      { tool: 'plot_line', params: { x: 'date', y: 'revenue' }, satisfies: ['analysis.trend', 'outputs.chart'] },
      { tool: 'compute_summary_stats', satisfies: 'outputs.table' },
      { tool: 'detect_anomalies', params: {}, satisfies: [] },
    ],
  };
  const req = { ...walk.requirements, analysis: ['total', 'trend'] };
  const r = checkCoverage(req, plan, undefined, catalog);
  assert.equal(r.ok, false);
  assert.deepEqual(r.missing, ['group_by']);
  assert.equal(r.message, 'Missing coverage: group_by=[region, product_category]\nRemove unjustified steps: detect_anomalies');
  // Unknown labels: a warning and re-extraction, not a failure.
  const u = checkCoverage({ analysis: ['total', 'cohort'] }, [{ tool: 'aggregate', satisfies: ['analysis.total'] }], null, catalog);
  assert.equal(u.ok, true);
  assert.equal(u.reextract, true);
  assert.deepEqual(u.unknown, ['analysis.cohort']);
  assert.throws(() => checkCoverage({}, { steps: [{ params: {} }] }, null, catalog), isError('invalid_input'));
  assert.throws(() => checkCoverage({}, { steps: [] }, { requirements: {} }, catalog), isError('invalid_input'));
});

// ---------------------------------------------------------------------------------------------
// Repairs

test('classifyRepair and autoTimeGrain', () => {
  assert.equal(
    classifyRepair(
      { tool: 'aggregate', params: { group_by: ['region'] } },
      { tool: 'aggregate', params: { df: 'df_1', group_by: ['region'] } },
    ),
    'safe',
  );
  assert.equal(classifyRepair({ y: 'Revenue' }, { y: 'revenue', title: 'x' }), 'safe');
  assert.equal(classifyRepair({ group_by: ['region'] }, { group_by: ['product_category'] }), 'semantic');
  assert.equal(classifyRepair({ metrics: ['revenue'] }, { metrics: ['profit'] }), 'semantic');
  assert.equal(classifyRepair({ grain: 'week' }, { grain: 'month' }), 'semantic');
  assert.equal(classifyRepair({ bins: 10 }, { bins: 20 }), 'safe');
  assert.equal(classifyRepair({ bins: 10 }, { bins: 20 }, { semanticParams: ['bins'] }), 'semantic');
  assert.throws(() => classifyRepair(3, {}), isError('invalid_input'));
  assert.equal(autoTimeGrain(30, 30), 'day');
  assert.equal(autoTimeGrain(200, 61), 'day');
  assert.equal(autoTimeGrain(90, 13), 'week');
  assert.equal(autoTimeGrain(365, 52), 'week');
  assert.equal(autoTimeGrain(400, 13), 'month');
  assert.throws(() => autoTimeGrain(-1, 1), isError('invalid_input'));
  assert.throws(() => autoTimeGrain(NaN, 1), isError('invalid_input'));
});

// ---------------------------------------------------------------------------------------------
// TypeScript

test('TypeScript: the planning exports type-check, and a misuse is reported', () => {
  const ok = typecheck(
    'ts-planning',
    `
    import { ToolIndex, CapabilityMap, StreamrouteError, narrowTools, checkCoverage, applyRemovals,
      validateRequirements, reextractionMessage, retrievalQueries, classifyRepair, autoTimeGrain,
      defaultLabels, type Requirements, type NarrowResult, type CoverageReport, type SearchHit,
      type Plan, type Retrieval, type RequirementIssue } from 'streamroute/planning';
    const req: Requirements = validateRequirements({ metrics: ['m'], analysis: ['total'] }, { analysis: ['cohort'] });
    const index = new ToolIndex([{ name: 'aggregate', capabilities: ['aggregate'] }], { model_id: 'm', dim: 2, embeddings: new Float32Array(2) });
    const hits: SearchHit[] = index.search(new Float32Array([1, 0]), 8);
    const r: Retrieval = index.retrieve({ vectors: new Float32Array([1, 0]), text: 'x', mode: 'hybrid' });
    const n: NarrowResult = narrowTools({ requirements: req, index, template: ['aggregate'], safetySet: [], cap: 8,
      queryVectors: { model_id: 'm', vectors: [new Float32Array([1, 0])] } });
    const plan: Plan = { steps: [{ tool: 'aggregate', params: {}, satisfies: ['analysis.total'] }] };
    const rep: CoverageReport = checkCoverage(req, plan, new CapabilityMap(), index);
    const fixed: Plan = applyRemovals(plan, rep);
    const grain: 'day' | 'week' | 'month' = autoTimeGrain(10, 10);
    const kind: 'safe' | 'semantic' = classifyRepair({ x: 1 }, { x: 2 });
    try { validateRequirements({}); } catch (e) {
      if (e instanceof StreamrouteError && e.errors) { const first: RequirementIssue | undefined = e.errors[0]; const msg: string = reextractionMessage(e.errors); void [msg, first]; }
    }
    const qs: string[] = retrievalQueries(req);
    const labels: string[] = defaultLabels().analysis;
    void [hits[0]?.score, r.method, n.names, rep.ok, rep.missing, rep.unjustified, rep.message, fixed, grain, kind, qs, labels, index.model?.dim, index.embeddings.length];
  `,
  );
  assert.equal(ok.status, 0, ok.output);
  const bad = typecheck(
    'ts-planning-bad',
    `
    import { checkCoverage } from 'streamroute/planning';
    const n: number = checkCoverage({}, { steps: [] }, null, []).message;
  `,
    'bad.mts',
  );
  assert.notEqual(bad.status, 0);
  assert.match(bad.output, /TS2322/);
});
