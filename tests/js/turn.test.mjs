// assistantTurn from JS (the packed package): the exact turns of hand-built event lists covering
// every continuation kind, the same after the events went through each wire profile
// (toSse → fromSse), turns of the bundled sample streams routed at many chunkings (their text
// and client tool calls, never a provider-executed one), hostile input (only StreamrouteError
// is thrown; the output holds own data properties only) and a large event list in linear time.
// The SDK request types are checked in sdk-types.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as sr from 'streamroute';
import { StreamRouter, StreamrouteError, assistantTurn } from 'streamroute';
import { byteSplitings, feedAll, splitings } from './helpers/chunking.mjs';
import { NONCE, SAMPLES, textOf } from './helpers/streams.mjs';
import { PROFILES, readWire, wireText } from './helpers/client-roundtrip.mjs';
import { TURNS } from './helpers/turns.mjs';

const PROVIDERS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'bedrock', 'ollama'];

test('hand-built events: the exact turn of each provider, every continuation kind', () => {
  const kinds = new Set();
  for (const c of TURNS) {
    assert.deepEqual(assistantTurn(c.provider, c.events), c.turn, c.name);
    // Any iterable, not only an array.
    assert.deepEqual(
      assistantTurn(
        c.provider,
        (function* () {
          yield* c.events;
        })(),
      ),
      c.turn,
      `${c.name}: a generator`,
    );
    for (const e of c.events) if (e.type === 'continuation') kinds.add(e.kind);
  }
  assert.deepEqual([...kinds].sort(), [
    'compaction',
    'item',
    'reasoning',
    'redacted_thinking',
    'thinking_signature',
    'thought_signature',
    'tool_approval_request',
  ]);
  assert.deepEqual(new Set(TURNS.map((c) => c.provider)), new Set(PROVIDERS));
});

// Whether some event has `key`; `events` without the members `keys`.
const carries = (events, key) => events.some((e) => e[key] !== undefined);
const strip = (events, keys) => events.map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !keys.includes(k))));

test('the events fromSse reads back give the same turn, in every profile', async () => {
  for (const c of TURNS) {
    for (const profile of PROFILES) {
      const events = await readWire(sr, profile, [await wireText(sr, c.events, profile)]);
      // A call's `caller` and an answer's `phase` count where the profile's wire carries them.
      const lost = ['caller', 'phase'].filter((k) => carries(c.events, k) && !carries(events, k));
      const want = lost.length ? assistantTurn(c.provider, strip(c.events, lost)) : c.turn;
      assert.deepEqual(assistantTurn(c.provider, events), want, `${c.name}: ${profile}`);
    }
  }
});

test('each provider: what it keeps and what it leaves out', () => {
  const events = [
    { type: 'thinking_delta', text: 'unsigned', source: 'reasoning' },
    { type: 'thinking_delta', text: 'the action thought', source: 'thought' },
    { type: 'answer_delta', text: 'Hi.' },
    { type: 'refusal_delta', text: 'No.' },
    { type: 'tool_call_start', index: 0, id: 'c0', name: 'cut_off', provider_executed: false },
    { type: 'tool_call_delta', index: 0, arguments: '{"a":' },
    { type: 'error', code: 'stream_truncated', message: 'cut', provider_code: null },
    { type: 'done', ok: false, parse_ok: true, finish_reason: null, finish: 'error' },
  ];
  // A call whose `tool_call` never came is not sent back; unsigned Anthropic reasoning neither.
  assert.deepEqual(assistantTurn('openai-chat', events), [{ role: 'assistant', content: 'Hi.', refusal: 'No.' }]);
  assert.deepEqual(assistantTurn('anthropic', events), [{ role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] }]);
  assert.deepEqual(assistantTurn('gemini', events), [{ role: 'model', parts: [{ text: 'unsigned', thought: true }, { text: 'Hi.' }] }]);
  assert.deepEqual(assistantTurn('bedrock', events), [
    { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'unsigned' } } }, { text: 'Hi.' }] },
  ]);
  assert.deepEqual(assistantTurn('ollama', events), [{ role: 'assistant', content: 'Hi.', thinking: 'unsigned' }]);
  assert.deepEqual(assistantTurn('openai-responses', events), [{ type: 'message', role: 'assistant', content: 'Hi.' }]);
  // Nothing to send back: no message.
  for (const p of PROVIDERS)
    assert.deepEqual(assistantTurn(p, [{ type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop' }]), [], p);
  // Arguments that did not parse: the model's own text goes back.
  const broken = [{ type: 'tool_call', index: 0, id: 'c1', name: 'f', arguments: null, repaired: false, provider_executed: false }];
  assert.deepEqual(
    assistantTurn('openai-chat', [{ type: 'tool_call_delta', index: 0, arguments: 'not json' }, ...broken])[0].tool_calls[0].function
      .arguments,
    '{}',
  );
  assert.deepEqual(
    assistantTurn('openai-chat', [broken[0], { type: 'tool_call_delta', index: 0, arguments: 'x' }])[0].tool_calls[0].function.arguments,
    'x',
  );
  assert.deepEqual(assistantTurn('anthropic', broken)[0].content[0].input, {});
  // A signature with no reasoning before it still goes back (an empty thinking block).
  assert.deepEqual(assistantTurn('anthropic', [{ type: 'continuation', kind: 'thinking_signature', signature: 's' }]), [
    { role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: 's' }] },
  ]);
  // Gemini: a signature on an empty part is a part of its own; text after a signature is a new part.
  assert.deepEqual(
    assistantTurn('gemini', [
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 't0', part: 'text' },
      { type: 'answer_delta', text: 'a' },
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 't1', part: 'text' },
      { type: 'answer_delta', text: 'b' },
    ]),
    [{ role: 'model', parts: [{ text: '', thoughtSignature: 't0' }, { text: 'a', thoughtSignature: 't1' }, { text: 'b' }] }],
  );
  // Responses: a message item with no text before it is an empty message.
  assert.deepEqual(assistantTurn('openai-responses', [{ type: 'continuation', kind: 'item', item_type: 'message', id: 'msg_0' }]), [
    { type: 'message', id: 'msg_0', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: '', annotations: [] }] },
  ]);
});

const route = (s, chunks) => feedAll(new StreamRouter({ provider: 'auto', content: s.content, nonce: NONCE }), chunks);

// The answer text and the client tool calls a turn holds, whatever the provider's shape.
function contents(provider, turn) {
  const calls = [];
  let text = '';
  for (const m of turn) {
    if (provider === 'openai-chat' || provider === 'ollama') {
      text += m.content ?? '';
      for (const c of m.tool_calls ?? []) {
        const args = typeof c.function.arguments === 'string' ? JSON.parse(c.function.arguments) : c.function.arguments;
        calls.push({ id: c.id, name: c.function.name, arguments: args });
      }
    } else if (provider === 'openai-responses') {
      if (m.type === 'message') text += typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join('');
      if (m.type === 'function_call') calls.push({ id: m.call_id, name: m.name, arguments: JSON.parse(m.arguments) });
      if (m.type === 'custom_tool_call') calls.push({ id: m.call_id, name: m.name, arguments: m.input });
    } else if (provider === 'anthropic') {
      for (const b of m.content) {
        if (b.type === 'text') text += b.text;
        if (b.type === 'tool_use') calls.push({ id: b.id, name: b.name, arguments: b.input });
      }
    } else if (provider === 'gemini') {
      for (const p of m.parts) {
        if (typeof p.text === 'string' && !p.thought) text += p.text;
        if (p.functionCall) calls.push({ id: p.functionCall.id, name: p.functionCall.name, arguments: p.functionCall.args });
      }
    } else {
      for (const b of m.content) {
        if (b.text !== undefined) text += b.text;
        if (b.toolUse) calls.push({ id: b.toolUse.toolUseId, name: b.toolUse.name, arguments: b.toolUse.input });
      }
    }
  }
  return { text, calls };
}

test('the bundled samples: a turn of their text and client calls, the same at every chunking', () => {
  let n = 0;
  for (const s of SAMPLES.filter((x) => PROVIDERS.includes(x.provider) && x.content === 'text')) {
    const events = route(s, [s.bytes]);
    const turn = assistantTurn(s.provider, events);
    for (const [label, chunks] of s.binary ? byteSplitings(s.bytes) : splitings(s.text)) {
      assert.deepEqual(assistantTurn(s.provider, route(s, chunks)), turn, `${s.file}: ${label}`);
    }
    const calls = events
      .filter((e) => e.type === 'tool_call' && !e.provider_executed)
      .map((e) => ({
        id: ['gemini', 'ollama'].includes(s.provider) && e.id === `call_${e.index}` ? undefined : e.id,
        name: e.name,
        arguments: e.arguments,
      }));
    const got = contents(s.provider, turn);
    assert.equal(got.text, textOf(events, 'answer_delta'), s.file);
    assert.deepEqual(got.calls, calls, s.file);
    // Provider-executed calls never become client calls.
    const executed = new Set(events.filter((e) => e.type === 'tool_call' && e.provider_executed).map((e) => e.id));
    for (const c of got.calls) assert.ok(!executed.has(c.id), `${s.file}: ${c.id}`);
    n++;
  }
  assert.ok(n >= 25, `${n} samples`);
});

test('bundled samples: Anthropic server tools come back with their results, in order', () => {
  const s = SAMPLES.find((x) => x.file === 'anthropic-server-tools.sse');
  const events = route(s, [s.bytes]);
  const [turn] = assistantTurn('anthropic', events);
  const types = turn.content.map((b) => b.type);
  const results = events.filter((e) => e.type === 'tool_result');
  assert.ok(results.length > 0);
  for (const r of results) {
    const at = turn.content.findIndex((b) => b.type === 'server_tool_use' && b.id === r.id);
    assert.ok(at >= 0, `${r.id} in ${types}`);
    const result = turn.content.find((b) => b.tool_use_id === r.id);
    assert.equal(result.type, `${r.name}_tool_result`.replace(/^tool_search_tool_(regex|bm25)_/, 'tool_search_'));
    assert.deepEqual(result.content, r.result);
    assert.ok(turn.content.indexOf(result) > at);
  }
});

const isError = (code) => (e) => e instanceof StreamrouteError && e.code === code;

test('providers it does not write for and events that are not events: typed errors', () => {
  for (const p of [
    'auto',
    'text',
    'cohere',
    'gemini-interactions',
    'OpenAI',
    '',
    42,
    null,
    undefined,
    {
      toString() {
        throw new Error('x');
      },
    },
  ]) {
    assert.throws(
      () => assistantTurn(p, []),
      (e) => isError('invalid_option')(e) && /openai-chat, openai-responses, anthropic, gemini, bedrock, ollama/.test(e.message),
      String(typeof p),
    );
  }
  const notEvents = [
    null,
    undefined,
    42,
    {},
    'text',
    [1],
    [null],
    [[{ type: 'answer_delta', text: 'a' }]],
    [() => {}],
    {
      [Symbol.iterator]() {
        throw new Error('no');
      },
    },
    {
      *[Symbol.iterator]() {
        yield { type: 'answer_delta', text: 'a' };
        throw new RangeError('mid-way');
      },
    },
    new Proxy([], {
      get() {
        throw new Error('trap');
      },
    }),
  ];
  for (const events of notEvents) assert.throws(() => assistantTurn('anthropic', events), isError('invalid_input'));
});

test('hostile events: only StreamrouteError, and the output is own data', () => {
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  const hostile = [
    [
      {
        type: 'answer_delta',
        get text() {
          throw new Error('getter');
        },
      },
    ],
    [{ type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: cyclic, repaired: false, provider_executed: false }],
    [{ type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: { n: 1n }, repaired: false, provider_executed: false }],
    [{ type: 'continuation', kind: 'reasoning', id: 'rs', summary: cyclic }],
    [
      new Proxy(
        { type: 'answer_delta', text: 'a' },
        {
          getOwnPropertyDescriptor() {
            throw new Error('trap');
          },
        },
      ),
    ],
    [
      {
        type: 'tool_result',
        index: 0,
        id: 'c',
        name: 'web_search',
        get result() {
          throw 'a string';
        },
      },
    ],
    [
      {
        type: 'tool_call',
        index: 0,
        id: 'c',
        name: 'f',
        arguments: {
          toJSON() {
            throw { toString: null };
          },
        },
        repaired: false,
        provider_executed: false,
      },
    ],
  ];
  for (const events of hostile) {
    for (const p of PROVIDERS) {
      try {
        assistantTurn(p, events);
      } catch (e) {
        assert.ok(isError('invalid_input')(e), `${p}: ${e}`);
      }
    }
  }
  assert.throws(() => assistantTurn('openai-chat', hostile[1]), isError('invalid_input'));
  assert.throws(() => assistantTurn('anthropic', hostile[0]), isError('invalid_input'));

  // `__proto__` in what the provider sent: never a prototype, never dropped from the model's arguments.
  const events = JSON.parse(`[
    {"type":"continuation","kind":"reasoning","id":"rs_1","summary":[],"__proto__":{"polluted":true},"constructor":1},
    {"type":"answer_delta","text":"a","__proto__":{"text":"inherited"}},
    {"type":"tool_call","index":0,"id":"c","name":"f","arguments":{"__proto__":{"x":1}},"repaired":false,"provider_executed":false,
     "caller":{"type":"direct","__proto__":{"y":2}}}
  ]`);
  const all = PROVIDERS.flatMap((p) => assistantTurn(p, events));
  assert.equal({}.polluted, undefined);
  const [reasoning] = assistantTurn('openai-responses', events);
  assert.deepEqual(Object.keys(reasoning), ['type', 'id', 'summary']);
  const [, , fc] = assistantTurn('openai-responses', events);
  assert.equal(fc.arguments, '{"__proto__":{"x":1}}');
  assert.equal(JSON.stringify(assistantTurn('anthropic', events)[0].content[1].input), '{"__proto__":{"x":1}}');
  const seen = new Set();
  const check = (v, path) => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    assert.ok([Object.prototype, Array.prototype].includes(Object.getPrototypeOf(v)), path);
    for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(v))) {
      if (k === 'length' && Array.isArray(v)) continue;
      assert.ok('value' in d && d.enumerable, `${path}.${k}: a data property`);
      check(d.value, `${path}.${k}`);
    }
  };
  check(all, 'turn');
  // Not the caller's objects: changing the output leaves the events as they were.
  const input = [
    { type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: { city: 'Paris' }, repaired: false, provider_executed: false },
  ];
  assistantTurn('anthropic', input)[0].content[0].input.city = 'Rome';
  assert.equal(input[0].arguments.city, 'Paris');
});

test('linear in the number of events', () => {
  const n = 100_000;
  const events = [];
  for (let i = 0; i < n; i++) {
    events.push({ type: 'answer_delta', text: 'a' });
    if (i % 2) events.push({ type: 'continuation', kind: 'thought_signature', thoughtSignature: `t${i}`, part: 'thought' });
    if (i % 1000 === 0) events.push({ type: 'continuation', kind: 'item', item_type: 'message', id: `msg_${i}` });
  }
  for (let i = 0; i < n; i++) events.push({ type: 'thinking_delta', text: 'b', source: 'reasoning' });
  events.push({ type: 'continuation', kind: 'thinking_signature', signature: 's' });
  const started = performance.now();
  for (const p of PROVIDERS) assistantTurn(p, events);
  const ms = performance.now() - started;
  assert.ok(ms < 10_000, `${ms} ms`);
  const [m] = assistantTurn('anthropic', events);
  assert.equal(m.content.at(-1).thinking.length, n);
});
