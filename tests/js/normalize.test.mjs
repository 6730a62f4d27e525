// normalizeAction, normalizeActionWithDiagnostics and actionToLegacy from the packed package:
// the shared corpus (tests/corpus/normalize.json, also run by tests/normalize.rs) with string
// and object inputs, error codes, diagnostics offsets in UTF-16 units, and legacy round trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as sr from 'streamroute';
import { typecheck } from './helpers/typecheck.mjs';

const corpus = JSON.parse(readFileSync(new URL('../corpus/normalize.json', import.meta.url), 'utf8'));

const inputOf = (c) => ('input' in c ? c.input : c.input_object);
/** JSON text keeps key order, so equal text means equal values in the same order. */
const same = (got, want, msg) => assert.equal(JSON.stringify(got), JSON.stringify(want), msg);

function assertCode(fn, code, msg) {
  assert.throws(
    fn,
    (e) => {
      assert.ok(e instanceof sr.StreamrouteError, `${msg}: a StreamrouteError`);
      assert.ok(e instanceof Error, `${msg}: an Error`);
      assert.equal(e.code, code, msg);
      assert.equal(typeof e.message, 'string');
      return true;
    },
    msg,
  );
}

test('the corpus has at least 220 cases, string and object inputs', () => {
  assert.ok(corpus.length >= 220, `${corpus.length} cases`);
  assert.ok(corpus.some((c) => 'input_object' in c));
});

for (const c of corpus) {
  test(`corpus: ${c.name}`, () => {
    const input = inputOf(c);
    if (c.error) {
      assertCode(() => sr.normalizeAction(input), c.error, 'normalizeAction');
      assertCode(() => sr.normalizeActionWithDiagnostics(input), c.error, 'normalizeActionWithDiagnostics');
      return;
    }
    const action = sr.normalizeAction(input);
    assert.deepEqual(Object.keys(action), ['next_node', 'args', 'thought', 'reasoning']);
    same(action, c.expected, 'normalizeAction');
    const { action: again, diagnostics: d } = sr.normalizeActionWithDiagnostics(input);
    same(again, c.expected, 'normalizeActionWithDiagnostics');
    assert.deepEqual(Object.keys(d), ['source', 'repairs', 'ignored_prefix_len', 'ignored_suffix_len', 'other_actions']);
    if (c.source) assert.equal(d.source, c.source, 'source');
    if (c.repairs)
      assert.deepEqual(
        d.repairs.map((r) => r.kind),
        c.repairs,
        'repairs',
      );
    if (c.ignored) assert.deepEqual([d.ignored_prefix_len, d.ignored_suffix_len], c.ignored, 'ignored');
    if (c.others) {
      same(
        d.other_actions.map((o) => ({ source: o.source, next_node: o.action.next_node, args: o.action.args })),
        c.others,
        'others',
      );
    }
    if (typeof input === 'string') {
      // Offsets are UTF-16 units within the input.
      assert.ok(d.ignored_prefix_len + d.ignored_suffix_len <= input.length);
      for (const r of d.repairs) assert.ok(r.offset >= 0 && r.offset <= input.length, `repair offset ${r.offset}`);
    }
  });
}

test('object inputs give what their JSON text gives', () => {
  for (const c of corpus) {
    // JSON.parse keeps the last of repeated keys; the normaliser reads text first-wins.
    if (!('input' in c) || c.error || c.name.includes('repeated key')) continue;
    let value;
    try {
      value = JSON.parse(c.input);
    } catch {
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    same(sr.normalizeAction(value), sr.normalizeAction(c.input), c.name);
  }
});

// ------------------------------------------------------------------------------------------
// Diagnostics in UTF-16 units
// ------------------------------------------------------------------------------------------

test('diagnostics: prefix and suffix lengths are UTF-16 units for a non-ASCII prefix', () => {
  const json = '{"next_node":"search","args":{"q":"caf\u00e9"}}';
  const input = `\u00e9t\u00e9 \u{1F600} \u4e16\u754c:\n${json}\n\u2713 \u{1F30D}`;
  const { action, diagnostics: d } = sr.normalizeActionWithDiagnostics(input);
  same(action, { next_node: 'search', args: { q: 'caf\u00e9' }, thought: null, reasoning: '\u00e9t\u00e9 \u{1F600} \u4e16\u754c:' });
  assert.equal(d.source, 'text');
  assert.equal(d.ignored_prefix_len, input.indexOf('{'));
  assert.equal(input.slice(d.ignored_prefix_len, input.length - d.ignored_suffix_len), json);
  assert.equal(d.ignored_suffix_len, '\n\u2713 \u{1F30D}'.length);
});

test('diagnostics: repair offsets are UTF-16 units', () => {
  const input = '\u{1F600}\u00e9 {"next_node":"x","args":{"v":1,}} \u4e16';
  const { action, diagnostics: d } = sr.normalizeActionWithDiagnostics(input);
  same(action.args, { v: 1 });
  assert.deepEqual(
    d.repairs.map((r) => r.kind),
    ['trailing_comma'],
  );
  assert.equal(input[d.repairs[0].offset], ',');
  assert.equal(input.slice(d.ignored_prefix_len, input.length - d.ignored_suffix_len), '{"next_node":"x","args":{"v":1,}}');
  const cut = '\u{1F600} {"next_node":"final_response","args":{"answer":"\u00e9t\u00e9';
  const r = sr.normalizeActionWithDiagnostics(cut);
  same(r.action.args, { answer: '\u00e9t\u00e9' });
  same(r.diagnostics.repairs, [{ kind: 'truncated', offset: cut.length }]);
});

test('diagnostics: other actions are normalised, long answers become lengths', () => {
  const long = 'x'.repeat(500);
  const input = `{"next_node":"search","args":{}} {"answer":"${long}"} {"next_node":"final_response","args":"short"}`;
  const { action, diagnostics: d } = sr.normalizeActionWithDiagnostics(input);
  assert.equal(action.next_node, 'search');
  same(d.other_actions, [
    { source: 'text', action: { next_node: 'final_response', args: { answer_len: 500 }, thought: null, reasoning: null } },
    { source: 'text', action: { next_node: 'final_response', args: { answer: 'short' }, thought: null, reasoning: null } },
  ]);
});

// ------------------------------------------------------------------------------------------
// actionToLegacy
// ------------------------------------------------------------------------------------------

test('actionToLegacy: the legacy shape of each kind', () => {
  same(sr.actionToLegacy({ next_node: 'final_response', args: { answer: 'A', sources: [] }, thought: null, reasoning: null }), {
    thought: 'planning next step',
    next_node: null,
    args: { answer: 'A', sources: [], raw_answer: 'A' },
    plan: null,
    join: null,
  });
  same(
    sr.actionToLegacy({
      next_node: 'plan',
      args: { steps: [{ node: 'a', args: {} }], join: { node: 'j', args: {}, inject: null } },
      thought: 't',
    }),
    { thought: 't', next_node: null, args: null, plan: [{ node: 'a', args: {} }], join: { node: 'j', args: {}, inject: null } },
  );
  same(sr.actionToLegacy({ next_node: 'search', args: { q: 1 }, thought: null, reasoning: 'r' }), {
    thought: 'planning next step',
    next_node: 'search',
    args: { q: 1 },
    plan: null,
    join: null,
  });
  same(sr.actionToLegacy({ next_node: 'task', args: { query: 'q', mode: 'subagent' }, thought: 'x' }), {
    thought: 'x',
    next_node: 'task',
    args: { query: 'q', mode: 'subagent' },
    plan: null,
    join: null,
  });
  // Raw model output is normalised first.
  same(sr.actionToLegacy('Sure:\n```json\n{"next_node":"final_response","args":"Hi"}\n```'), {
    thought: 'planning next step',
    next_node: null,
    args: { answer: 'Hi', raw_answer: 'Hi' },
    plan: null,
    join: null,
  });
  assertCode(() => sr.actionToLegacy('no action here'), 'action_payload_unparseable', 'actionToLegacy of prose');
  assertCode(() => sr.actionToLegacy({ next_node: '' }), 'action_missing_next_node', 'actionToLegacy of an empty next_node');
});

test('actionToLegacy round trips every corpus action (up to the default thought)', () => {
  let n = 0;
  for (const c of corpus) {
    if (c.error) continue;
    const a = sr.normalizeAction(inputOf(c));
    if (a.next_node === 'plan' && a.args.steps.length === 0) continue; // no legacy form
    const legacy = sr.actionToLegacy(a);
    assert.deepEqual(Object.keys(legacy), ['thought', 'next_node', 'args', 'plan', 'join'], c.name);
    const back = sr.normalizeAction(legacy);
    same({ ...back, thought: null }, { ...a, thought: null, reasoning: null }, c.name);
    assert.equal(back.thought, a.thought ?? 'planning next step', c.name);
    same(sr.normalizeAction(JSON.stringify(legacy)), back, c.name);
    n += 1;
  }
  assert.ok(n >= 150, `${n} round trips`);
});

// ------------------------------------------------------------------------------------------
// Errors and odd inputs
// ------------------------------------------------------------------------------------------

test('final answers: string args trimmed, blank and non-string list items skipped, top-level next_node wins', () => {
  for (const input of ['{"next_node":"final_response","args":"  s \\n"}', { next_node: 'final_response', args: '  s \n' }]) {
    same(sr.normalizeAction(input).args, { answer: 's' }, JSON.stringify(input));
  }
  const list = { next_node: 'final_response', args: ['\t', ' a ', '', 1, { answer: 'x' }, null, 'b \n', ' '] };
  for (const input of [list, JSON.stringify(list)]) {
    same(sr.normalizeAction(input).args, { answer: 'a \nb' }, JSON.stringify(input));
  }
  const wrapped = { next_node: 'outer', args: { q: 1 }, action: { next_node: 'final_response', args: { answer: 'x' } } };
  for (const input of [wrapped, JSON.stringify(wrapped)]) {
    const a = sr.normalizeAction(input);
    assert.equal(a.next_node, 'outer');
    same(a.args, { q: 1 });
  }
});

test('errors: codes for unparseable and missing next_node, from strings and objects', () => {
  for (const bad of ['', '   ', 'prose only', 'null', '42', '[]', '{}', 'The set {1,2} and {a}.']) {
    assertCode(() => sr.normalizeAction(bad), 'action_payload_unparseable', JSON.stringify(bad));
  }
  for (const bad of [{}, [], [1, 2], { args: { q: 1 } }, null, 42]) {
    assertCode(() => sr.normalizeAction(bad), 'action_payload_unparseable', JSON.stringify(bad));
  }
  for (const bad of [{ next_node: '' }, { next_node: 7 }, { thought: 'x' }, '{"next_node":"  "}']) {
    assertCode(() => sr.normalizeAction(bad), 'action_missing_next_node', JSON.stringify(bad));
  }
  // Not JSON-serialisable: still a StreamrouteError, never a raw TypeError.
  const cyclic = {};
  cyclic.self = cyclic;
  assertCode(() => sr.normalizeAction(cyclic), 'action_payload_unparseable', 'cyclic object');
  assertCode(() => sr.normalizeAction(undefined), 'action_payload_unparseable', 'undefined');
  assertCode(() => sr.normalizeAction(10n), 'action_payload_unparseable', 'bigint');
});

test('an object nested past the depth cap is json_too_deep; within it, still an action', () => {
  const nest = (n) => {
    let v = 1;
    for (let i = 0; i < n; i++) v = [v];
    return v;
  };
  for (const f of [sr.normalizeAction, sr.normalizeActionWithDiagnostics, sr.actionToLegacy]) {
    assertCode(() => f({ next_node: 'search', args: { q: nest(600) } }), 'json_too_deep', f.name);
    assertCode(() => f(nest(600)), 'json_too_deep', f.name);
  }
  assert.equal(sr.normalizeAction({ next_node: 'search', args: { q: nest(500) } }).next_node, 'search');
  // Text stays text: a deep value in prose is no action, as before.
  assertCode(() => sr.normalizeAction(JSON.stringify(nest(600))), 'action_payload_unparseable', 'text');
});

test('lone surrogates in the input do not throw', () => {
  const a = sr.normalizeAction('{"next_node":"final_response","args":{"answer":"a\uD800b"}}');
  assert.equal(a.next_node, 'final_response');
  assert.equal(typeof a.args.answer, 'string');
});

test('a 1 MB answer comes back whole', () => {
  const big = 'caf\u00e9 \u{1F600} "q" \\ '.repeat(1 << 16);
  const a = sr.normalizeAction(`<think>hm</think>\n${JSON.stringify({ next_node: 'final_response', args: { answer: big } })}`);
  assert.ok(a.args.answer === big, 'answer differs');
  assert.equal(a.reasoning, 'hm');
});

// The declared types are the types of the values: every diagnosed corpus result (every action
// source, absent fields as `null`) type-checks as a `NormalizedAction` literal.
test('TypeScript: every normalised corpus result is a NormalizedAction', () => {
  const results = corpus.filter((c) => !c.error).map((c) => sr.normalizeActionWithDiagnostics(inputOf(c)));
  const sources = new Set(results.flatMap((r) => [r.diagnostics.source, ...r.diagnostics.other_actions.map((o) => o.source)]));
  assert.deepEqual([...sources].sort(), ['direct', 'embedded_string', 'fence', 'list_item', 'text', 'think']);
  assert.ok(
    results.some((r) => r.action.thought === null && r.action.reasoning === null),
    'absent fields are null',
  );
  const { status, output } = typecheck(
    'ts-normalize-values',
    `
    import type { NormalizedAction } from 'streamroute';
    export const results: NormalizedAction[] = ${JSON.stringify(results)};
  `,
  );
  assert.equal(status, 0, output);
});
