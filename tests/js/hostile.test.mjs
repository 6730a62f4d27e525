// Hostile arguments from JS, on the packed package: every export and every method, called
// with values of the wrong type (numbers for strings, objects with a bogus `length`, BigInt,
// symbols, cycles, throwing `toString`s, freed objects). Each call either works or throws a
// StreamrouteError with a code; none traps the wasm instance, and an object stays usable
// after a call on it failed (no borrow left locked by a JS exception unwinding through wasm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as main from 'streamroute';
import * as payload from 'streamroute/payload';
import * as planning from 'streamroute/planning';

// Every export of the package, whichever entry has it (payload and planning are entries of
// their own, each with its own wasm instance).
const sr = { ...main, ...payload, ...planning };
const { StreamrouteError } = sr;

const cycle = {};
cycle.self = cycle;
const HOSTILE = [
  undefined,
  null,
  42,
  -1,
  NaN,
  1e300,
  'x',
  '',
  true,
  1n,
  Symbol('s'),
  {},
  [],
  cycle,
  { big: 1n },
  new Uint8Array([0xff, 0xfe, 0x41]),
  new Float32Array(3),
  () => 1,
  { length: -1 },
  { length: 1e12 },
  {
    toString() {
      throw new Error('boom');
    },
  },
  Object.create(null),
  new Map([[1, 2]]),
];
const show = (v) =>
  typeof v === 'symbol'
    ? 'Symbol()'
    : typeof v === 'bigint'
      ? `${v}n`
      : typeof v === 'function'
        ? 'fn'
        : v === cycle
          ? 'cycle'
          : ArrayBuffer.isView(v)
            ? v.constructor.name
            : (() => {
                try {
                  return JSON.stringify(v) ?? String(v);
                } catch {
                  return '?';
                }
              })();

// Constructor arguments that work, so the sweep reaches each class's methods.
const NONCE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const GOOD_CTOR = {
  TagFilter: [NONCE],
  JsonItemStream: ['$.items'],
  ToolIndex: [[{ name: 'search', description: 'finds things' }]],
  StreamMux: [{ key: 'session_id' }],
};
// The log classes have no free() and async methods: sse-log.test.mjs drives their options, ids and chunks.
const SKIP = new Set([
  'init',
  'initSync',
  'StreamrouteError',
  'connectSse',
  'routeResponse',
  'SseLog',
  'MemorySseStore',
  'DurableObjectSseStore',
  'SseLogDurableObject',
]);

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
  assert.match(main.makeNonce(), /^[0-9a-f]{32}$/, `the instance works after ${where}`);
  for (const entry of [payload, planning])
    assert.equal(entry.buildInfo().version, main.version(), `${entry.buildInfo().entry} works after ${where}`);
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
        expectTyped(`new ${name}(${args.map(show)})`, () => {
          throw e;
        });
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
  assert.deepEqual(
    [...misfires].map(([k, w]) => `${k}\n    e.g. ${w}`),
    [],
  );
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
  assert.throws(
    () => index.search(42),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
  );
  assert.throws(
    () => index.searchText('find', 'many'),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
  );
  assert.throws(
    () => sr.autoTimeGrain(1n, 3),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
  );
  index.free();
});

test('a value JSON.stringify throws on (BigInt, cycle) is invalid_input, and the object stays usable', () => {
  const map = new sr.CapabilityMap();
  for (const bad of [{ big: 1n }, cycle]) {
    assert.throws(
      () => map.audit(bad),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
    );
    assert.throws(
      () => sr.validateRequirements(bad),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
    );
    assert.throws(
      () => new sr.ToolIndex(bad),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
    );
    assert.throws(
      () => new sr.ToolIndex({ tools: [{ name: 'a', description: 'b', embedding: [1, 2], n: 1n }] }),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
    );
  }
  assert.equal(typeof map.canonical('total'), 'string');
  map.free();
});

test('a freed object throws invalid_state', () => {
  const d = new sr.SseDecoder();
  d.free();
  assert.throws(
    () => d.feed('data: x\n\n'),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_state' && /freed/.test(e.message),
  );
  const f = new sr.TagFilter(NONCE);
  f.free();
  assert.throws(
    () => f.finish(),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_state',
  );
});

test('every class frees through Symbol.dispose (using), then throws invalid_state', () => {
  const made = [
    new sr.SseDecoder(),
    new sr.SseEncoder(),
    new sr.StreamRouter(),
    new sr.AnswerExtractor(),
    new sr.LlmStreamChunker(),
    new sr.PartialJson(),
    new sr.JsonItemStream('$'),
    new sr.TagFilter(NONCE),
    new sr.TaggedTurn(),
    new sr.TagEventWriter(),
    new sr.ArtifactCollector(),
    new sr.ArtifactStream(),
    new sr.CapabilityMap(),
    new sr.ToolIndex([]),
  ];
  assert.equal(typeof Symbol.dispose, 'symbol');
  for (const o of made) {
    const name = o.constructor.name;
    assert.equal(o[Symbol.dispose], o.free, name);
    assert.ok(!Object.getOwnPropertyNames(Object.getPrototypeOf(o)).includes('undefined'), name);
    o[Symbol.dispose]();
    o.free(); // a second free does nothing
    const call = 'feed' in o ? () => o.feed('x') : () => JSON.stringify(o.toJSON?.() ?? o.ping?.() ?? o.all?.() ?? o.openStreams());
    assert.throws(call, (e) => e instanceof StreamrouteError && e.code === 'invalid_state' && /freed/.test(e.message), name);
  }
});

test('SseEncoder.encode names what is wrong with its message, and ignores keys it does not read', () => {
  const enc = new sr.SseEncoder();
  const bad = (message, pattern) =>
    assert.throws(
      () => enc.encode(message),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_input' && pattern.test(e.message),
    );
  bad({}, /^invalid SSE message: missing field `data`$/);
  bad(undefined, /^invalid SSE message: missing field `data`$/);
  bad('text', /^invalid SSE message: invalid type: a string, expected struct SseMessageInit$/);
  bad({ data: 'd', id: true }, /^invalid SSE message: invalid type: boolean `true`, expected an `id` that is a string or a number$/);
  bad({ data: 'd', retry: '5' }, /^invalid SSE message: invalid type: a string, expected f64$/);
  assert.equal(enc.encode({ data: 'd', id: 'a', retry: 5, extra: 1 }), 'id: a\nretry: 5\ndata: d\n\n');
});

test("options and argument objects keep the readers' messages: first bad field, missing after, null as absent or wrong", () => {
  const why = (f) => {
    try {
      return `ok: ${f()}`;
    } catch (e) {
      assert.ok(e instanceof StreamrouteError, String(e));
      return `${e.code}: ${e.message}`;
    }
  };
  const router = (o) => why(() => new sr.StreamRouter(o).free());
  assert.equal(router([]), 'invalid_option: invalid options: invalid type: an array, expected struct StreamRouterInit');
  assert.equal(router({ provider: 1, content: 2 }), 'invalid_option: invalid options: provider: invalid type: a number, expected a string');
  assert.equal(
    router({ maxBufferBytes: true }),
    'invalid_option: invalid options: maxBufferBytes: invalid type: boolean `true`, expected f64',
  );
  assert.equal(router({ provider: null, nonce: undefined }), 'ok: undefined');
  assert.equal(router({ zzz: 1 }), 'invalid_input: invalid options: unknown option "zzz"');
  assert.equal(router({ nonce: null, maxBufferBytes: 2.5 }), 'invalid_option: maxBufferBytes must be a positive integer, got 2.5');

  const contract = (o) => why(() => sr.tagContract(NONCE, o));
  assert.equal(contract({ blocks: [null] }), 'invalid_option: invalid options: blocks: invalid type: null, expected a string');
  assert.equal(
    contract({ descriptions: [] }),
    'invalid_option: invalid options: descriptions: invalid type: an array, expected an object of strings',
  );
  assert.equal(
    contract({ descriptions: { A: 1 } }),
    'invalid_option: invalid options: descriptions: invalid type: a number, expected a string',
  );
  assert.equal(contract({ descriptions: null }), contract({}));
  // Descriptions are looked up by name, whatever the object's key order.
  const both = { blocks: ['B', 'A'], descriptions: { B: 'bee', A: 'ay', C: 'sea' } };
  assert.equal(contract(both), contract({ ...both, descriptions: { C: 'sea', A: 'ay', B: 'bee' } }));
  assert.match(contract(both), /\(bee\)[^]*\(ay\)/);
  const turn = new sr.TaggedTurn({ nonce: NONCE });
  assert.equal(
    why(() => turn.contract([])),
    'invalid_option: invalid options: invalid type: an array, expected an object of strings',
  );
  assert.equal(
    why(() => turn.contract({ USER: 5 })),
    'invalid_option: invalid options: invalid type: a number, expected a string',
  );
  assert.equal(
    why(() => turn.contract({ USER: 'you', 1: 'one', ARTIFACT: 'art' })),
    why(() => turn.contract({ ARTIFACT: 'art', USER: 'you' })),
  );
  turn.free();

  // A violation is a code, `{ code, offset? }` or `[code, offset?]`, read whole first.
  const fix = (v) => why(() => sr.correctiveMessage(NONCE, v));
  const noVariant =
    'invalid_input: violations must be an array of violation codes or { code, … } objects: data did not match any variant of untagged enum ViolationArg';
  for (const v of [
    [null],
    [5],
    [true],
    [{}],
    [{ code: 1 }],
    [{ code: 'wrong_order', offset: null }],
    [{ code: 'wrong_order', offset: undefined }],
    [{ code: 'wrong_order', offset: '3' }],
    [[]],
    [['wrong_order', 1, 2]],
    [['wrong_order', 'x']],
  ]) {
    assert.equal(fix(v), noVariant, show(v));
  }
  const wrongOrder = fix(['wrong_order']);
  for (const v of [[['wrong_order']], [['wrong_order', 3]], [{ code: 'wrong_order', offset: 1e30, extra: { a: [1] } }]])
    assert.equal(fix(v), wrongOrder, show(v));
  let deep = [];
  const deep63 = deep;
  for (let i = 0; i < 62; i++) deep = deep[0] = [];
  assert.equal(fix([{ code: 'wrong_order', x: deep63 }]), wrongOrder);
  deep[0] = [[]];
  assert.match(fix([{ code: 'wrong_order', x: deep63 }]), /^invalid_input: .*nested more than 64 levels deep/);
  assert.match(fix([{ code: 'wrong_order', f: () => 1 }]), /invalid type: another kind of value, expected any value$/);
  assert.match(fix({ length: 1, 0: 'wrong_order' }), /invalid type: an object, expected a sequence$/);

  const deltas = (v) => why(() => new sr.TagEventWriter().deltas(v));
  const done = (v) => why(() => new sr.TagEventWriter().done(v));
  assert.equal(deltas(undefined), 'invalid_input: deltas must be TagDelta[]: invalid type: null, expected a sequence');
  assert.equal(deltas([[]]), 'invalid_input: deltas must be TagDelta[]: invalid type: an array, expected struct DeltaArg');
  assert.equal(deltas([{ text: 1 }]), 'invalid_input: deltas must be TagDelta[]: invalid type: a number, expected a string');
  assert.equal(deltas([{ text: 't' }]), 'invalid_input: deltas must be TagDelta[]: missing field `type`');
  assert.equal(
    deltas([{ type: 'user_delta', text: null }]),
    'invalid_input: deltas must be TagDelta[]: invalid type: null, expected a string',
  );
  assert.equal(
    deltas(
      new Proxy([], {
        get() {
          throw new Error('trap');
        },
      }),
    ),
    "invalid_input: deltas must be TagDelta[]: reading an array's length threw: trap",
  );
  assert.equal(done(null), 'invalid_input: done needs { ok, parse_ok }: invalid type: null, expected struct DoneInit');
  assert.equal(done({ parse_ok: 1 }), 'invalid_input: done needs { ok, parse_ok }: invalid type: a number, expected a boolean');
  assert.equal(done({ parse_ok: true }), 'invalid_input: done needs { ok, parse_ok }: missing field `ok`');
  assert.equal(done({ ok: null, parse_ok: true }), 'invalid_input: done needs { ok, parse_ok }: invalid type: null, expected a boolean');
  assert.equal(
    done({
      get ok() {
        throw new Error('boom');
      },
    }),
    'invalid_input: done needs { ok, parse_ok }: reading "ok" threw: boom',
  );
  assert.equal(done({ ok: true, parse_ok: false, x: 1 }), 'ok: event: done\nid: 1\ndata: {"ok":true,"parse_ok":false}\n\n');
});

test('toSse: a profile that is not a known name, or data JSON cannot encode, is a StreamrouteError', async () => {
  for (const p of [
    'constructor',
    'toString',
    42,
    {
      toString() {
        throw new Error('boom');
      },
    },
    Object.create(null),
  ]) {
    assert.throws(
      () => sr.toSse(p),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_option',
    );
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
    SseDecoder: ['flushOnFinish', 'maxLineBytes', 'maxEventBytes'],
    SseEncoder: ['autoId', 'firstId'],
    AnswerExtractor: ['maxBufferBytes'],
    ArtifactCollector: ['maxInlineBytes', 'store'],
    JsonItemStream: ['strict', 'maxDepth', 'maxItemBytes'],
    LlmStreamChunker: ['actionSeq', 'maxBufferBytes'],
    PartialJson: ['strict', 'maxDepth', 'maxBufferBytes'],
    StreamRouter: ['provider', 'content', 'nonce', 'maxEventBytes'],
    TagEventWriter: ['firstId', 'retry'],
    TagFilter: ['blocks', 'maxBufferBytes'],
    TaggedTurn: ['nonce', 'blocks', 'maxBufferBytes'],
  };
  const values = [...HOSTILE, 0, 1.5, Infinity, 2 ** 53, [1n], ['x', 1], [cycle]];
  for (const [cls, fields] of Object.entries(FIELDS)) {
    for (const f of fields) {
      for (const v of values) {
        let obj;
        expectTyped(`new ${cls}({ ${f}: ${show(v)} })`, () => {
          obj = new sr[cls](...(GOOD_CTOR[cls] ?? []), { [f]: v });
        });
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
    for (const f of ['event', 'data', 'id', 'retry'])
      expectTyped(`SseEncoder.encode({ ${f}: ${show(v)} })`, () => new sr.SseEncoder().encode({ data: 'd', [f]: v }));
    for (const f of ['vectors', 'texts', 'text', 'mode', 'n'])
      expectTyped(`ToolIndex.retrieve({ ${f}: ${show(v)} })`, () => index.retrieve({ [f]: v }));
    for (const f of ['model_id', 'dim', 'pooling', 'embeddings'])
      expectTyped(`new ToolIndex(tools, { ${f}: ${show(v)} })`, () => new sr.ToolIndex(GOOD_CTOR.ToolIndex[0], { [f]: v }).free());
    for (const f of ['messages', 'schema', 'name', 'stream', 'mode'])
      expectTyped(`structuredRequest({ ${f}: ${show(v)} })`, () => sr.structuredRequest('openai-chat', { [f]: v }));
    for (const f of ['blocks', 'descriptions']) expectTyped(`tagContract({ ${f}: ${show(v)} })`, () => sr.tagContract(NONCE, { [f]: v }));
    expectTyped(`parseJson({ repair: ${show(v)} })`, () => sr.parseJson('{"a":1}', { repair: v }));
  }
  index.free();
  assert.deepEqual(
    [...misfires].map(([k, w]) => `${k}\n    e.g. ${w}`),
    [],
  );
});

test('a cyclic value where an argument takes one of several shapes is invalid_input, not a stack overflow', () => {
  // correctiveMessage's violations are codes or objects (an untagged enum, read through
  // deserialize_any): a cycle used to recurse until the wasm stack overflowed.
  assert.throws(
    () => sr.correctiveMessage(NONCE, [cycle]),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input' && /nested more than 64 levels/.test(e.message),
  );
  assert.throws(
    () => new sr.SseEncoder().encode({ data: 'd', id: cycle }),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input' && /`id` that is a string or a number/.test(e.message),
  );
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

// What a call gives, for comparing two machines: its result, or the code of its error.
const outcome = (f) => {
  try {
    return JSON.stringify(f());
  } catch (e) {
    return e instanceof StreamrouteError ? `error ${e.code}` : `raw ${e?.constructor?.name}: ${e?.message}`;
  }
};

// The classes that take chunks, with the arguments their constructors need.
const CHUNK_CLASSES = {
  SseDecoder: [],
  StreamRouter: [],
  AnswerExtractor: [],
  PartialJson: [],
  LlmStreamChunker: [],
  JsonItemStream: ['$.items'],
  TagFilter: [NONCE],
};
const BYTES = [100, 97, 116, 97, 58, 32, 123, 125, 10, 10]; // 'data: {}\n\n'

test('a chunk that runs code when read (Proxy, array-like, own getters) runs none of it: nothing re-enters or moves the machine', () => {
  for (const [name, args] of Object.entries(CHUNK_CLASSES)) {
    const m = new sr[name](...args);
    let calls = 0;
    let size = 256;
    // Each trap feeds the same machine an ever larger chunk (which moves its input buffer)
    // before answering: a reader that ran it would then write into freed memory.
    const reenter = () => {
      calls++;
      size *= 2;
      try {
        m.feed('x'.repeat(size));
      } catch {
        // invalid_state (re-entry) or the machine's own error: either way it ran.
      }
    };
    const trap = { get: (t, k) => (reenter(), Reflect.get(t, k)) };
    const arrayLike = Object.setPrototypeOf(
      {
        get length() {
          reenter();
          return BYTES.length;
        },
      },
      Uint8Array.prototype,
    );
    BYTES.forEach((b, i) =>
      Object.defineProperty(arrayLike, i, {
        get() {
          reenter();
          return b;
        },
      }),
    );
    const hostile = [
      new Proxy(new Uint8Array(BYTES), trap),
      new Proxy(new Uint8Array(BYTES).buffer, trap),
      arrayLike,
      new Proxy(new String('data: {}\n\n'), trap),
    ];
    for (const chunk of hostile) {
      assert.throws(
        () => m.feed(chunk),
        (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
        name,
      );
    }
    // A genuine Uint8Array with a `length` getter of its own is read as its bytes.
    const own = new Uint8Array(BYTES);
    Object.defineProperty(own, 'length', {
      get() {
        reenter();
        return 1e9;
      },
    });
    const fresh = new sr[name](...args);
    assert.equal(
      outcome(() => m.feed(own)),
      outcome(() => fresh.feed(new Uint8Array(BYTES))),
      `${name}: own length getter`,
    );
    assert.equal(calls, 0, `${name}: no trap or getter of a chunk ran`);
    assert.equal(
      outcome(() => m.finish()),
      outcome(() => fresh.finish()),
      `${name}: the machine goes on as a fresh one`,
    );
    m.free();
    fresh.free();
  }
  // The instance is sound: a fresh decoder decodes, in several sizes.
  for (const n of [1, 1 << 12, 1 << 19]) {
    const d = new sr.SseDecoder();
    assert.deepEqual(
      d.feed(`data: ${'y'.repeat(n)}\n\n`).map((e) => e.data.length),
      [n],
    );
    d.free();
  }
});

test('free() inside a call on the same object: the call finishes, the object is freed after it, later calls are invalid_state', () => {
  const enc = new sr.SseEncoder();
  let freeThrew = null;
  const wire = enc.encode({
    get data() {
      try {
        enc.free();
      } catch (e) {
        freeThrew = e;
      }
      return 'x';
    },
  });
  assert.equal(freeThrew, null, 'free() inside the call does not throw');
  assert.equal(wire, 'data: x\n\n');
  assert.throws(
    () => enc.encode({ data: 'y' }),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_state' && /freed/.test(e.message),
  );
  // The object is really freed once the call returns: a collector holding ~1 MiB, freed from
  // inside its own collect() forty times, does not grow the memory forty times.
  const schema = { type: 'object', properties: { raw: { type: 'array', items: { type: 'string' }, artifact: true }, x: {} } };
  const big = { raw: Array.from({ length: 64 }, () => 'z'.repeat(16384)) };
  const memory = payload.__sr_memory();
  const grew = [];
  for (let i = 0; i < 40; i++) {
    const c = new sr.ArtifactCollector({ maxInlineBytes: 1 << 24 });
    c.collect('a', schema, big);
    c.collect('b', schema, {
      get x() {
        c.free();
        return 1;
      },
    });
    assert.throws(
      () => c.takeArtifacts?.() ?? c.maxInlineBytes,
      (e) => e instanceof StreamrouteError && e.code === 'invalid_state',
    );
    grew.push(memory.buffer.byteLength);
  }
  assert.ok(grew[39] - grew[4] < 16 << 20, `memory grew by ${(grew[39] - grew[4]) >> 20} MiB`);
});

test('an options key that is not an option, or an option getter that throws, is invalid_input naming it', async () => {
  const tools = GOOD_CTOR.ToolIndex[0];
  const index = new sr.ToolIndex(tools);
  const takers = {
    SseDecoder: (o) => new sr.SseDecoder(o),
    SseEncoder: (o) => new sr.SseEncoder(o),
    AnswerExtractor: (o) => new sr.AnswerExtractor(o),
    LlmStreamChunker: (o) => new sr.LlmStreamChunker(o),
    PartialJson: (o) => new sr.PartialJson(o),
    JsonItemStream: (o) => new sr.JsonItemStream('$.items', o),
    StreamRouter: (o) => new sr.StreamRouter(o),
    TagFilter: (o) => new sr.TagFilter(NONCE, o),
    TaggedTurn: (o) => new sr.TaggedTurn(o),
    TagEventWriter: (o) => new sr.TagEventWriter(o),
    ArtifactCollector: (o) => new sr.ArtifactCollector(o),
    ToolIndex: (o) => new sr.ToolIndex(tools, o),
    retrieve: (o) => index.retrieve(o),
    narrow: (o) => index.narrow(o),
    narrowTools: (o) => sr.narrowTools(o),
    tagContract: (o) => sr.tagContract(NONCE, o),
    parseJson: (o) => sr.parseJson('{}', o),
    parseTagged: (o) => sr.parseTagged('', NONCE, o),
    checkTagged: (o) => sr.checkTagged('', NONCE, o),
    correctiveMessage: (o) => sr.correctiveMessage(NONCE, [], o),
    toSse: (o) => sr.toSse('planner', o),
  };
  const boom = {
    get maxBufferBytes() {
      throw new Error('boom');
    },
  };
  for (const [name, take] of Object.entries(takers)) {
    assert.throws(
      () => take({ maxBuferBytes: 1 }),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_input' && /unknown option "maxBuferBytes"/.test(e.message),
      name,
    );
    // A throwing getter of a key that is not an option is reported as unknown, of one that
    // is as the throw; never a raw Error through the wasm frames.
    assert.throws(
      () => take(boom),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_input',
      `${name}: throwing getter`,
    );
  }
  assert.throws(
    () =>
      new sr.SseDecoder({
        get maxLineBytes() {
          throw new Error('boom');
        },
      }),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_input' && /reading "maxLineBytes" threw: boom/.test(e.message),
  );
  // Nested options objects are options too.
  assert.throws(() => sr.tagContract(NONCE, { descriptions: { ARTIFACT: 'a' }, blocks: ['ARTIFACT', 'USER'], blockz: 1 }), {
    code: 'invalid_input',
  });
  const drain = async (it) => {
    try {
      for await (const event of it) void event;
      return 'ended';
    } catch (e) {
      return e instanceof StreamrouteError ? `${e.code}: ${e.message}` : `${e?.constructor?.name}: ${e?.message}`;
    }
  };
  assert.match(await drain(sr.connectSse('http://x.invalid/', null, { maxRetrys: 0 })), /^invalid_input: .*unknown option "maxRetrys"/);
  assert.match(await drain(sr.routeResponse(new Response('x'), { sigal: null })), /^invalid_input: .*unknown option "sigal"/);
  assert.match(
    await drain(
      sr.routeResponse(new Response('x'), {
        get provider() {
          throw new Error('boom');
        },
      }),
    ),
    /^invalid_input: .*threw: boom/,
  );
  index.free();
});

test("a result longer than the engine's longest string is memory_limit_exceeded, not a plain Error", async () => {
  // The mapping the glue's string reading and the fast path go through (a real result that
  // long needs over 1 GB of memory: the engine refuses UTF-8 of 2^29 - 24 bytes or more),
  // from its source: the package bundles it into each entry. Its StreamrouteError is the
  // package's one class (registered by the first copy loaded).
  const runtime = await import(new URL('../../pkg/entry/wasm-imports.js', import.meta.url));
  let engineError;
  try {
    new TextDecoder().decode(new Uint8Array(0x1fffffe8 + 1).fill(0x41));
  } catch (e) {
    engineError = e;
  }
  let concatError;
  try {
    let s = 'x'.repeat(2 ** 28);
    s += s + s;
  } catch (e) {
    concatError = e;
  }
  for (const e of [engineError, concatError]) {
    assert.ok(e && !(e instanceof StreamrouteError), 'the engine throws its own error');
    const mapped = runtime.__sr_string_error(e);
    assert.ok(mapped instanceof StreamrouteError && mapped.code === 'memory_limit_exceeded', String(e));
  }
  const other = new TypeError('not about length');
  assert.equal(runtime.__sr_string_error(other), other);
});
