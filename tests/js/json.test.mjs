// PartialJson and JsonItemStream from the packed package: every chunking (strings, bytes, one
// UTF-16 code unit at a time), the event shapes, the `value` getter, errors, item paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { typecheck } from './helpers/typecheck.mjs';
import { PartialJson, JsonItemStream, StreamrouteError } from 'streamroute';
import { PartialJson as ClientPartialJson } from 'streamroute/client';
import { splitings } from './helpers/chunking.mjs';

/** Merges adjacent appends of the same path: the only part of the events chunking changes. */
function merged(events) {
  const out = [];
  for (const ev of events) {
    const last = out.at(-1);
    if (ev.type === 'append' && last?.type === 'append' && samePath(last.path, ev.path)) {
      out[out.length - 1] = { ...last, text: last.text + ev.text };
    } else {
      out.push(ev);
    }
  }
  return out;
}

const samePath = (a, b) => a.length === b.length && a.every((s, i) => s === b[i]);

function parseAll(chunks, options) {
  const p = new PartialJson(options);
  const events = [];
  for (const c of chunks) events.push(...p.feed(c));
  return { events: merged(events), value: p.finish(), parser: p };
}

function at(value, path) {
  return path.reduce((v, seg) => v[seg], value);
}

/** Rebuilds the value from the events alone. */
function replay(events) {
  let root;
  const set = (path, v) => {
    if (path.length === 0) root = v;
    else at(root, path.slice(0, -1))[path.at(-1)] = v;
  };
  for (const ev of events) {
    if (ev.type === 'begin') set(ev.path, ev.kind === 'object' ? {} : ev.kind === 'array' ? [] : '');
    else if (ev.type === 'append') set(ev.path, at(root, ev.path) + ev.text);
    else if (ev.type === 'set') set(ev.path, ev.value);
  }
  return root;
}

const DOCS = [
  '{"name": "Ada", "langs": ["en", "fr"], "age": 36, "ok": true, "none": null, "score": -12.5e3}',
  '[{"id": 1, "text": "caf\u00e9 \u4e16\u754c \u{1F600}"}, {"id": 2, "text": "\\ud83c\\udf0d \\u00e9\\n\\"q\\""}, []]',
  '  "just a string with \\t escapes and \u{1F30D}"  ',
  '{"\u{1F511} key": {"deep": [[[{"x": [0.5, 1e-3, 123456789012345678]}]]]}, "": ""}',
  '{"tool": "get_weather", "arguments": {"location": "San Francisco, CA", "unit": "celsius"}}',
  '{}',
  '[]',
  'true',
  '"\\ud83d\\ude00"',
];

test('events and values are the same for every chunking, strings and bytes', () => {
  for (const doc of DOCS) {
    const want = parseAll([doc]);
    assert.deepEqual(want.value, JSON.parse(doc));
    for (const [label, chunks] of splitings(doc)) {
      const got = parseAll(chunks);
      assert.deepEqual(got.events, want.events, `${label}: ${doc}`);
      assert.deepEqual(got.value, want.value, `${label}: ${doc}`);
    }
    if (typeof want.value === 'object') assert.deepEqual(replay(want.events), want.value, doc);
  }
});

test('event objects: begin, append, set, end with frozen, shared paths', () => {
  const p = new PartialJson();
  const a = p.feed('{"msg": "hel');
  assert.deepEqual(a, [
    { type: 'begin', path: [], kind: 'object' },
    { type: 'begin', path: ['msg'], kind: 'string' },
    { type: 'append', path: ['msg'], text: 'hel' },
  ]);
  assert.deepEqual(p.feed(''), []);
  const b = p.feed('lo", "list": [1, "x", {"k": false}], "n": null}');
  assert.deepEqual(b, [
    { type: 'append', path: ['msg'], text: 'lo' },
    { type: 'set', path: ['msg'], value: 'hello' },
    { type: 'end', path: ['msg'] },
    { type: 'begin', path: ['list'], kind: 'array' },
    { type: 'set', path: ['list', 0], value: 1 },
    { type: 'end', path: ['list', 0] },
    { type: 'begin', path: ['list', 1], kind: 'string' },
    { type: 'append', path: ['list', 1], text: 'x' },
    { type: 'set', path: ['list', 1], value: 'x' },
    { type: 'end', path: ['list', 1] },
    { type: 'begin', path: ['list', 2], kind: 'object' },
    { type: 'set', path: ['list', 2, 'k'], value: false },
    { type: 'end', path: ['list', 2, 'k'] },
    { type: 'end', path: ['list', 2] },
    { type: 'end', path: ['list'] },
    { type: 'set', path: ['n'], value: null },
    { type: 'end', path: ['n'] },
    { type: 'end', path: [] },
  ]);
  for (const ev of [...a, ...b]) assert.ok(Object.isFrozen(ev.path));
  // Consecutive events at one path share one array, across feeds too.
  assert.equal(a[1].path, a[2].path);
  assert.equal(a[2].path, b[0].path);
  assert.equal(b[0].path, b[2].path);
  assert.notEqual(b[3].path, b[4].path);
  assert.equal(typeof b[4].path[1], 'number');
  assert.deepEqual(p.finish(), { msg: 'hello', list: [1, 'x', { k: false }], n: null });
});

test('a string streams as appends, never re-sent, and numbers only complete', () => {
  const p = new PartialJson();
  const texts = [];
  const numbers = [];
  for (const ch of '{"answer": "The capital of France is Paris.", "n": -12.5e3, "m": [7]}') {
    for (const ev of p.feed(ch)) {
      if (ev.type === 'append') texts.push(ev.text);
      if (ev.type === 'set' && typeof ev.value === 'number') numbers.push(ev.value);
    }
  }
  assert.equal(texts.join(''), 'The capital of France is Paris.');
  assert.equal(texts.length, 'The capital of France is Paris.'.length);
  assert.deepEqual(numbers, [-12500, 7]);
});

test('escapes and surrogate pairs are held until decodable, also split in UTF-16', () => {
  const doc = '["\\ud83d\\ude00", "\u{1F600}"]';
  for (const [label, chunks] of splitings(doc)) {
    const p = new PartialJson();
    const texts = [];
    for (const c of chunks) {
      for (const ev of p.feed(c)) if (ev.type === 'append') texts.push(ev.text);
    }
    for (const t of texts)
      assert.ok(!/[\ud800-\udfff]/.test(t.replace(/\u{1F600}/gu, '')), `${label}: lone surrogate in ${JSON.stringify(t)}`);
    assert.deepEqual(p.finish(), ['\u{1F600}', '\u{1F600}'], label);
  }
});

test('value: a lazy snapshot with partial strings, without pending keys or numbers', () => {
  const p = new PartialJson();
  assert.equal(p.value, undefined);
  p.feed(' ');
  assert.equal(p.value, undefined);
  p.feed('{"title": "Stre');
  assert.deepEqual(p.value, { title: 'Stre' });
  p.feed('aming", "items": [{"id": 1}, {"id": 2');
  assert.deepEqual(p.value, { title: 'Streaming', items: [{ id: 1 }, {}] });
  p.feed('}], "total": 12');
  assert.deepEqual(p.value, { title: 'Streaming', items: [{ id: 1 }, { id: 2 }] });
  p.feed('3, "pending');
  assert.deepEqual(p.value, { title: 'Streaming', items: [{ id: 1 }, { id: 2 }], total: 123 });
  assert.equal(Object.getPrototypeOf(p.value), Object.prototype);
  assert.ok(!(p.value instanceof Map));
  // Truncated: finish throws json_invalid at the end; the snapshot stays readable.
  assert.throws(
    () => p.finish(),
    (e) => {
      assert.ok(e instanceof StreamrouteError);
      assert.equal(e.code, 'json_invalid');
      assert.equal(e.offset, 79);
      return true;
    },
  );
  assert.deepEqual(p.value, { title: 'Streaming', items: [{ id: 1 }, { id: 2 }], total: 123 });
  assert.throws(() => p.feed('"'), { code: 'json_invalid', offset: 79 });
});

// The client entry's `.wasm` keeps no value tree: its PartialJson folds `value` and the value
// `finish()` returns from the events. It must give what the main entry's tree gives, read after
// every chunk, for every document, chunking and failure.
const CLIENT_DOCS = [
  ...DOCS,
  '{"__proto__": {"polluted": 1}, "constructor": "c", "a": {"__proto__": [1]}}',
  '{"a": 1, "a": 2, "b": {"c": "x", "c": {"d": 1}}, "b": 3}',
  '[-0, 1e400, -1e400, 0.1, 1E2, 123456789012345678901234567890, 5e-324]',
  '{"2": "two", "1": "one", "b": "b", "a": "a", "10": [], "-1": null}',
  '{"s": "\\u00", "t": "unterminated',
  '{"a": [1, 2,], "b": 1}',
  '{"a": "x\u0001y"}',
  '[[[[[[{"deep": "x"}]]]]]]',
  '{"a": tru',
  '  ',
  '',
  '"abc" "def"',
];

function clientRun(Parser, chunks, options) {
  const p = new Parser(options);
  const values = [];
  let error = null;
  try {
    for (const c of chunks) {
      try {
        p.feed(c);
      } finally {
        values.push(p.value);
      }
    }
    values.push(p.finish());
  } catch (e) {
    assert.ok(e instanceof StreamrouteError, String(e));
    error = { code: e.code, offset: e.offset };
  }
  values.push(p.value);
  p.free();
  assert.throws(() => p.value, { code: 'invalid_state' });
  return { values, error };
}

test("the client entry's PartialJson gives the main entry's values, read after every chunk", () => {
  for (const doc of CLIENT_DOCS) {
    for (const options of [undefined, { strict: false }, { maxBufferBytes: 300 }]) {
      for (const [label, chunks] of splitings(doc)) {
        const want = clientRun(PartialJson, chunks, options);
        const got = clientRun(ClientPartialJson, chunks, options);
        assert.deepStrictEqual(got, want, `${label}, ${JSON.stringify(options)}: ${doc}`);
      }
    }
  }
  // Invalid UTF-8 in tolerant mode (U+FFFD), fed whole and a byte at a time.
  const bytes = Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x2c, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]);
  for (const chunks of [[bytes], Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))]) {
    const want = clientRun(PartialJson, chunks, { strict: false });
    assert.deepStrictEqual(clientRun(ClientPartialJson, chunks, { strict: false }), want);
    assert.deepStrictEqual(want.values.at(-1), { a: '\ufffd\ufffd', '\ufffd': 1 });
  }
  // Own data members only, a fresh value on every read.
  const p = new ClientPartialJson();
  p.feed('{"__proto__": {"x": 1}, "list": [{"a": "b');
  const v = p.value;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(v, '__proto__')?.value, { x: 1 });
  assert.equal({}.x, undefined);
  v.list[0].a = 'changed';
  v.extra = 1;
  assert.deepStrictEqual(p.value, JSON.parse('{"__proto__": {"x": 1}, "list": [{"a": "b"}]}'));
  assert.notEqual(p.value, p.value);
  p.feed('c"}]}');
  const done = p.finish();
  done.list.push(2);
  assert.deepStrictEqual(p.value.list, [{ a: 'bc' }]);
});

test('errors: codes and offsets, the events before, and the lifecycle', () => {
  const p = new PartialJson();
  assert.throws(
    () => p.feed('{"a": [1, 2,]}'),
    (e) => {
      assert.equal(e.code, 'json_invalid');
      assert.equal(e.offset, 12);
      assert.deepEqual(
        e.events.map((ev) => ev.type),
        ['begin', 'begin', 'set', 'end', 'set', 'end'],
      );
      return true;
    },
  );
  assert.throws(() => p.finish(), { code: 'json_invalid', offset: 12 });
  assert.throws(() => new PartialJson().finish(), { code: 'json_invalid', offset: 0 });
  assert.throws(() => new PartialJson().feed('"a\u0001"'), { code: 'json_invalid', offset: 2 });
  assert.deepEqual(new PartialJson({ strict: false }).feed('"a\u0001"').at(-2), { type: 'set', path: [], value: 'a\u0001' });
  assert.throws(() => new PartialJson().feed('['.repeat(100_000)), { code: 'json_too_deep', offset: 512 });
  assert.throws(() => new PartialJson({ maxDepth: 2 }).feed('[[[1]]]'), { code: 'json_too_deep', offset: 2 });
  assert.throws(() => new PartialJson({ maxBufferBytes: 100 }).feed(`["${'x'.repeat(100)}"]`), {
    code: 'buffer_limit_exceeded',
    offset: 2 + 36,
  });
  for (const bad of [{ maxDepth: 0 }, { maxDepth: 5000 }, { maxBufferBytes: -1 }, { maxBufferBytes: 1.5 }, { strict: 'yes' }]) {
    assert.throws(() => new PartialJson(bad), { code: 'invalid_option' }, JSON.stringify(bad));
  }
  assert.throws(() => new PartialJson().feed(42), { code: 'invalid_input' });
  const done = new PartialJson();
  done.feed('[1]');
  assert.deepEqual(done.finish(), [1]);
  assert.deepEqual(done.value, [1]);
  assert.throws(() => done.feed('1'), { code: 'invalid_state' });
  assert.throws(() => done.finish(), { code: 'invalid_state' });
  // A top-level number completes at finish.
  const n = new PartialJson();
  assert.deepEqual(n.feed('-1.5'), []);
  assert.equal(n.value, undefined);
  assert.equal(n.finish(), -1.5);
});

test('JsonItemStream: the elements of $.items as they close, for every chunking', () => {
  const doc = '{"meta": {"items": [0]}, "items": [{"id": 1, "tags": ["a"]}, "caf\u00e9 \u{1F600}", 2.5, [true, null], {}], "after": 1}';
  const want = [{ id: 1, tags: ['a'] }, 'caf\u00e9 \u{1F600}', 2.5, [true, null], {}];
  for (const [label, chunks] of splitings(doc)) {
    const s = new JsonItemStream('$.items');
    const got = [];
    for (const c of chunks) got.push(...s.feed(c));
    got.push(...s.finish());
    assert.deepEqual(got, want, label);
  }
  const s = new JsonItemStream('$.items');
  assert.deepEqual(s.feed('{"items": [{"id": 1}, {"id"'), [{ id: 1 }]);
  assert.deepEqual(s.feed(': 2}'), [{ id: 2 }]);
  assert.equal(Object.getPrototypeOf(s.feed(', {"__proto__": 1}]}')[0]), Object.prototype);
  assert.deepEqual(s.finish(), []);
});

test('JsonItemStream: $, nested paths and $* for NDJSON and concatenated values', () => {
  const all = (path, text) => {
    const s = new JsonItemStream(path);
    return [...s.feed(text), ...s.finish()];
  };
  assert.deepEqual(all('$', '[1, "two", {"three": 3}]'), [1, 'two', { three: 3 }]);
  assert.deepEqual(all('$.data.results[1].rows', '{"data": {"results": [{"rows": [0]}, {"rows": [[1], [2]]}]}}'), [[1], [2]]);
  assert.deepEqual(all("$['key with spaces']", '{"key with spaces": [1]}'), [1]);
  const ndjson = '{"a":1}\n{"b":[2]}\n\n"x"\n4\n';
  for (const [label, chunks] of splitings(ndjson)) {
    const s = new JsonItemStream('$*');
    const got = [];
    for (const c of chunks) got.push(...s.feed(c));
    got.push(...s.finish());
    assert.deepEqual(got, [{ a: 1 }, { b: [2] }, 'x', 4], label);
  }
  assert.deepEqual(all('$*', '{"a":1}{"b":2}[3]"x"4 5'), [{ a: 1 }, { b: 2 }, [3], 'x', 4, 5]);
  // The top-level number at the end comes with finish.
  const s = new JsonItemStream('$*');
  assert.deepEqual(s.feed('1 2'), [1]);
  assert.deepEqual(s.finish(), [2]);
});

test('JsonItemStream errors', () => {
  for (const bad of ['', 'items', '$.', '$[x]', "$['a'"]) {
    assert.throws(() => new JsonItemStream(bad), { code: 'invalid_option' }, bad);
  }
  assert.throws(() => new JsonItemStream('$', { maxItemBytes: 0 }), { code: 'invalid_option' });
  const s = new JsonItemStream('$.items');
  assert.throws(
    () => s.feed('{"items": [1, 2,]}'),
    (e) => {
      assert.equal(e.code, 'json_invalid');
      assert.equal(e.offset, 16);
      assert.deepEqual(e.events, [1, 2]);
      return true;
    },
  );
  assert.throws(() => s.finish(), { code: 'json_invalid', offset: 16 });
  const t = new JsonItemStream('$');
  t.feed('[1, [2');
  assert.throws(() => t.finish(), { code: 'json_invalid', offset: 6 });
  const big = new JsonItemStream('$', { maxItemBytes: 40 });
  assert.throws(
    () => big.feed('["short", "a string longer than the cap"]'),
    (e) => {
      assert.equal(e.code, 'buffer_limit_exceeded');
      assert.equal(e.offset, 11 + 8);
      assert.deepEqual(e.events, ['short']);
      return true;
    },
  );
});

test('TypeScript: the JSON types type-check', () => {
  const r = typecheck(
    'ts-json',
    `
    import { PartialJson, JsonItemStream, type JsonEvent, type JsonPath,
      type PartialJsonOptions, type JsonItemStreamOptions } from 'streamroute';
    const o: PartialJsonOptions = { strict: false, maxDepth: 64, maxBufferBytes: 1 << 20 };
    const p = new PartialJson(o);
    const q = new PartialJson();
    const events: JsonEvent[] = p.feed('{"a": "b"}');
    for (const ev of events) {
      const path: JsonPath = ev.path;
      if (ev.type === 'append') { const t: string = ev.text; void t; }
      else if (ev.type === 'begin') { const k: 'object' | 'array' | 'string' = ev.kind; void k; }
      else if (ev.type === 'set') { const v: string | number | boolean | null = ev.value; void v; }
      void path;
    }
    const v: unknown = p.value;
    const f: unknown = q.finish();
    const io: JsonItemStreamOptions = { maxItemBytes: 1024 };
    const items: unknown[] = new JsonItemStream('$.items', io).feed(new Uint8Array([91]));
    const more: unknown[] = new JsonItemStream('$*').finish();
    void [v, f, items, more];
  `,
  );
  assert.equal(r.status, 0, r.output);
});
