// Artifact redaction and collection from JS, in one process and one run: streamroute's
// redactArtifacts / ArtifactCollector against a JS implementation of the same walk
// (payload-walk.mjs), on one ~5 MB tool observation with nested artifacts (a report: sections
// with optional figures whose base64 image and chart spec are artifacts, per-section tables
// that are artifacts, visible stats and notes; a top-level streamed chart and a raw-data list).
//
//   (1) streamroute  redactArtifacts(object, schema)                 object in, object out
//   (2) streamroute  redactArtifactsJson(text, schema)               JSON text in and out
//   (3) JS walk      jsRedact(object, schema)
//   (4) JS walk      JSON.stringify(jsRedact(JSON.parse(text)))      JSON text in and out
//   (5) streamroute  collector.collect(object) + redactArtifacts(object) + all()
//   (6) streamroute  collector.collectAndRedact(object) + all()      one crossing, one walk
//   (7) streamroute  collector.collectAndRedactJson(text) + all()
//   (8) JS walk      jsCollect (structuredClone of each artifact) + jsRedact
//   (9) JS walk      jsCollectAndRedact (one walk, artifacts shared, not copied)
//  (10) streamroute  validateFinalPayload(payload)                  the payload carrying (6)'s artifacts
//  (11) JS walk      jsValidate(payload)                            its shape and field types, a copy
//  (12) streamroute  buildFinalPayload(args, { artifacts, sources })
//  (13) JS walk      jsBuild(args, { artifacts, sources })
//
// redactArtifacts and collectAndRedact walk an object in JS by the schema's plan (computed in
// wasm once per schema); the payload functions cross into wasm as JSON text and back through
// JSON.parse. (2) and (7) show the core's walk over JSON text. A measurement, not a
// test: nothing asserts a speed. Outputs are checked equal to the JS walk's before timing
// (ERROR and exit 1 otherwise).
//
//   node payload.mjs [--mb 5] [--iterations N] [--warmup-ms MS] [--json FILE]

import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { mulberry32 } from './gen.mjs';
import { jsBuild, jsCollect, jsCollectAndRedact, jsRedact, jsValidate } from './payload-walk.mjs';
import { fullGc, median } from './timing.mjs';

const ENTRY = process.env.STREAMROUTE_ENTRY
  ? new URL(process.env.STREAMROUTE_ENTRY, `file://${process.cwd()}/`).href
  : new URL('../pkg/dist/payload/node.js', import.meta.url).href;
const { ArtifactCollector, buildFinalPayload, redactArtifacts, redactArtifactsJson, validateFinalPayload } = await import(ENTRY);

export const PAYLOAD_SEED = 0x5eed_0007;

export const SCHEMA = {
  $defs: {
    Figure: {
      type: 'object',
      title: 'Figure',
      properties: {
        caption: { type: 'string' },
        png_base64: { type: 'string', artifact: true },
        spec: { type: 'object', additionalProperties: true, artifact: true, stream: true, stream_id: 'figure_spec' },
      },
      required: ['caption'],
    },
    Row: { type: 'object', title: 'Row', properties: { sku: { type: 'string' }, units: { type: 'integer' }, revenue: { type: 'number' } } },
    Section: {
      type: 'object',
      title: 'Section',
      properties: {
        title: { type: 'string' },
        summary: { type: 'string' },
        stats: { type: 'object', additionalProperties: { type: 'number' } },
        figure: { anyOf: [{ $ref: '#/$defs/Figure' }, { type: 'null' }], default: null },
        table: { type: 'array', items: { $ref: '#/$defs/Row' }, artifact: true },
        notes: { type: 'array', items: { type: 'string' } },
      },
      required: ['title', 'summary'],
    },
  },
  type: 'object',
  title: 'ReportResult',
  properties: {
    summary: { type: 'string' },
    total_revenue: { type: 'number' },
    sections: { type: 'array', items: { $ref: '#/$defs/Section' } },
    chart_options: {
      anyOf: [{ type: 'object', additionalProperties: true }, { type: 'null' }],
      artifact: true,
      stream: true,
      stream_id: 'sales_chart',
    },
    raw_data: { type: 'array', items: { type: 'object', additionalProperties: true }, artifact: true },
  },
};

/** The observation, about `targetBytes` of compact JSON. */
export function generateObservation({ targetBytes = 5_000_000, seed = PAYLOAD_SEED } = {}) {
  const rnd = mulberry32(seed);
  const int = (n) => Math.floor(rnd() * n);
  const words = ['revenue', 'growth', 'widget', 'gadget', 'quarter', 'región', 'naïve', 'margin', 'forecast', 'churn', '✓', 'EMEA'];
  const sentence = (n) => Array.from({ length: n }, () => words[int(words.length)]).join(' ');
  const b64 = (n) => {
    const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let s = '';
    for (let i = 0; i < n; i++) s += a[int(64)];
    return s;
  };
  const obs = {
    summary: sentence(40),
    total_revenue: 1234567.89,
    sections: [],
    chart_options: {
      title: { text: 'Revenue' },
      xAxis: { type: 'category', data: Array.from({ length: 2000 }, (_, i) => `d${i}`) },
      series: Array.from({ length: 8 }, (_, k) => ({
        name: `s${k}`,
        type: 'line',
        data: Array.from({ length: 2000 }, () => int(100000) / 100),
      })),
    },
    raw_data: Array.from({ length: 6000 }, (_, i) => ({
      id: i,
      sku: `SKU-${int(1e5)}`,
      units: int(500),
      revenue: int(1e6) / 100,
      region: words[int(words.length)],
    })),
  };
  let size = JSON.stringify(obs).length;
  while (size < targetBytes) {
    const section = {
      title: `Section ${obs.sections.length}: ${sentence(4)}`,
      summary: sentence(120),
      stats: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`metric_${i}`, int(1e6) / 100])),
      figure:
        rnd() < 0.8
          ? {
              caption: sentence(12),
              png_base64: b64(6000 + int(4000)),
              spec: {
                type: 'bar',
                data: Array.from({ length: 120 }, () => int(1000)),
                labels: Array.from({ length: 120 }, (_, i) => `l${i}`),
              },
            }
          : null,
      table: Array.from({ length: 40 }, () => ({ sku: `SKU-${int(1e5)}`, units: int(500), revenue: int(1e6) / 100 })),
      notes: Array.from({ length: 12 }, () => sentence(15)),
    };
    obs.sections.push(section);
    size += JSON.stringify(section).length + 1;
  }
  return obs;
}

function parseArgs(argv) {
  const opts = { mb: 5, iterations: 15, warmupMs: 1500, json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--mb') opts.mb = Number(next());
    else if (a === '--iterations') opts.iterations = Number(next());
    else if (a === '--warmup-ms') opts.warmupMs = Number(next());
    else if (a === '--json') opts.json = next();
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

export async function runPayloadBench(argv = []) {
  const opts = parseArgs(argv);
  const gc = fullGc();
  let ok = true;
  const fail = (msg) => {
    console.error(`ERROR: ${msg}`);
    ok = false;
  };
  const obs = generateObservation({ targetBytes: Math.round(opts.mb * 1e6) });
  const text = JSON.stringify(obs);
  const bytes = Buffer.byteLength(text);
  const nodeName = 'build_report';

  // A final payload carrying the artifacts collected from the observation, and the args and
  // context buildFinalPayload makes it of.
  const collected = new ArtifactCollector();
  collected.collect(nodeName, SCHEMA, obs);
  const artifacts = collected.all();
  collected.free();
  const sources = [{ title: 'Q4 report', url: 'https://example.com/q4', snippet: 'revenue by region' }];
  const args = {
    answer: 'Revenue grew 15% in Q4.',
    confidence: 0.9,
    route: 'analytics',
    suggested_actions: [{ action_id: 'export_csv', label: 'Export', params: { format: 'csv' } }],
  };
  const payload = buildFinalPayload(args, { artifacts, sources }).payload;

  const VARIANTS = [
    { key: 1, label: 'streamroute redactArtifacts(object)', run: () => redactArtifacts(obs, SCHEMA) },
    { key: 2, label: 'streamroute redactArtifactsJson(text)', run: () => redactArtifactsJson(text, SCHEMA) },
    { key: 3, label: 'JS walk jsRedact(object)', run: () => jsRedact(obs, SCHEMA) },
    { key: 4, label: 'JS walk parse + jsRedact + stringify', run: () => JSON.stringify(jsRedact(JSON.parse(text), SCHEMA)) },
    {
      key: 5,
      label: 'streamroute collect + redactArtifacts + all()',
      run: () => {
        const c = new ArtifactCollector();
        c.collect(nodeName, SCHEMA, obs);
        const red = redactArtifacts(obs, SCHEMA);
        const all = c.all();
        c.free();
        return { red, all };
      },
    },
    {
      key: 6,
      label: 'streamroute collectAndRedact(object) + all()',
      run: () => {
        const c = new ArtifactCollector();
        const red = c.collectAndRedact(nodeName, SCHEMA, obs);
        const all = c.all();
        c.free();
        return { red, all };
      },
    },
    {
      key: 7,
      label: 'streamroute collectAndRedactJson(text) + all()',
      run: () => {
        const c = new ArtifactCollector();
        const red = c.collectAndRedactJson(nodeName, SCHEMA, text);
        const all = c.all();
        c.free();
        return { red, all };
      },
    },
    {
      key: 8,
      label: 'JS walk jsCollect (cloned) + jsRedact',
      run: () => {
        const all = jsCollect({}, nodeName, SCHEMA, obs);
        return { red: jsRedact(obs, SCHEMA), all };
      },
    },
    {
      key: 9,
      label: 'JS walk jsCollectAndRedact (one walk, shared)',
      run: () => {
        const all = {};
        const red = jsCollectAndRedact(all, nodeName, SCHEMA, obs);
        return { red, all };
      },
    },
    { key: 10, label: 'streamroute validateFinalPayload(payload)', run: () => validateFinalPayload(payload), payload: true },
    { key: 11, label: 'JS walk jsValidate(payload)', run: () => jsValidate(payload), payload: true },
    {
      key: 12,
      label: 'streamroute buildFinalPayload(args, context)',
      run: () => buildFinalPayload(args, { artifacts, sources }),
      payload: true,
    },
    { key: 13, label: 'JS walk jsBuild(args, context)', run: () => jsBuild(args, { artifacts, sources }), payload: true },
  ];

  // --- Correctness, before any timing.
  const wantRed = JSON.stringify(jsRedact(obs, SCHEMA));
  const wantAll = JSON.stringify(jsCollect({}, nodeName, SCHEMA, obs));
  const nArtifacts = Object.keys(JSON.parse(wantAll)[nodeName]).length;
  for (const v of VARIANTS) {
    if (v.payload) continue;
    const r = v.run();
    const red = typeof r === 'string' ? r : JSON.stringify(r.red ?? r);
    const redText = typeof r.red === 'string' ? r.red : red;
    if (redText !== wantRed) fail(`${v.label}: the redacted observation differs from the JS walk's`);
    if (r.all !== undefined && JSON.stringify(r.all) !== wantAll) fail(`${v.label}: the collected artifacts differ from the JS walk's`);
  }
  console.log(
    `observation: ${(bytes / 1e6).toFixed(2)} MB (${bytes} B), ${obs.sections.length} sections, ${nArtifacts} artifacts ` +
      `(${((bytes - Buffer.byteLength(wantRed)) / 1e6).toFixed(2)} MB of artifact data); redacted: ${(Buffer.byteLength(wantRed) / 1e3).toFixed(0)} KB`,
  );
  console.log(`check: every variant's redacted observation and collected artifacts equal the JS walk's${ok ? '' : ' — NO'}`);
  // The payload peers check less than the contract: only the artifacts they carry are compared.
  const wantArtifacts = JSON.stringify(validateFinalPayload(payload).artifacts);
  for (const v of VARIANTS.filter((x) => x.payload)) {
    const r = v.run();
    if (JSON.stringify((r.payload ?? r).artifacts) !== wantArtifacts) fail(`${v.label}: the payload's artifacts differ`);
  }
  console.log(
    `payload: ${(Buffer.byteLength(JSON.stringify(payload)) / 1e6).toFixed(2)} MB (the collected artifacts, a source, an action)`,
  );
  console.log(
    `timing: median of ${opts.iterations} interleaved rounds after ${opts.warmupMs} ms warm-up per variant, a minor GC before each run`,
  );

  for (const v of VARIANTS) {
    const t0 = performance.now();
    while (performance.now() - t0 < opts.warmupMs) v.run();
  }
  const times = new Map(VARIANTS.map((v) => [v.key, []]));
  for (let round = 0; round < opts.iterations; round++) {
    for (const v of VARIANTS) {
      gc({ type: 'minor' });
      const t0 = performance.now();
      v.run();
      times.get(v.key).push(performance.now() - t0);
    }
  }
  const results = VARIANTS.map((v) => {
    const xs = times.get(v.key);
    const ms = median(xs);
    return { key: v.key, label: v.label, ms, min: Math.min(...xs), max: Math.max(...xs), mbps: bytes / 1e6 / (ms / 1e3) };
  });
  const byKey = new Map(results.map((r) => [r.key, r]));
  // Each streamroute variant against the JS walk doing the same job.
  const peer = { 1: 3, 2: 4, 5: 8, 6: 9, 7: 9, 10: 11, 12: 13 };
  console.log('');
  console.log('| variant | median ms | range ms | MB/s | vs JS walk |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of results) {
    const p = peer[r.key] ? byKey.get(peer[r.key]) : null;
    const ratio = p ? `${(p.ms / r.ms).toFixed(2)}x (vs (${p.key}))` : '';
    console.log(
      `| (${r.key}) ${r.label} | ${r.ms.toFixed(1)} | ${r.min.toFixed(1)}–${r.max.toFixed(1)} | ${r.mbps.toFixed(0)} | ${ratio} |`,
    );
  }
  console.log('');
  console.log('"vs JS walk" > 1 means streamroute is faster than the JS walk doing the same job.');
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ bytes, results }, null, 2));
  return { ok, results };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ok } = await runPayloadBench(process.argv.slice(2));
  if (!ok) process.exit(1);
}
