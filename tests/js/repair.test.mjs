// repairJson, repairJsonWithLog and parseJson from the packed package: the shared corpus
// (tests/corpus/repair/cases.txt, also run by tests/repair.rs) with exact outputs and logged
// kinds, offsets in UTF-16 code units for non-ASCII input, values as plain objects and JS
// numbers, errors as StreamrouteError with stable codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseJson, repairJson, repairJsonWithLog, StreamrouteError } from 'streamroute';

/** Undoes the corpus escapes: \n \r \t \\ \u{hex}. */
function unescape(s) {
  return s.replace(/\\(n|r|t|\\|u\{([0-9a-fA-F]+)\})/g, (_, e, hex) =>
    hex ? String.fromCodePoint(parseInt(hex, 16)) : { n: '\n', r: '\r', t: '\t', '\\': '\\' }[e],
  );
}

function corpus() {
  const text = readFileSync(new URL('../corpus/repair/cases.txt', import.meta.url), 'utf8');
  const cases = [];
  let group = '';
  let input = null;
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('## ')) group = line.slice(3).trim();
    else if (line === '<' || line.startsWith('< ')) input = { text: unescape(line.slice(2)), line: i + 1 };
    else if (line.startsWith('> ')) {
      cases.push({ group, input: input.text, line: input.line, expected: line.slice(2) });
      input = null;
    }
  });
  return cases;
}

test('the corpus: exact outputs, each case logs its group kind', () => {
  const cases = corpus();
  assert.ok(cases.length >= 150, `${cases.length} cases`);
  for (const c of cases) {
    const ctx = `line ${c.line} (${c.group}): ${JSON.stringify(c.input)}`;
    if (c.expected.startsWith('!')) {
      assert.throws(
        () => repairJson(c.input),
        (e) => e instanceof StreamrouteError && e.code === c.expected.slice(1),
        ctx,
      );
      assert.throws(() => repairJsonWithLog(c.input), { code: c.expected.slice(1) }, ctx);
      continue;
    }
    assert.equal(repairJson(c.input), c.expected, ctx);
    const { json, repairs } = repairJsonWithLog(c.input);
    assert.equal(json, c.expected, ctx);
    const kinds = repairs.map((r) => r.kind);
    if (c.group === 'valid') assert.deepEqual(kinds, [], ctx);
    else assert.ok(kinds.includes(c.group), `${ctx}: logged ${kinds}`);
    let last = 0;
    for (const r of repairs) {
      assert.ok(Number.isInteger(r.offset) && r.offset >= last && r.offset <= c.input.length, ctx);
      // Never inside a surrogate pair.
      const unit = c.input.charCodeAt(r.offset);
      assert.ok(!(unit >= 0xdc00 && unit < 0xe000), ctx);
      last = r.offset;
    }
    assert.deepEqual(parseJson(c.input, { repair: true }), JSON.parse(c.expected), ctx);
  }
});

test('offsets are UTF-16 code units of the input string', () => {
  const text = `{"é": 'ü', 😀: True,}`;
  const { json, repairs } = repairJsonWithLog(text);
  assert.equal(json, '{"é":"ü","😀":true}');
  assert.deepEqual(repairs, [
    { kind: 'quotes', offset: 6 },
    { kind: 'unquoted_key', offset: 11 },
    { kind: 'python_literal', offset: 15 },
    { kind: 'trailing_comma', offset: 19 },
  ]);
  for (const r of repairs)
    assert.equal(text[r.offset], { quotes: "'", unquoted_key: '\ud83d', python_literal: 'T', trailing_comma: ',' }[r.kind]);
  // What is missing at the end is reported at text.length.
  const cut = '["日本語';
  assert.deepEqual(repairJsonWithLog(cut).repairs, [{ kind: 'truncated', offset: cut.length }]);
});

test('parseJson is strict by default, with UTF-16 error offsets', () => {
  assert.deepEqual(parseJson('{"a": [1, "x", null, true]}'), { a: [1, 'x', null, true] });
  assert.throws(
    () => parseJson("{'a': 1}"),
    (e) => {
      assert.ok(e instanceof StreamrouteError);
      assert.equal(e.code, 'json_invalid');
      assert.equal(e.offset, 1);
      return true;
    },
  );
  // `x` is byte 11 of the UTF-8 text but index 7 of the string.
  const text = '{"日本": x}';
  assert.throws(() => parseJson(text), { code: 'json_invalid', offset: text.indexOf('x') });
  assert.throws(() => parseJson(text, { repair: false }), { code: 'json_invalid', offset: 7 });
  assert.deepEqual(parseJson(text, { repair: true }), { 日本: 'x' });
  assert.throws(() => parseJson(''), { code: 'json_invalid', offset: 0 });
  assert.throws(() => parseJson('[1] 2'), { code: 'json_invalid', offset: 4 });
});

test('values: plain objects in written order, JS numbers, decoded strings', () => {
  const v = parseJson("{z: 1, a: 12345678901234567890, 'm': 1.5e3, s: '\\u00e9\\ud83d\\ude00\\ud800', __proto__: 1}", { repair: true });
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ['z', 'a', 'm', 's', '__proto__']);
  assert.equal(v.a, 12345678901234567890);
  assert.equal(v.m, 1500);
  assert.equal(v.s, 'é😀\ufffd');
  assert.equal(Object.hasOwn(v, '__proto__'), true);
  // The text keeps the number as written.
  assert.equal(repairJson('[12345678901234567890123]'), '[12345678901234567890123]');
  // A lone surrogate in the JS string itself arrives as U+FFFD.
  assert.equal(repairJson("'a\ud800b'"), '"a\ufffdb"');
});

test('errors: codes, offsets, argument checks', () => {
  for (const text of ['', '// only a comment', '```json\n```']) {
    assert.throws(
      () => repairJson(text),
      (e) => {
        assert.ok(e instanceof StreamrouteError);
        assert.equal(e.code, 'json_unrepairable');
        assert.equal(e.offset, undefined);
        return true;
      },
    );
  }
  assert.throws(() => parseJson('/* no json */', { repair: true }), { code: 'json_unrepairable' });
  assert.throws(() => repairJson('['.repeat(100_000)), { code: 'json_too_deep', offset: 512 });
  assert.throws(() => repairJson('é'.repeat(10) + '['.repeat(600)), { code: 'json_too_deep', offset: 10 + 512 });
  assert.throws(() => parseJson('['.repeat(600)), { code: 'json_too_deep', offset: 512 });
  assert.throws(() => repairJson(42), { code: 'invalid_input' });
  assert.throws(() => repairJsonWithLog(undefined), { code: 'invalid_input' });
  assert.throws(() => parseJson(null), { code: 'invalid_input' });
  assert.throws(() => parseJson('1', { repair: 'yes' }), { code: 'invalid_option' });
  assert.equal(parseJson('1', null), 1);
});

test('a megabyte of broken JSON repairs in one call', () => {
  const item = "{id: 1, name: 'Ada', tags: ['x', 'y',], ok: True, note: \"say \"hi\" now\"}, // c\n";
  const text = '```json\n[' + item.repeat(Math.ceil((1 << 20) / item.length));
  const json = repairJson(text);
  const value = JSON.parse(json);
  assert.equal(value.length, Math.ceil((1 << 20) / item.length));
  assert.deepEqual(value[0], { id: 1, name: 'Ada', tags: ['x', 'y'], ok: true, note: 'say "hi" now' });
});

// ---- parity with jsonrepair ---------------------------------------------------------------------
// Each repair jsonrepair documents (its README list) and the ones it does without listing them,
// as inputs written here: repairJson must give the same value as jsonrepair. The deliberate
// differences (docs/repair.md has the table and the reasons) are listed apart, with our value.

const PARITY = [
  // Keys without quotes, missing escapes, commas and brackets, truncation.
  '{name: "Ada", age: 36}',
  '{"quote": "She said "hi" to me"}',
  '"The TV is 72""',
  '{"a":"the list [1, 2"] more"}',
  '"the set {a, b"} more"',
  '[1 2 3]',
  '{"a": 1 "b": 2}',
  '{"a": [1, 2',
  '[{"a": 1}, {"b": 2',
  '{"text": "Hello, wor',
  '{"a": 2.',
  '{"n": -',
  // Quotes of every kind, special whitespace, Python constants, trailing commas, comments.
  "{'a': 'b'}",
  '{“a”: “b”}',
  '{‘a’: ‘b’}',
  '{"a":\u180e"foo"}',
  '[\u200b1,\u00a02]',
  '{"a": None, "b": True, "c": False}',
  '[1, 2, 3,]',
  '{"a": 1,}',
  '{"a": 1, /* note */ "b": 2} // end',
  '[1, // one\n2]',
  // Fences, ellipsis, JSONP, escaped JSON, MongoDB types, concatenation, NDJSON.
  '```json\n{"a": 1}\n```',
  '```\n[1, 2]\n```',
  '[```json\n{"a":"b"}\n```]',
  '{```\n[1]\n```}',
  '[1, 2, 3, ...]',
  '{"a": 1, ...}',
  'callback({"a": 1});',
  'cb([1, 2])',
  '{\\"stringified\\": \\"content\\"}',
  '[\\"a\\", \\"b\\"]',
  '{"id": NumberLong(2), "at": ISODate("2012-12-19T06:01:17.171Z"), "_id": ObjectId("5f1")}',
  '"long text" + "more text on next line"',
  '"hello" +\n " world"',
  '"hello +\n " world"',
  '["abc + /* c */ "def"]',
  '["abc /* c */ + "def"]',
  '["abc, /* c */ "def"]',
  '["hello +]',
  '{ "id": 1, "name": "John" }\n{ "id": 2, "name": "Sarah" }\n',
  '{"a":1}\n{"b":2},\n',
  // Strings that lost an end quote keep their text.
  '["hello, world]',
  '["https://example.com/,2]',
  '["b,c,]',
  '{"a": "b,c,"d": "e"}',
  '"first\\\nsecond"',
  '{"s \\ud',
  // Unquoted strings, unknown symbols, numbers that are not numbers, URLs, regexes.
  '[hello world]',
  '{a: hello}',
  'hello world',
  'abc',
  'She said: no way',
  'foo 2 bar',
  '2.3.4',
  '1e',
  '[0x1F]',
  '0xZZ',
  '746de9ad-d4ff-4c66-97d7-00a92ad46967',
  'ES2020',
  '.',
  'https://www.example.com/',
  '{url: https://example.com/a?b=1}',
  'a,b',
  'a\nb',
  '{regex: /standalone-styles.css/}',
  '/[a-z]_/',
  '[01, 007]',
  '[undefined]',
  'trueble',
];

/** Inputs where repairJson deliberately differs from jsonrepair, with repairJson's value. */
const DIFFERENT = [
  ['Sure! Here it is: {"a": 1}', { a: 1 }],
  ['{"a": 1}\nHope this helps!', { a: 1 }],
  ['```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```', [{ a: 1 }, { b: 2 }]],
  ['{"a": 1}{"b": 2}', [{ a: 1 }, { b: 2 }]],
  ['{"a": [1, {"b": tr', { a: [1, { b: true }] }],
  ['[NaN, Infinity, -Infinity]', [null, null, null]],
  ['[+1]', [1]],
  ['{: 1}', { '': 1 }],
  ['{"a"}', { a: null }],
  ['"\\x41"', 'A'],
  ['"\\u26"', 'u26'],
  ['[1,,2]', [1, 2]],
  ['[1;2]', [1, 2]],
  ['["[x"]', ['[x']],
  ['{"a": Timestamp(1412180887, 1)}', { a: 1412180887 }],
];

test('parity with jsonrepair: the same value for every input of the list', async () => {
  const { jsonrepair } = await import('jsonrepair');
  for (const input of PARITY) {
    const want = JSON.parse(jsonrepair(input));
    assert.deepEqual(JSON.parse(repairJson(input)), want, JSON.stringify(input));
  }
});

test('parity with jsonrepair: the deliberate differences', async () => {
  const { jsonrepair } = await import('jsonrepair');
  for (const [input, ours] of DIFFERENT) {
    assert.deepEqual(JSON.parse(repairJson(input)), ours, JSON.stringify(input));
    let theirs;
    try {
      theirs = JSON.parse(jsonrepair(input));
    } catch {
      theirs = undefined;
    }
    assert.notDeepEqual(theirs, ours, `${JSON.stringify(input)}: no longer a difference`);
  }
});
