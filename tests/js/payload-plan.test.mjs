// The object route of redactArtifacts and ArtifactCollector (a JS walk by the schema's plan,
// pkg/entry/classes/payload.js) against the JSON-text route (redactArtifactsJson,
// collectAndRedactJson): the same redacted observation, the same collected artifacts and
// warnings, the same store calls and the same errors, over generated schemas and
// observations, the fixtures of payload.test.mjs and values JSON.stringify treats specially.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sr from 'streamroute/payload';
import { generate, generateHidden, mulberry32 } from './helpers/payload-gen.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const corpus = (name) => JSON.parse(readFileSync(join(here, '..', 'corpus', 'payload', name), 'utf8'));

/** What `f` returns, or the code and message of what it throws. */
function outcome(f) {
  try {
    return { value: f() };
  } catch (e) {
    return { code: e.code ?? String(e), message: e.message };
  }
}

/** A collector that records its store calls. */
function collector(maxInlineBytes) {
  const calls = [];
  const store = (node, field, value) => {
    calls.push([node, field, value]);
    return `ref-${calls.length}`;
  };
  return { c: new sr.ArtifactCollector(maxInlineBytes === undefined ? undefined : { maxInlineBytes, store }), calls };
}

/** Compares the object route with the text route on one observation and schema. */
function compare(observation, schema, label, maxInlineBytes) {
  const text = outcome(() => JSON.stringify(observation)).value;
  if (text === undefined) {
    // A BigInt or a cycle: what JSON.stringify cannot write is `invalid_input`, as it was.
    assert.equal(outcome(() => sr.redactArtifacts(observation, schema)).code, 'invalid_input', label);
    assert.equal(outcome(() => new sr.ArtifactCollector().collectAndRedact('n', schema, observation)).code, 'invalid_input', label);
    return;
  }
  const want = outcome(() => JSON.parse(sr.redactArtifactsJson(text, schema)));
  const got = outcome(() => sr.redactArtifacts(observation, schema));
  assert.deepStrictEqual(got, want, `${label}: redactArtifacts`);
  for (const max of [undefined, maxInlineBytes ?? 0]) {
    const a = collector(max);
    const b = collector(max);
    const gotRed = outcome(() => a.c.collectAndRedact('node', schema, observation));
    const wantRed = outcome(() => JSON.parse(b.c.collectAndRedactJson('node', schema, text)));
    assert.deepStrictEqual(gotRed, wantRed, `${label}: collectAndRedact (maxInlineBytes ${max})`);
    assert.deepStrictEqual(a.c.all(), b.c.all(), `${label}: all()`);
    assert.deepStrictEqual(a.c.warnings, b.c.warnings, `${label}: warnings`);
    assert.deepStrictEqual(a.calls, b.calls, `${label}: store calls`);
    const c = collector(max);
    const d = collector(max);
    assert.deepStrictEqual(
      outcome(() => c.c.collect('node', schema, observation)),
      outcome(() => d.c.collectJson('node', schema, text)),
      `${label}: collect`,
    );
    assert.deepStrictEqual(c.c.all(), d.c.all(), `${label}: collect all()`);
    for (const x of [a, b, c, d]) x.c.free();
  }
  assert.equal(JSON.stringify(observation), text, `${label}: input untouched`);
}

test('object route = text route: generated schemas and observations', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const { schema, observation } = generate(seed);
    compare(observation, schema, `seed ${seed}`, 20);
    compare(observation, JSON.stringify(schema), `seed ${seed} (schema text)`, 20);
    const hidden = generateHidden(seed);
    compare(hidden.observation, hidden.schema, `hidden seed ${seed}`, 8);
  }
});

test('object route = text route: the payload fixtures', () => {
  const schema = corpus('appendix_a_schema.json');
  const observation = corpus('appendix_a_observation.json');
  compare(observation, schema, 'appendix A', 100);
  assert.deepStrictEqual(sr.redactArtifacts(observation, schema), corpus('appendix_a_redacted.json'));
});

test('object route = text route: values JSON.stringify treats specially, and the plan shapes', () => {
  const schema = {
    type: 'object',
    properties: {
      a: { artifact: true },
      'x.y': { artifact: true, stream: true },
      '': { type: 'object', properties: { z: { artifact: true } } },
      ['__proto__']: { artifact: true },
      n: { type: 'object', patternProperties: { '^p': { artifact: true } }, additionalProperties: { type: 'string' } },
      t: { type: 'array', prefixItems: [{ artifact: true }, { type: 'string' }], items: { artifact: true, stream_id: 's' } },
      u: { type: 'array', items: [{ type: 'object', properties: { a: { artifact: true } } }], additionalItems: { artifact: true } },
      r: { $ref: '#' },
      s: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/S' }] },
    },
    $defs: { S: { type: 'object', properties: { deep: { artifact: true, stream: 1 } } } },
  };
  const rnd = mulberry32(7);
  const values = [
    0,
    -0,
    1e21,
    1.5,
    -1e-7,
    NaN,
    Infinity,
    undefined,
    () => 1,
    Symbol('s'),
    null,
    true,
    'é✓😀',
    '"\\\n\u0001\u001f\u2028',
    [],
    {},
    [undefined, () => 1, NaN, -0],
    { k: undefined, f: () => 1, v: 1 },
    'x'.repeat(2000),
    Array.from({ length: 300 }, (_, i) => ({ i, s: `v${i}` })),
  ];
  const pick = () => values[Math.floor(rnd() * values.length)];
  for (let i = 0; i < 400; i++) {
    const obs = {};
    for (const k of ['a', 'x.y', 'n', 't', 'u', 'r', 's', 'other', '7', '__proto__', '']) {
      if (rnd() < 0.3) continue;
      let v = pick();
      if (k === 'n') v = { p1: pick(), q: pick(), p2: { deep: pick() } };
      if (k === 't' || k === 'u') v = [pick(), pick(), pick(), { a: pick() }];
      if (k === 'r') v = { a: pick(), r: { a: pick(), n: { pz: pick() } } };
      if (k === 's') v = rnd() < 0.2 ? null : { deep: pick(), other: pick() };
      if (k === '') v = { z: pick(), w: pick() };
      Object.defineProperty(obs, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    compare(obs, schema, `case ${i}`, 64);
    compare([obs, pick()], { type: 'array', items: schema, $defs: schema.$defs }, `array case ${i}`, 64);
  }
  const red = sr.redactArtifacts(JSON.parse('{"__proto__":{"secret":1},"keep":1}'), schema);
  assert.ok(Object.hasOwn(red, '__proto__'));
  assert.equal(Object.getPrototypeOf(red), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(red, '__proto__').value, '<artifact:dict size=12B>');
});

test('object route: what it does not model goes the text route, with its result or error', () => {
  const schema = { type: 'object', properties: { a: { artifact: true }, b: { type: 'object' } } };
  const cyclic = { b: {} };
  cyclic.b.self = cyclic;
  const deep = {};
  let at = deep;
  for (let i = 0; i < 600; i++) at = at.b = {};
  for (const [label, obs] of [
    ['toJSON', { a: { toJSON: () => 'j' }, b: { toJSON: () => [1] } }],
    ['Date', { a: new Date(0), b: new Date(0) }],
    [
      'class instance',
      {
        a: new (class K {
          x = 1;
        })(),
        b: new Map([[1, 2]]),
      },
    ],
    ['boxed', { a: Object(1), b: Object('s') }],
    ['BigInt', { a: 1n }],
    ['BigInt outside', { b: { c: 1n } }],
    ['cycle', cyclic],
    ['lone surrogate', { a: 'x\ud800', b: { '\udc00': 1 } }],
    ['deep', deep],
    [
      'getter',
      {
        get a() {
          return [1, 2];
        },
        b: {},
      },
    ],
  ]) {
    compare(obs, schema, label, 4);
  }
  const wide = { anyOf: Array.from({ length: 1100 }, (_, i) => ({ title: `m${i}` })) };
  compare({ a: 1, x: 2 }, { type: 'object', properties: { x: wide, a: { artifact: true } } }, 'too complex', 4);
  compare({ a: 1 }, { type: 'object', properties: { x: wide, a: { artifact: true } } }, 'too complex, absent', 4);
  compare({ a: 1 }, 5, 'bad schema', 4);
  compare({ a: 1 }, '{bad', 'bad schema text', 4);
});

test('object route: a store that throws or returns no string', () => {
  const schema = { type: 'object', properties: { a: { artifact: true } } };
  for (const store of [
    () => {
      throw new Error('boom');
    },
    () => 5,
  ]) {
    const a = new sr.ArtifactCollector({ maxInlineBytes: 1, store });
    const b = new sr.ArtifactCollector({ maxInlineBytes: 1, store });
    const got = outcome(() => a.collectAndRedact('n', schema, { a: [1, 2] }));
    const want = outcome(() => b.collectAndRedactJson('n', schema, '{"a":[1,2]}'));
    assert.deepStrictEqual(got, want);
    assert.ok(got.code !== undefined);
    assert.deepStrictEqual(a.all(), {});
  }
});

test('validateFinalPayload and buildFinalPayload: artifacts copied in JS, the same as through wasm', () => {
  // An instance of a class is not walked in JS: it goes to wasm whole, as before (its JSON is
  // the same as the plain object's).
  const whole = (v) => Object.assign(new (class Whole {})(), v);
  const rnd = mulberry32(11);
  const odd = [NaN, Infinity, -Infinity, -0, undefined, () => 1, 1e21, 'é😀', null, [1, undefined, NaN], { u: undefined }];
  const pick = () => odd[Math.floor(rnd() * odd.length)];
  for (let i = 0; i < 200; i++) {
    const fields = () => ({ a: pick(), b: { c: pick(), d: [pick(), pick()] }, __proto__x: pick(), 7: pick() });
    const artifacts = { tool: fields(), other: fields() };
    if (i % 7 === 0) artifacts.bad = 'not an object';
    if (i % 11 === 0) Object.defineProperty(artifacts, '__proto__', { value: fields(), enumerable: true });
    const payload = { raw_answer: 'x', confidence: i % 5 === 0 ? NaN : 0.5, artifacts };
    assert.deepStrictEqual(
      outcome(() => sr.validateFinalPayload(payload)),
      outcome(() => sr.validateFinalPayload(whole(payload))),
      `validate ${i}`,
    );
    const args = { answer: 'a', artifacts: { tool: { a: 1, z: pick() } } };
    const context = { artifacts, sources: [], reflectionScore: i % 9 === 0 ? 2 : 0.5 };
    assert.deepStrictEqual(
      outcome(() => sr.buildFinalPayload(args, context)),
      outcome(() => sr.buildFinalPayload(args, whole(context))),
      `build ${i}`,
    );
  }
});
