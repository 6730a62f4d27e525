// Hostile arguments from JS, on the packed package: every export and every method, called
// with values of the wrong type (numbers for strings, objects with a bogus `length`, BigInt,
// symbols, cycles, throwing `toString`s, freed objects). Each call either works or throws a
// StreamrouteError with a code; none traps the wasm instance, and an object stays usable
// after a call on it failed (no borrow left locked by a JS exception unwinding through wasm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as sr from 'streamroute';

const { StreamrouteError } = sr;

const cycle = {};
cycle.self = cycle;
const HOSTILE = [
  undefined, null, 42, -1, NaN, 1e300, 'x', '', true, 1n, Symbol('s'), {}, [], cycle, { big: 1n },
  new Uint8Array([0xff, 0xfe, 0x41]), new Float32Array(3), () => 1, { length: -1 }, { length: 1e12 },
  { toString() { throw new Error('boom'); } }, Object.create(null), new Map([[1, 2]]),
];
const show = (v) => (typeof v === 'symbol' ? 'Symbol()' : typeof v === 'bigint' ? `${v}n`
  : typeof v === 'function' ? 'fn' : v === cycle ? 'cycle' : ArrayBuffer.isView(v) ? v.constructor.name
    : (() => { try { return JSON.stringify(v) ?? String(v); } catch { return '?'; } })());

// Constructor arguments that work, so the sweep reaches each class's methods.
const NONCE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const GOOD_CTOR = {
  TagFilter: [NONCE],
  JsonItemStream: ['$.items'],
  ToolIndex: [[{ name: 'search', description: 'finds things' }]],
  StreamMux: [{ key: 'session_id' }],
};
const SKIP = new Set(['init', 'initSync', 'StreamrouteError', 'connectSse', 'routeResponse']);

function argLists() {
  const lists = [[]];
  for (const a of HOSTILE) lists.push([a], ['x', a], [{}, a], [a, {}], [NONCE, a]);
  return lists;
}

const misfires = new Map();
function expectTyped(where, f) {
  try {
    f();
  } catch (e) {
    if (!(e instanceof StreamrouteError) || typeof e.code !== 'string' || e.code === '') {
      const key = `${where.split('(')[0]}: ${e?.constructor?.name}: ${e?.message}`;
      if (!misfires.has(key)) misfires.set(key, where);
    }
  }
  // A trap would leave the instance unusable; this call would then fail.
  assert.match(sr.makeNonce(), /^[0-9a-f]{32}$/, `the instance works after ${where}`);
}

test('every export and method throws only StreamrouteErrors on hostile arguments', () => {
  misfires.clear();
  const lists = argLists();
  for (const [name, value] of Object.entries(sr)) {
    if (SKIP.has(name) || name.startsWith('__') || typeof value !== 'function') continue;
    if (!/^[A-Z]/.test(name)) {
      for (const args of lists) expectTyped(`${name}(${args.map(show)})`, () => value(...args));
      continue;
    }
    const instances = [];
    for (const args of [GOOD_CTOR[name] ?? [], ...lists]) {
      try {
        instances.push(new value(...args));
      } catch (e) {
        expectTyped(`new ${name}(${args.map(show)})`, () => { throw e; });
      }
    }
    assert.ok(instances.length > 0, `some ${name} was constructed`);
    const obj = instances[0];
    const proto = value.prototype;
    for (const meth of Object.getOwnPropertyNames(proto)) {
      if (meth === 'constructor' || meth === 'free' || meth.startsWith('__')) continue;
      const d = Object.getOwnPropertyDescriptor(proto, meth);
      if (d.get) {
        expectTyped(`${name}.${meth}`, () => obj[meth]);
        continue;
      }
      if (typeof d.value !== 'function') continue;
      for (const args of lists) expectTyped(`${name}.${meth}(${args.map(show)})`, () => obj[meth](...args));
    }
    // Every failed call above released the object: free() takes it.
    for (const o of instances) o.free();
  }
  assert.deepEqual([...misfires].map(([k, w]) => `${k}\n    e.g. ${w}`), []);
});

test('string parameters given a non-string are invalid_input, not a wasm trap', () => {
  const cases = [
    () => new sr.TagFilter(42),
    () => new sr.TagFilter({ length: -1 }),
    () => sr.parseTagged('text', 42),
    () => sr.tagContract(7),
    () => sr.structuredModes(1),
    () => sr.redactArtifactsJson({ length: 1e12 }, true),
    () => new sr.SseEncoder().comment(5),
    () => new sr.JsonItemStream(0),
    () => new sr.ArtifactCollector().collectJson(1, true, '{}'),
    () => new sr.ArtifactStream().emit(3, 'chunk'),
    () => new sr.TaggedTurn().nextTurn(12),
  ];
  for (const f of cases) {
    assert.throws(f, (e) => e instanceof StreamrouteError && e.code === 'invalid_input' && /must be a string/.test(e.message), String(f));
  }
  const index = new sr.ToolIndex(GOOD_CTOR.ToolIndex[0]);
  assert.throws(() => index.search(42), (e) => e instanceof StreamrouteError && e.code === 'invalid_input');
  assert.throws(() => index.searchText('find', 'many'), (e) => e instanceof StreamrouteError && e.code === 'invalid_input');
  assert.throws(() => sr.autoTimeGrain(1n, 3), (e) => e instanceof StreamrouteError && e.code === 'invalid_input');
  index.free();
});

test('a value JSON.stringify throws on (BigInt, cycle) is invalid_input, and the object stays usable', () => {
  const map = new sr.CapabilityMap();
  for (const bad of [{ big: 1n }, cycle]) {
    assert.throws(() => map.audit(bad), (e) => e instanceof StreamrouteError && e.code === 'invalid_input');
    assert.throws(() => sr.validateRequirements(bad), (e) => e instanceof StreamrouteError && e.code === 'invalid_input');
    assert.throws(() => new sr.ToolIndex(bad), (e) => e instanceof StreamrouteError && e.code === 'invalid_input');
    assert.throws(() => new sr.ToolIndex({ tools: [{ name: 'a', description: 'b', embedding: [1, 2], n: 1n }] }),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_input');
  }
  assert.equal(typeof map.canonical('total'), 'string');
  map.free();
});

test('a freed object throws invalid_state', () => {
  const d = new sr.SseDecoder();
  d.free();
  assert.throws(() => d.feed('data: x\n\n'), (e) => e instanceof StreamrouteError && e.code === 'invalid_state' && /freed/.test(e.message));
  const f = new sr.TagFilter(NONCE);
  f.free();
  assert.throws(() => f.finish(), (e) => e instanceof StreamrouteError && e.code === 'invalid_state');
});

test('toSse: a profile that is not a known name, or data JSON cannot encode, is a StreamrouteError', async () => {
  for (const p of ['constructor', 'toString', 42, { toString() { throw new Error('boom'); } }, Object.create(null)]) {
    assert.throws(() => sr.toSse(p), (e) => e instanceof StreamrouteError && e.code === 'invalid_option');
  }
  const ts = sr.toSse('planner', null);
  const writer = ts.writable.getWriter();
  const reader = ts.readable.getReader();
  const wrote = writer.write({ type: 'usage', tokens: 1n }).catch((e) => e);
  const read = reader.read().catch((e) => e);
  const [w, r] = await Promise.all([wrote, read]);
  const err = w instanceof Error ? w : r;
  assert.ok(err instanceof StreamrouteError && err.code === 'invalid_input', String(err));
});

test('every option field given a hostile value: a StreamrouteError or a working object', () => {
  misfires.clear();
  const FIELDS = {
    SseDecoder: ['flushOnFinish', 'maxLineBytes', 'maxEventBytes'], SseEncoder: ['autoId', 'firstId'],
    AnswerExtractor: ['maxBufferBytes'], ArtifactCollector: ['maxInlineBytes', 'store'],
    JsonItemStream: ['strict', 'maxDepth', 'maxItemBytes'], LlmStreamChunker: ['actionSeq', 'maxBufferBytes'],
    PartialJson: ['strict', 'maxDepth', 'maxBufferBytes'], StreamRouter: ['provider', 'content', 'nonce', 'maxEventBytes'],
    TagEventWriter: ['firstId', 'retry'], TagFilter: ['blocks', 'maxBufferBytes'], TaggedTurn: ['nonce', 'blocks', 'maxBufferBytes'],
  };
  const values = [...HOSTILE, 0, 1.5, Infinity, 2 ** 53, [1n], ['x', 1], [cycle]];
  for (const [cls, fields] of Object.entries(FIELDS)) {
    for (const f of fields) {
      for (const v of values) {
        let obj;
        expectTyped(`new ${cls}({ ${f}: ${show(v)} })`, () => { obj = new sr[cls](...(GOOD_CTOR[cls] ?? []), { [f]: v }); });
        if (!obj) continue;
        for (const m of ['feed', 'finish']) {
          if (typeof obj[m] === 'function') expectTyped(`${cls}.${m} with { ${f}: ${show(v)} }`, () => obj[m]('data: {"a":[1,2]}\n\n'));
        }
        obj.free();
      }
    }
  }
  const index = new sr.ToolIndex(GOOD_CTOR.ToolIndex[0]);
  for (const v of values) {
    for (const f of ['event', 'data', 'id', 'retry']) expectTyped(`SseEncoder.encode({ ${f}: ${show(v)} })`, () => new sr.SseEncoder().encode({ data: 'd', [f]: v }));
    for (const f of ['vectors', 'texts', 'text', 'mode', 'n']) expectTyped(`ToolIndex.retrieve({ ${f}: ${show(v)} })`, () => index.retrieve({ [f]: v }));
    for (const f of ['model_id', 'dim', 'pooling', 'embeddings']) expectTyped(`new ToolIndex(tools, { ${f}: ${show(v)} })`, () => new sr.ToolIndex(GOOD_CTOR.ToolIndex[0], { [f]: v }).free());
    for (const f of ['messages', 'schema', 'name', 'stream', 'mode']) expectTyped(`structuredRequest({ ${f}: ${show(v)} })`, () => sr.structuredRequest('openai-chat', { [f]: v }));
    for (const f of ['blocks', 'descriptions']) expectTyped(`tagContract({ ${f}: ${show(v)} })`, () => sr.tagContract(NONCE, { [f]: v }));
    expectTyped(`parseJson({ repair: ${show(v)} })`, () => sr.parseJson('{"a":1}', { repair: v }));
  }
  index.free();
  assert.deepEqual([...misfires].map(([k, w]) => `${k}\n    e.g. ${w}`), []);
});

test('a cyclic value where an argument takes one of several shapes is invalid_input, not a stack overflow', () => {
  // correctiveMessage's violations are codes or objects (an untagged enum, read through
  // deserialize_any): a cycle used to recurse until the wasm stack overflowed.
  assert.throws(() => sr.correctiveMessage(NONCE, [cycle]),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input' && /nested more than 64 levels/.test(e.message));
  assert.throws(() => new sr.SseEncoder().encode({ data: 'd', id: cycle }),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input' && /`id` that is a string or a number/.test(e.message));
  assert.match(new sr.SseEncoder().encode({ data: 'd', id: 7 }), /^id: 7$/m);
  assert.match(sr.correctiveMessage(NONCE, ['missing_block']), /./);
});

test('routeResponse and connectSse: a wrong argument is a StreamrouteError when the iterator runs', async () => {
  const drain = async (it) => {
    try {
      for await (const event of it) void event;
      return 'ended';
    } catch (e) {
      return e instanceof StreamrouteError ? e.code : `${e?.constructor?.name}: ${e?.message}`;
    }
  };
  for (const r of [null, 42, 'x', {}, { ok: 'yes' }]) assert.equal(await drain(sr.routeResponse(r)), 'invalid_input', show(r));
  assert.equal(await drain(sr.routeResponse({ ok: false, status: 500 })), 'ended', 'an error response without text()');
  assert.equal(await drain(sr.routeResponse(new Response('x'), { provider: 42 })), 'invalid_option');
  assert.equal(await drain(sr.connectSse('not a url', null, { maxRetries: 0 })), 'sse_connection_failed');
});

