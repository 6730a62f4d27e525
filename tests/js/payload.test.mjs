// FinalPayload, artifacts and sources from the packed package: validateFinalPayload (every
// field rule, defaults, `payload_invalid` with `problems`), buildFinalPayload (fallbacks,
// B19/B20 fixed, context), redactArtifacts (+Json) placeholders and property tests,
// ArtifactCollector (store, maxInlineBytes, artifact_large), collectSources, ArtifactStream,
// the RFC's Appendix A end to end (in Node, workerd and Chromium), and the
// TypeScript types under `tsc --strict`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sr from 'streamroute/payload';
import { normalizeAction } from 'streamroute';
import { Miniflare } from 'miniflare';
import { PKG_DIR, bundleWorker, fileUnder, launchChromium, listen, sendFile } from './helpers/runtimes.mjs';
import { typecheck } from './helpers/typecheck.mjs';
import { generate, generateHidden, MARK } from './helpers/payload-gen.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const corpus = (name) => JSON.parse(readFileSync(join(here, '..', 'corpus', 'payload', name), 'utf8'));
/** JSON text keeps key order, so equal text means equal values in the same order. */
const same = (got, want, msg) => assert.equal(JSON.stringify(got), JSON.stringify(want), msg);

function assertCode(fn, code, check) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof sr.StreamrouteError, 'a StreamrouteError');
    assert.equal(e.code, code, e.message);
    check?.(e);
    return true;
  });
}

const DEFAULTS = {
  raw_answer: '',
  artifacts: {},
  confidence: null,
  sources: [],
  route: null,
  suggested_actions: [],
  requires_followup: false,
  warnings: [],
  language: null,
  extra: {},
};

// ---------------------------------------------------------------------------------------------
// Appendix A

test('Appendix A: tool schema, observation, redacted context, final payload', () => {
  const schema = corpus('appendix_a_schema.json');
  const observation = corpus('appendix_a_observation.json');
  same(sr.redactArtifacts(observation, schema), corpus('appendix_a_redacted.json'));
  same(JSON.parse(sr.redactArtifactsJson(JSON.stringify(observation), schema)), corpus('appendix_a_redacted.json'));
  const collector = new sr.ArtifactCollector();
  collector.collect('analyze_sales', schema, observation);
  same(collector.all(), { analyze_sales: { chart_options: observation.chart_options, raw_data: observation.raw_data } });
  assert.deepEqual(collector.warnings, []);
  const { payload, warnings } = sr.buildFinalPayload(corpus('appendix_a_args.json'), { artifacts: collector.all() });
  assert.deepEqual(warnings, []);
  same(payload, corpus('appendix_a_payload.json'));
  same(sr.validateFinalPayload(payload), payload);
  // The frontend code of the appendix works on it.
  assert.equal(payload.artifacts.analyze_sales?.chart_options, payload.artifacts.analyze_sales.chart_options);
  assert.equal(`${(payload.confidence * 100).toFixed(0)}%`, '92%');
  assert.deepEqual(
    payload.suggested_actions.map((a) => a.label),
    ['Export Raw Data', 'Compare to Q3'],
  );
  assert.deepEqual(sr.collectSources([{ node: 'analyze_sales', schema, observation }]), []);
  // One walk for both, object and JSON forms.
  const c2 = new sr.ArtifactCollector();
  same(c2.collectAndRedact('analyze_sales', schema, observation), corpus('appendix_a_redacted.json'));
  const c3 = new sr.ArtifactCollector();
  same(
    JSON.parse(c3.collectAndRedactJson('analyze_sales', JSON.stringify(schema), JSON.stringify(observation))),
    corpus('appendix_a_redacted.json'),
  );
  same(c2.all(), collector.all());
  same(c3.all(), collector.all());
});

// ---------------------------------------------------------------------------------------------
// validateFinalPayload

test('validateFinalPayload fills every default, as plain objects', () => {
  const p = sr.validateFinalPayload({ raw_answer: 'hi' });
  same(p, { ...DEFAULTS, raw_answer: 'hi' });
  assert.equal(Object.getPrototypeOf(p.artifacts), Object.prototype);
  assert.equal(Object.getPrototypeOf(p.extra), Object.prototype);
  const full = sr.validateFinalPayload({
    raw_answer: 'a',
    artifacts: { t: { f: [1] } },
    confidence: 1,
    sources: [{ title: 'T', url: 'u' }],
    route: 'r',
    suggested_actions: [{ action_id: 'x', label: 'X' }],
    requires_followup: true,
    warnings: ['w'],
    language: 'es',
    extra: { k: 1 },
  });
  same(full.sources, [{ title: 'T', url: 'u', snippet: null, relevance_score: null }]);
  same(full.suggested_actions, [{ action_id: 'x', label: 'X', params: {} }]);
  assert.equal(full.confidence, 1);
});

test('validateFinalPayload: every rule throws payload_invalid with its path', () => {
  const cases = [
    [null, '$'],
    ['text', '$'],
    [[], '$'],
    [{}, 'raw_answer'],
    [{ raw_answer: 3 }, 'raw_answer'],
    [{ raw_answer: 'a', confidence: 1.5 }, 'confidence'],
    [{ raw_answer: 'a', confidence: -1 }, 'confidence'],
    [{ raw_answer: 'a', confidence: '0.5' }, 'confidence'],
    // A non-finite number is not a missing one (JSON.stringify would make it null).
    [{ raw_answer: 'a', confidence: NaN }, 'confidence'],
    [{ raw_answer: 'a', confidence: Infinity }, 'confidence'],
    [{ raw_answer: 'a', confidence: -Infinity }, 'confidence'],
    [{ raw_answer: 'a', artifacts: { t: 1 } }, 'artifacts.t'],
    [{ raw_answer: 'a', artifacts: [] }, 'artifacts'],
    [{ raw_answer: 'a', sources: [{ url: 'u' }] }, 'sources[0].title'],
    [{ raw_answer: 'a', sources: [{ title: 't', relevance_score: 'x' }] }, 'sources[0].relevance_score'],
    [{ raw_answer: 'a', sources: {} }, 'sources'],
    [{ raw_answer: 'a', route: 1 }, 'route'],
    [{ raw_answer: 'a', suggested_actions: [{ action_id: 'x' }] }, 'suggested_actions[0].label'],
    [{ raw_answer: 'a', suggested_actions: [{ action_id: 'x', label: 'l', params: 1 }] }, 'suggested_actions[0].params'],
    [{ raw_answer: 'a', requires_followup: 'true' }, 'requires_followup'],
    [{ raw_answer: 'a', warnings: [1] }, 'warnings[0]'],
    [{ raw_answer: 'a', language: 'english' }, 'language'],
    [{ raw_answer: 'a', language: 'en-US' }, 'language'],
    [{ raw_answer: 'a', extra: 'x' }, 'extra'],
    [{ raw_answer: 'a', answer: 'x' }, 'answer'],
  ];
  for (const [value, path] of cases) {
    assertCode(
      () => sr.validateFinalPayload(value),
      'payload_invalid',
      (e) => {
        assert.equal(e.problems.length, 1, JSON.stringify(e.problems));
        assert.equal(e.problems[0].path, path, JSON.stringify(value));
        assert.ok(e.message.includes(`${path}: `), e.message);
      },
    );
  }
  assertCode(
    () => sr.validateFinalPayload({ confidence: 2, sources: [{}, { title: 1 }], language: 'xx' }),
    'payload_invalid',
    (e) => {
      assert.deepEqual(
        e.problems.map((p) => p.path),
        ['raw_answer', 'confidence', 'sources[0].title', 'sources[1].title', 'language'],
      );
    },
  );
});

// ---------------------------------------------------------------------------------------------
// buildFinalPayload

test('buildFinalPayload: answer, fallbacks, never a JSON dump', () => {
  const answer = (args, ctx) => sr.buildFinalPayload(args, ctx).payload.raw_answer;
  assert.equal(answer({ answer: 'A' }), 'A');
  assert.equal(answer({ raw_answer: 'R' }), 'R');
  assert.equal(answer({ answer: '', raw_answer: 'text' }), 'text'); // B6
  assert.equal(answer({ text: 'T', result: 'R' }), 'T');
  assert.equal(answer({ result: { content: 'deep' } }), 'deep');
  assert.equal(answer({ result: 42 }), '42');
  assert.equal(answer('plain'), 'plain');
  assert.equal(answer({ next_node: 'final_response', args: { answer: 'from action' } }), 'from action');
  assert.equal(answer(normalizeAction('{"next_node":"final_response","args":{"answer":"normalised"}}')), 'normalised');
  // B20: args without an answer never become the answer text.
  assert.equal(answer({ confidence: 0.9 }, { lastObservation: { summary: 'from the tool' } }), 'from the tool');
  const none = sr.buildFinalPayload({ confidence: 0.9 });
  assert.equal(none.payload.raw_answer, 'No answer produced.');
  assert.deepEqual(none.warnings, ['raw_answer_missing: no answer in the args or the last observation']);
  assert.equal(none.payload.confidence, 0.9);
});

test('buildFinalPayload: an invalid field is dropped with a warning, the rest kept (B20)', () => {
  const { payload, warnings } = sr.buildFinalPayload({
    raw_answer: 'A',
    confidence: 1.5,
    route: 'kb',
    language: 'english',
    suggested_actions: [{ action_id: 'x', label: 'X' }, { label: 'no id' }],
  });
  same(payload, {
    ...DEFAULTS,
    raw_answer: 'A',
    route: 'kb',
    suggested_actions: [{ action_id: 'x', label: 'X', params: {} }],
  });
  assert.deepEqual(warnings, [
    'field_dropped: confidence: must be between 0 and 1 (got 1.5)',
    'item_dropped: suggested_actions[1]: suggested_actions[1].action_id: required string is missing',
    'field_dropped: language: must be an ISO 639-1 code such as "en" (got "english")',
  ]);
});

test('buildFinalPayload: a non-finite confidence is dropped with a warning, not taken as missing', () => {
  const { payload, warnings } = sr.buildFinalPayload({ raw_answer: 'A', confidence: NaN });
  assert.equal(payload.confidence, null);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^field_dropped: confidence: /);
});

test('buildFinalPayload: model sources merged with collected ones (B19), extra, reflection score', () => {
  const { payload } = sr.buildFinalPayload(
    { answer: 'A', sources: [{ title: 'S' }, { title: 'M', url: 'u' }], confidence: 0.95, chart_id: 7 },
    {
      sources: [{ title: 'S', url: null, snippet: null, relevance_score: null }, { title: 'C' }],
      reflectionScore: 0.4,
      artifacts: { tool: { chart: { c: 1 } } },
    },
  );
  assert.deepEqual(
    payload.sources.map((s) => s.title),
    ['S', 'M', 'C'],
  );
  assert.equal(payload.confidence, 0.4);
  same(payload.extra, { chart_id: 7, model_confidence: 0.95 });
  same(payload.artifacts, { tool: { chart: { c: 1 } } });
  // B19 alone.
  same(sr.buildFinalPayload({ answer: 'A', sources: [{ title: 'S' }] }).payload.sources, [
    { title: 'S', url: null, snippet: null, relevance_score: null },
  ]);
  assertCode(() => sr.buildFinalPayload({ answer: 'A' }, { reflectionScore: 3 }), 'invalid_input');
  assertCode(() => sr.buildFinalPayload({ answer: 'A' }, { sources: [{ url: 'x' }] }), 'invalid_input');
  assertCode(() => sr.buildFinalPayload({ answer: 'A' }, { artifacts: { t: 1 } }), 'invalid_input');
});

// ---------------------------------------------------------------------------------------------
// redactArtifacts

test('redactArtifacts: placeholders for every type, nested, streamed, unknown keys', () => {
  const schema = {
    $defs: { Fig: { type: 'object', properties: { png: { type: 'string', artifact: true }, caption: { type: 'string' } } } },
    type: 'object',
    properties: {
      d: { artifact: true },
      l: { artifact: true },
      s: { artifact: true },
      i: { artifact: true },
      f: { artifact: true },
      b: { artifact: true },
      n: { artifact: true },
      chart: { anyOf: [{ type: 'object' }, { type: 'null' }], artifact: true, stream: true },
      figs: { type: 'array', items: { $ref: '#/$defs/Fig' } },
      main: { anyOf: [{ $ref: '#/$defs/Fig' }, { type: 'null' }] },
    },
  };
  const obs = {
    d: { a: 1, b: 2 },
    l: [1, 2, 3],
    s: 'héllo',
    i: 5,
    f: 2.5,
    b: true,
    n: null,
    chart: { x: 1 },
    figs: [{ png: 'AAAA', caption: 'c' }],
    main: { png: 'BB' },
    other: { png: 'visible' },
  };
  same(sr.redactArtifacts(obs, schema), {
    d: '<artifact:dict size=13B>',
    l: '<artifact:list size=3 items>',
    s: '<artifact:str size=5 chars>',
    i: '<artifact:int>',
    f: '<artifact:float>',
    b: '<artifact:bool>',
    n: '<artifact:NoneType>',
    chart: '<artifact:dict stream=chart>',
    figs: [{ png: '<artifact:str size=4 chars>', caption: 'c' }],
    main: { png: '<artifact:str size=2 chars>' },
    other: { png: 'visible' },
  });
  same(sr.redactArtifacts({ d: { k: 'x'.repeat(42 * 1024) } }, schema), { d: '<artifact:dict size=42KB>' });
  // The input is not modified.
  assert.equal(obs.s, 'héllo');
  // Primitives come back as they are; the schema may be JSON text.
  assert.equal(sr.redactArtifacts('text', schema), 'text');
  assert.equal(sr.redactArtifacts(3, JSON.stringify(schema)), 3);
  assert.equal(sr.redactArtifacts(null, schema), null);
  assertCode(() => sr.redactArtifacts({}, 5), 'invalid_input');
  assertCode(() => sr.redactArtifacts({}, '{bad json'), 'invalid_input');
  assertCode(() => sr.redactArtifactsJson('{bad', schema), 'invalid_input');
});

test('property: redaction never leaks artifact content; without marks it is the identity', () => {
  for (let seed = 1; seed <= 400; seed++) {
    const { schema, observation } = generate(seed);
    const text = JSON.stringify(observation);
    const red = sr.redactArtifacts(observation, schema);
    assert.ok(!JSON.stringify(red).includes(MARK), `seed ${seed}: ${JSON.stringify(red)}`);
    assert.equal(sr.redactArtifactsJson(text, schema), JSON.stringify(red), `seed ${seed}`);
    const c = new sr.ArtifactCollector();
    same(c.collectAndRedact('t', schema, observation), red, `seed ${seed}`);
    assert.equal(JSON.stringify(observation), text, 'input untouched');
    const plain = generate(seed, { marks: false });
    same(sr.redactArtifacts(plain.observation, plain.schema), plain.observation, `seed ${seed}`);
    const c2 = new sr.ArtifactCollector();
    c2.collect('t', plain.schema, plain.observation);
    same(c2.all(), {});
  }
});

// ---------------------------------------------------------------------------------------------
// ArtifactCollector, collectSources

test('ArtifactCollector: merge, overwrite, maxInlineBytes, store, artifact_large', () => {
  const schema = { properties: { big: { artifact: true }, small: { artifact: true }, text: { type: 'string' } } };
  const c = new sr.ArtifactCollector();
  assert.equal(c.maxInlineBytes, 1048576);
  c.collect('t1', schema, { small: [1], text: 'x' });
  c.collect('t2', schema, { text: 'none' });
  c.collect('t1', schema, { small: [2], big: 'b' });
  same(c.all(), { t1: { small: [2], big: 'b' } });
  c.clear();
  same(c.all(), {});

  const obs = { big: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], small: [1] };
  const inline = new sr.ArtifactCollector({ maxInlineBytes: 10 });
  inline.collect('t', schema, obs);
  same(inline.all(), { t: obs });
  assert.deepEqual(inline.warnings, ['artifact_large: t.big is 22 bytes (over 10), kept inline (no store)']);

  const calls = [];
  const stored = new sr.ArtifactCollector({
    maxInlineBytes: 10,
    store: (node, field, value) => {
      calls.push([node, field, value]);
      return `s3://bucket/${field}`;
    },
  });
  stored.collect('t', schema, obs);
  same(stored.all(), { t: { big: { artifact_ref: 's3://bucket/big', type: 'list', size_bytes: 22 }, small: [1] } });
  same(calls, [['t', 'big', obs.big]]);
  assert.ok(stored.warnings[0].startsWith('artifact_large: t.big'));

  const boom = new Error('disk full');
  const failing = new sr.ArtifactCollector({
    maxInlineBytes: 0,
    store: () => {
      throw boom;
    },
  });
  assert.throws(
    () => failing.collect('t', schema, obs),
    (e) => e === boom,
  );
  same(failing.all(), {});
  const asyncStore = new sr.ArtifactCollector({ maxInlineBytes: 0, store: async () => 'ref' });
  assertCode(() => asyncStore.collect('t', schema, obs), 'invalid_input');
  assertCode(() => new sr.ArtifactCollector({ maxInlineBytes: -1 }), 'invalid_option');
  assertCode(() => new sr.ArtifactCollector({ maxInlineBytes: 1.5 }), 'invalid_option');
  assertCode(() => new sr.ArtifactCollector({ store: 'no' }), 'invalid_option');
});

test('collectSources: marked models, source_field, nested lists, dedup', () => {
  const schema = {
    $defs: {
      Hit: {
        type: 'object',
        produces_sources: true,
        properties: { title: {}, url: {}, snippet: {}, score: { source_field: 'relevance_score' } },
      },
    },
    properties: { hits: { type: 'array', items: { $ref: '#/$defs/Hit' } } },
  };
  const observation = {
    hits: [
      { title: 'A', url: 'https://a', snippet: 's', score: 0.9 },
      { url: 'no title' },
      { title: 'A', url: 'https://a', snippet: 's', score: 0.2 },
      { title: 'B' },
    ],
  };
  same(
    sr.collectSources([
      { node: 'search', schema, observation },
      { node: 'none', schema, observation: null },
    ]),
    [
      { title: 'A', url: 'https://a', snippet: 's', relevance_score: 0.9 },
      { title: 'B', url: null, snippet: null, relevance_score: null },
    ],
  );
  assertCode(() => sr.collectSources([{ schema }]), 'invalid_input');
  assertCode(() => sr.collectSources({}), 'invalid_input');
});

// ---------------------------------------------------------------------------------------------
// ArtifactStream

test('ArtifactStream: artifact_chunk events with per-stream seq, done event', () => {
  const s = new sr.ArtifactStream();
  same(s.emit('chart', { a: 1 }), {
    type: 'artifact_chunk',
    stream_id: 'chart',
    seq: 0,
    chunk: { a: 1 },
    done: false,
    artifact_type: 'dict',
  });
  same(s.emit('rows', [1], false, 'csv'), {
    type: 'artifact_chunk',
    stream_id: 'rows',
    seq: 0,
    chunk: [1],
    done: false,
    artifact_type: 'csv',
  });
  assert.equal(s.emit('chart', 'x').seq, 1);
  assert.deepEqual(s.openStreams(), ['chart', 'rows']);
  const last = s.emit('chart', { b: 2 }, true);
  assert.deepEqual([last.seq, last.done], [2, true]);
  assertCode(() => s.emit('chart', 1), 'invalid_state');
  assertCode(() => s.emit('', 1), 'invalid_input');
  assertCode(() => s.emit('x', undefined), 'invalid_input');
  assert.deepEqual(s.openStreams(), ['rows']);
  same(s.finish({ raw_answer: 'done' }), { type: 'done', payload: { ...DEFAULTS, raw_answer: 'done' } });
  assertCode(() => s.finish({ confidence: 2 }), 'payload_invalid');
  s.reset();
  assert.equal(s.emit('chart', 1).seq, 0);
});

// ---------------------------------------------------------------------------------------------
// TypeScript

test('TypeScript: a consumer using every payload type type-checks; a type error is reported', () => {
  const ok = typecheck(
    'ts-payload',
    `
    import { validateFinalPayload, buildFinalPayload, redactArtifacts, redactArtifactsJson, collectSources,
      ArtifactCollector, ArtifactStream, StreamrouteError,
      type FinalPayload, type Source, type SuggestedAction, type PlanStep, type PlanJoin,
      type PlanArgs, type TaskArgs, type FinalResponseArgs, type FinalPayloadContext, type BuiltFinalPayload,
      type ArtifactCollectorOptions, type ArtifactRef, type ToolStepInput, type ArtifactChunkEvent,
      type FinalPayloadDoneEvent, type PayloadProblem } from 'streamroute/payload';
    import { normalizeAction, type PlannerAction } from 'streamroute';
    const source: Source = { title: 't', url: null, snippet: 's', relevance_score: 0.5 };
    const action: SuggestedAction = { action_id: 'export_csv', label: 'Export', params: { format: 'csv' } };
    const step: PlanStep = { node: 'search', args: { q: 'x' } };
    const join: PlanJoin = { node: null, inject: { results: '$results' } };
    const plan: PlanArgs = { steps: [step], join };
    const task: TaskArgs = { name: 'n', mode: 'subagent', query: 'q', merge_strategy: 'HUMAN_GATED', group_report: 'all', retain_turn: true };
    const fin: FinalResponseArgs = { answer: 'a', sources: [{ title: 't' }], confidence: 0.5, language: 'en' };
    const planner: PlannerAction = normalizeAction({ next_node: 'final_response', args: fin });
    const ctx: FinalPayloadContext = { sources: [source], reflectionScore: 0.9, lastObservation: { x: 1 } };
    const built: BuiltFinalPayload = buildFinalPayload(fin, ctx);
    const fromAction: BuiltFinalPayload = buildFinalPayload(planner);
    const p: FinalPayload = validateFinalPayload(built.payload);
    const answer: string = p.raw_answer;
    const conf: number | null = p.confidence;
    const lang: string | null = p.language;
    const chart: unknown = p.artifacts['analyze_sales']?.['chart_options'];
    const firstAction: SuggestedAction | undefined = p.suggested_actions[0];
    const opts: ArtifactCollectorOptions = { maxInlineBytes: 1024, store: (node, field, value) => node + field + String(value) };
    const collector = new ArtifactCollector(opts);
    collector.collect('tool', { properties: { a: { artifact: true } } }, { a: 1 });
    collector.collectJson('tool', '{}', '{}');
    const all: Record<string, Record<string, unknown>> = collector.all();
    const warnings: string[] = collector.warnings;
    const ref: ArtifactRef = { artifact_ref: 'r', type: 'dict', size_bytes: 1 };
    const redacted: unknown = redactArtifacts({ a: 1 }, { type: 'object' });
    const redactedText: string = redactArtifactsJson('{"a":1}', '{"type":"object"}');
    const both: unknown = collector.collectAndRedact('tool', true, { a: 1 });
    const steps: ToolStepInput[] = [{ node: 'search', schema: { produces_sources: true }, observation: { title: 't' } }];
    const sources: Source[] = collectSources(steps);
    const stream = new ArtifactStream();
    const ev: ArtifactChunkEvent = stream.emit('chart', { a: 1 }, true, 'echarts');
    const kind: 'artifact_chunk' = ev.type;
    const seq: number = ev.seq;
    const done: FinalPayloadDoneEvent = stream.finish(p);
    const open: string[] = stream.openStreams();
    try { validateFinalPayload({}); } catch (e) {
      if (e instanceof StreamrouteError) { const probs: PayloadProblem[] | undefined = e.problems; void probs; }
    }
    void [plan, task, fromAction, answer, conf, lang, chart, firstAction, all, warnings, ref, redacted,
      redactedText, both, sources, kind, seq, done, open];
  `,
  );
  assert.equal(ok.status, 0, ok.output);
  const bad = typecheck(
    'ts-payload-bad',
    `
    import { validateFinalPayload, type FinalPayload, type TaskArgs } from 'streamroute/payload';
    const p: FinalPayload = validateFinalPayload({ raw_answer: 'x' });
    const n: number = p.raw_answer;
    const t: TaskArgs = { mode: 'thread' };
    void [n, t];
  `,
    'bad.mts',
  );
  assert.notEqual(bad.status, 0);
  assert.match(bad.output, /bad\.mts\(4,11\): error TS2322/);
  assert.match(bad.output, /bad\.mts\(5,27\): error TS2322/);
});

test('workerd: the payload API gives what Node gives (Appendix A)', { timeout: 60_000 }, async () => {
  const bundle = await bundleWorker(join(here, 'worker', 'payload-worker.js'), join(here, '.tmp', 'payload-worker-bundle'));
  const mf = new Miniflare({
    modulesRoot: join(here, '.tmp', 'payload-worker-bundle'),
    modules: bundle.modules,
    compatibilityDate: '2025-01-01',
  });
  try {
    await mf.ready;
    const schema = corpus('appendix_a_schema.json');
    const observation = corpus('appendix_a_observation.json');
    const args = corpus('appendix_a_args.json');
    const res = await mf.dispatchFetch('http://localhost/', { method: 'POST', body: JSON.stringify({ schema, observation, args }) });
    assert.equal(res.status, 200);
    const got = await res.json();
    same(got.redacted, corpus('appendix_a_redacted.json'));
    assert.equal(got.redactedJson, JSON.stringify(corpus('appendix_a_redacted.json')));
    same(got.built, { payload: corpus('appendix_a_payload.json'), warnings: [] });
    same(got.artifacts, corpus('appendix_a_payload.json').artifacts);
    same(got.sources, []);
    same(got.chunk, {
      type: 'artifact_chunk',
      stream_id: 'sales_chart',
      seq: 0,
      chunk: observation.chart_options,
      done: true,
      artifact_type: 'dict',
    });
    assert.deepEqual(got.error, {
      code: 'payload_invalid',
      isStreamrouteError: true,
      problems: [
        { path: 'raw_answer', message: 'required string is missing' },
        { path: 'confidence', message: 'must be between 0 and 1 (got 2)' },
      ],
    });
  } finally {
    await mf.dispose();
  }
});

test('Chromium: the browser entry gives what Node gives (Appendix A)', { timeout: 60_000 }, async () => {
  const server = await listen((req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>payload</title>');
    } else {
      sendFile(res, path.startsWith('/streamroute/') ? fileUnder(PKG_DIR, path.slice('/streamroute/'.length)) : null);
    }
  });
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${server.origin}/`);
    const input = {
      schema: corpus('appendix_a_schema.json'),
      observation: corpus('appendix_a_observation.json'),
      args: corpus('appendix_a_args.json'),
    };
    const got = JSON.parse(
      await page.evaluate(async ({ schema, observation, args }) => {
        const sr = await import('/streamroute/dist/payload/browser.js');
        await sr.init();
        const collector = new sr.ArtifactCollector();
        const redacted = collector.collectAndRedact('analyze_sales', schema, observation);
        let code = null;
        try {
          sr.validateFinalPayload({});
        } catch (e) {
          code = e instanceof sr.StreamrouteError ? e.code : 'not a StreamrouteError';
        }
        return JSON.stringify({ redacted, built: sr.buildFinalPayload(args, { artifacts: collector.all() }), code });
      }, input),
    );
    same(got.redacted, corpus('appendix_a_redacted.json'));
    same(got.built, { payload: corpus('appendix_a_payload.json'), warnings: [] });
    assert.equal(got.code, 'payload_invalid');
  } finally {
    await browser.close();
    await server.close();
  }
});

test('B18: collection sees the full observation; a clamped observation is still redacted', () => {
  const schema = {
    properties: { csv: { type: 'string', artifact: true }, rows: { type: 'array', artifact: true }, note: { type: 'string' } },
  };
  const full = { csv: 'a,b\n'.repeat(15_000), rows: Array.from({ length: 500 }, (_, i) => ({ i })), note: 'n' };
  const collector = new sr.ArtifactCollector();
  collector.collect('export', schema, full);
  assert.equal(collector.all().export.csv.length, 60_000);
  assert.equal(collector.all().export.rows.length, 500);
  // What a clamping step would send the model: strings cut to 10 000 chars, lists to 20 items.
  const clamped = { csv: full.csv.slice(0, 10_000) + '\n... [truncated: 50000 chars]', rows: full.rows.slice(0, 20), note: 'n' };
  same(sr.redactArtifacts(clamped, schema), { csv: '<artifact:str size=10029 chars>', rows: '<artifact:list size=20 items>', note: 'n' });
  same(sr.redactArtifacts(full, schema), { csv: '<artifact:str size=60000 chars>', rows: '<artifact:list size=500 items>', note: 'n' });
});

test('a string observation holding JSON is redacted and collected as JSON text', () => {
  const schema = { properties: { blob: { artifact: true }, keep: { type: 'string' } } };
  const obs = { blob: { big: 'x'.repeat(100) }, keep: 'k' };
  const text = JSON.stringify(obs, null, 2);
  assert.equal(sr.redactArtifacts(text, schema), '{"blob":"<artifact:dict size=110B>","keep":"k"}');
  assert.equal(sr.redactArtifacts(text, schema), sr.redactArtifactsJson(text, schema));
  // Nothing to redact, prose, or not JSON after all: the string as it is.
  for (const s of ['{ "keep" : "k" }', 'hello', '{not json', '  [1, 2]  ', '']) assert.equal(sr.redactArtifacts(s, schema), s);
  const c = new sr.ArtifactCollector();
  c.collect('t', schema, text);
  c.collect('u', schema, 'plain text');
  same(c.all(), { t: { blob: obs.blob } });
  const c2 = new sr.ArtifactCollector();
  assert.equal(c2.collectAndRedact('t', schema, text), '{"blob":"<artifact:dict size=110B>","keep":"k"}');
  assert.equal(c2.collectAndRedact('t', schema, '{"keep":"k"}'), '{"keep":"k"}');
  same(c2.all(), { t: { blob: obs.blob } });
});

test('one value, one result: a string holding JSON, given as a JSON string literal, is redacted and collected', () => {
  const schema = { properties: { blob: { artifact: true }, keep: { type: 'string' } } };
  const raw = JSON.stringify({ blob: { secret: MARK }, keep: 'k' });
  const want = '{"blob":"<artifact:dict size=19B>","keep":"k"}';
  assert.equal(sr.redactArtifacts(raw, schema), want);
  // The same value as JSON text: a string literal. It used to come back unredacted.
  assert.equal(sr.redactArtifactsJson(JSON.stringify(raw), schema), JSON.stringify(want));
  for (const run of [
    (c) => c.collect('t', schema, raw),
    (c) => c.collectJson('t', schema, JSON.stringify(raw)),
    (c) => assert.equal(c.collectAndRedact('t', schema, raw), want),
    (c) => assert.equal(c.collectAndRedactJson('t', schema, JSON.stringify(raw)), JSON.stringify(want)),
  ]) {
    const c = new sr.ArtifactCollector();
    run(c);
    same(c.all(), { t: { blob: { secret: MARK } } });
  }
  // Inside an object the same string is plain text (the schema describes an object there).
  same(sr.redactArtifacts({ blob: raw }, schema), { blob: `<artifact:str size=${raw.length} chars>` });
  // Sources from a string observation holding JSON.
  const flat = { produces_sources: true, properties: { title: {}, link: { source_field: 'url' } } };
  same(sr.collectSources([{ node: 'f', schema: flat, observation: '{"title":"E","link":"https://e"}' }]), [
    { title: 'E', url: 'https://e', snippet: null, relevance_score: null },
  ]);
});

test('property: marks behind unions, deep anyOf, $ref chains and cycles past the caps are never let through', () => {
  let refused = 0;
  for (let seed = 1; seed <= 150; seed++) {
    const { schema, observation, bound } = generateHidden(seed);
    const text = JSON.stringify(observation);
    const runs = {
      redactArtifacts: () => JSON.stringify(sr.redactArtifacts(observation, schema)),
      redactArtifactsJson: () => sr.redactArtifactsJson(text, schema),
      string: () => sr.redactArtifacts(text, schema),
      literal: () => JSON.parse(sr.redactArtifactsJson(JSON.stringify(text), schema)),
      collectAndRedact: () => JSON.stringify(new sr.ArtifactCollector().collectAndRedact('t', schema, observation)),
      collectAndRedactJson: () => new sr.ArtifactCollector().collectAndRedactJson('t', schema, text),
      collectString: () => new sr.ArtifactCollector().collectAndRedact('t', schema, text),
    };
    const results = Object.entries(runs).map(([name, run]) => {
      try {
        return [name, { out: run() }];
      } catch (e) {
        assert.ok(e instanceof sr.StreamrouteError, `seed ${seed} ${name}: ${e}`);
        return [name, { code: e.code }];
      }
    });
    const [, first] = results[0];
    for (const [name, r] of results) {
      same(r, first, `seed ${seed}: ${name} differs`);
      if (r.out !== undefined) assert.ok(!r.out.includes(MARK), `seed ${seed} ${name}: leaked ${r.out}`);
    }
    if (first.code !== undefined) {
      refused++;
      assert.ok(['schema_too_complex', 'json_too_deep'].includes(first.code), `seed ${seed}: ${first.code}`);
      assert.ok(bound > 170, `seed ${seed}: refused at bound ${bound}`);
    } else {
      const c = new sr.ArtifactCollector();
      c.collectJson('t', schema, JSON.stringify(text));
      assert.ok(JSON.stringify(c.all()).includes(MARK), `seed ${seed}: nothing collected`);
    }
  }
  assert.ok(refused > 10 && refused < 140, `${refused} refused`);
});
