// StreamRouter from JS (the packed package): every bundled sample stream routed whole, one
// UTF-16 unit at a time, byte by byte and at random splits gives the same events; the web
// adapters (transform, routeResponse, toSse, connectSse) on top of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  StreamRouter,
  SseDecoder,
  StreamrouteError,
  connectSse,
  routeResponse,
  structuredModes,
  structuredRequest,
  toSse,
} from 'streamroute';
import { byteSplitings, feedAll, splitings } from './helpers/chunking.mjs';
import { NONCE, SAMPLES, coalesce, textOf } from './helpers/streams.mjs';
import { listen } from './helpers/runtimes.mjs';
import { typecheck } from './helpers/typecheck.mjs';

const route = (sample, chunks, provider = 'auto') =>
  coalesce(feedAll(new StreamRouter({ provider, content: sample.content, nonce: NONCE }), chunks));

test('every sample stream gives the same events for every chunking, auto or explicit', () => {
  let n = 0;
  for (const s of SAMPLES) {
    const want = route(s, [s.bytes]);
    assert.equal(want.at(-1).type, 'done', s.file);
    for (const [label, chunks] of s.binary ? byteSplitings(s.bytes) : splitings(s.text)) {
      assert.deepEqual(route(s, chunks), want, `${s.file}: ${label}`);
    }
    assert.deepEqual(route(s, [s.binary ? s.bytes : s.text], s.provider), want, `${s.file}: provider ${s.provider}`);
    const r = new StreamRouter({ content: s.content, nonce: NONCE });
    feedAll(r, [s.bytes]);
    assert.equal(r.provider, s.provider, s.file);
    n++;
  }
  assert.ok(n >= 15, `${n} samples`);
});

// The streamed answer is never contradicted by the action: unescaped quotes in the answer,
// and a truncated final answer followed by a tool call.
test('action-json: the action of a broken answer begins with exactly the streamed text', () => {
  const cases = [
    ['{"next_node":"final_response","args":{"answer":"Result:\n```json\n{"key": "value"}\n```"}}', 'Result:\n```json\n{'],
    ['{"next_node":"final_response","args":{"answer":"Hello"}\n{"next_node":"search","args":{}}', 'Hello'],
  ];
  for (const [input, want] of cases) {
    for (const [label, chunks] of splitings(input)) {
      const e = feedAll(new StreamRouter({ provider: 'text', content: 'action-json' }), chunks);
      assert.equal(textOf(e, 'answer_delta'), want, `${label}: ${input}`);
      const actions = e.filter((x) => x.type === 'action');
      assert.equal(actions.length, 1, `${label}: ${input}`);
      assert.equal(actions[0].action.next_node, 'final_response', `${label}: ${input}`);
      assert.equal(actions[0].action.args.answer, want, `${label}: ${input}`);
    }
  }
});

const eventsOf = (file) => {
  const s = SAMPLES.find((x) => x.file === file);
  return route(s, [s.bytes]);
};

test('what the samples say: text, reasoning, tool calls, usage, errors, actions', () => {
  let e = eventsOf('openai-chat-tools.sse');
  assert.equal(textOf(e, 'thinking_delta', 'reasoning'), 'Two cities, so two weather calls in parallel.');
  assert.equal(textOf(e, 'answer_delta'), 'Let me check both.');
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call'),
    [
      {
        type: 'tool_call',
        index: 0,
        id: 'call_Wx1',
        name: 'get_weather',
        arguments: { city: 'Paris', unit: 'celsius' },
        repaired: false,
        provider_executed: false,
      },
      {
        type: 'tool_call',
        index: 1,
        id: 'call_Wx2',
        name: 'get_weather',
        arguments: { city: 'Tōkyō', unit: 'celsius' },
        repaired: false,
        provider_executed: false,
      },
    ],
  );
  assert.deepEqual(e.filter((x) => x.type === 'usage').at(-1), {
    type: 'usage',
    input_tokens: 80,
    output_tokens: 95,
    total_tokens: 175,
    reasoning_tokens: 40,
    cached_input_tokens: null,
  });
  assert.deepEqual(e.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: 'tool_calls', finish: 'tool-calls' });

  e = eventsOf('openai-chat-action.sse');
  assert.equal(textOf(e, 'answer_delta'), 'Bonjour ! Voilà "la" réponse :\n— café ☕, naïve 😀 \\o/ {ok}');
  assert.equal(textOf(e, 'thinking_delta', 'thought'), 'The user greeted me in French; answer in kind.');
  const action = e.find((x) => x.type === 'action').action;
  assert.equal(action.next_node, 'final_response');
  assert.equal(action.thought, 'The user greeted me in French; answer in kind.');

  e = eventsOf('anthropic-error.sse');
  assert.deepEqual(
    e.filter((x) => x.type === 'error'),
    [{ type: 'error', code: 'overloaded_error', message: 'Overloaded', provider_code: 'overloaded_error' }],
  );
  assert.deepEqual(e.at(-1), { type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error' });

  e = eventsOf('openai-chat-tagged.sse');
  assert.equal(textOf(e, 'artifact_delta'), '\n# Release notes\n\n- Faster SSE decoding\n- New router: données → événements\n');
  assert.equal(textOf(e, 'user_delta'), '\nShall I save this draft? 🙂\n');
  assert.deepEqual(e.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop' });

  e = eventsOf('gemini-tools.sse');
  assert.equal(textOf(e, 'answer_delta'), 'Looking up São Paulo and Reykjavík.');
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call').map((x) => x.arguments),
    [{ city: 'São Paulo' }, { city: 'Reykjavík', days: 3 }],
  );
});

test('Responses tools: client tool inputs, provider outputs as results, caller, phase and continuations', () => {
  let e = eventsOf('openai-responses-client-tools.sse');
  const calls = e.filter((x) => x.type === 'tool_call');
  assert.deepEqual(
    calls.map((x) => [x.name, x.provider_executed]),
    [
      ['apply_patch', false],
      ['apply_patch', false],
      ['shell', false],
      ['local_shell', false],
      ['computer', false],
      ['tool_search', false],
    ],
  );
  assert.deepEqual(calls[0].arguments, {
    callId: 'call_patch1',
    operation: { type: 'update_file', path: 'docs/notes "draft".md', diff: '@@\n-old line\n+new "quoted" line\té\n' },
  });
  assert.deepEqual(calls[2].arguments, { action: { commands: ['ls -a "my dir"', 'pwd'] } });
  assert.deepEqual(calls[4].arguments.actions[1], { type: 'scroll', x: 5, y: 6, scrollX: 0, scrollY: 300, keys: ['SHIFT'] });
  assert.deepEqual(
    e.filter((x) => x.type === 'answer_delta'),
    [{ type: 'answer_delta', text: 'Editing the notes first.', phase: 'commentary' }],
  );
  assert.deepEqual(
    e.filter((x) => x.type === 'continuation'),
    [
      {
        type: 'continuation',
        kind: 'reasoning',
        id: 'rs_ct1',
        summary: [{ type: 'summary_text', text: 'Patch the notes, then look around.' }],
        encrypted_content: 'enc-part-one+two',
      },
      { type: 'continuation', kind: 'item', item_type: 'message', id: 'msg_ct1' },
    ],
  );
  assert.equal(e.at(-1).finish, 'tool-calls');

  e = eventsOf('openai-responses-server-tools.sse');
  const caller = { type: 'program', caller_id: 'call_prog1' };
  assert.deepEqual(
    e.find((x) => x.type === 'tool_call_start' && x.name === 'lookup_order'),
    { type: 'tool_call_start', index: 5, id: 'call_fn1', name: 'lookup_order', provider_executed: false, caller },
  );
  assert.deepEqual(e.find((x) => x.type === 'tool_call' && x.name === 'lookup_order').caller, caller);
  assert.ok(!('caller' in e.find((x) => x.type === 'tool_call' && x.name === 'shell')), 'absent when the provider names none');
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_result').map((x) => [x.index, x.id, x.name, x.provider_executed]),
    [
      [0, 'tsc_sv1', 'tool_search', true],
      [2, 'call_csh1', 'shell', true],
      [4, 'call_prog1', 'programmatic_tool_calling', true],
    ],
  );
  assert.deepEqual(e.find((x) => x.type === 'tool_result' && x.name === 'shell').result.output[0].outcome, { type: 'exit', exitCode: 0 });
  const answers = e.filter((x) => x.type === 'answer_delta');
  assert.deepEqual(
    answers.map((x) => [x.text, x.phase]),
    [
      ['Order A7 has shipped.', 'final_answer'],
      [' Anything else?', undefined],
    ],
  );
  assert.ok(!('phase' in answers[1]), 'phase is absent, not null, when unmarked');
  assert.deepEqual(
    e.filter((x) => x.type === 'continuation' && x.kind !== 'item'),
    [{ type: 'continuation', kind: 'compaction', id: 'cmp_sv1', encrypted_content: 'cmp-enc-1-final', created_by: 'server' }],
  );
  assert.deepEqual(
    e.find((x) => x.type === 'continuation' && x.item_type === 'function_call'),
    { type: 'continuation', kind: 'item', item_type: 'function_call', id: 'fc_sv1', call_id: 'call_fn1', index: 5 },
  );

  e = eventsOf('xai-server-tools.sse');
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call').map((x) => [x.name, x.arguments, x.provider_executed]),
    [
      ['x_search', { query: 'from:rustlang release', limit: 5 }, true],
      ['web_search', { query: 'Rust 1.80 release notes', num_results: 3 }, true],
      ['code_execution', { code: 'print(sum(range(10)))' }, true],
      ['view_image', { image_url: 'https://example.com/crab.png' }, true],
    ],
  );
  assert.equal(e.at(-1).finish, 'stop');
});

test('Anthropic and Bedrock blocks: continuations, compaction, model fallback, container, caller, stop details', () => {
  let e = eventsOf('anthropic-compaction.sse');
  assert.equal(
    textOf(e, 'compaction'),
    '## Earlier in this conversation\n\nThe user is planning a three-day trip to Lisbon and asked for café suggestions near Alfama.',
  );
  assert.equal(textOf(e, 'answer_delta'), 'For Alfama, try a café near the Miradouro de Santa Luzia — quiet in the morning.');
  assert.deepEqual(
    e.filter((x) => x.type === 'continuation'),
    [{ type: 'continuation', kind: 'compaction', encrypted_content: 'Q29tcGFjdGlvblN0YXRlVjE6c2VjdGlvbnM9Mw==' }],
  );

  e = eventsOf('anthropic-continuations.sse');
  assert.deepEqual(
    e.find((x) => x.type === 'model_fallback'),
    { type: 'model_fallback', from: { model: 'claude-lyre-5' }, to: { model: 'claude-opus-4-8' } },
  );
  assert.deepEqual(
    e.filter((x) => x.type === 'continuation').map((x) => Object.keys(x)),
    [
      ['type', 'kind', 'signature'],
      ['type', 'kind', 'data'],
    ],
  );
  assert.equal(e.find((x) => x.type === 'continuation').signature, 'ErUBCkYIBxgCIkBv3q9xZm9yLXRlc3Qtb25seQ==');
  const caller = { type: 'code_execution_20250825', tool_id: 'srvtoolu_ce_1' };
  assert.deepEqual(e.find((x) => x.type === 'tool_call_start' && x.index === 4).caller, caller);
  assert.deepEqual(e.find((x) => x.type === 'tool_call' && x.index === 4).caller, caller);
  assert.deepEqual(e.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: 'tool_use', finish: 'tool-calls' });

  e = eventsOf('anthropic-server-blocks.sse');
  assert.deepEqual(
    e.filter((x) => x.type === 'container'),
    [{ type: 'container', id: 'container_01Hq7TqZr3', expires_at: '2026-11-28T16:05:00Z' }],
  );
  assert.deepEqual(
    e.filter((x) => x.type === 'continuation'),
    [{ type: 'continuation', kind: 'container_upload', file_id: 'file_01Sales2026Q3' }],
  );
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_result').map((x) => [x.index, x.name, x.provider_executed]),
    [
      [1, 'advisor', true],
      [3, 'tool_search_tool_regex', true],
      [5, 'text_editor_code_execution', true],
      [7, 'bash_code_execution', true],
      [9, 'web_fetch', true],
    ],
  );

  e = eventsOf('anthropic-refusal-details.sse');
  assert.deepEqual(e.at(-1).stop_details, {
    type: 'refusal',
    category: 'cyber',
    explanation: 'This request was declined under the usage policy.',
    fallback_credit_token: 'fct_01ExampleToken',
  });

  e = eventsOf('bedrock-reasoning.bin');
  assert.deepEqual(
    e.filter((x) => x.type === 'continuation'),
    [
      { type: 'continuation', kind: 'thinking_signature', signature: 'RXhhbXBsZVNpZ25hdHVyZVBhcnRUd28=' },
      { type: 'continuation', kind: 'redacted_thinking', redactedContent: 'UmVkYWN0ZWRSZWFzb25pbmdCbG9iMDE=' },
    ],
  );
});

test('Gemini: built-in tool parts, thought signatures, finishMessage; the Interactions API as gemini-interactions', () => {
  let e = eventsOf('gemini-server-tools.sse');
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call').map(({ name, provider_executed }) => [name, provider_executed]),
    [
      ['GOOGLE_SEARCH_WEB', true],
      ['set_reminder', false],
    ],
  );
  assert.deepEqual(
    e.find((x) => x.type === 'tool_result'),
    {
      type: 'tool_result',
      index: 0,
      id: 'srv_7q2',
      name: 'GOOGLE_SEARCH_WEB',
      result: { search_suggestions: 'tram 28 horário' },
      provider_executed: true,
    },
  );
  // The provider's fields spread onto the event, the call's index or the part it signs.
  assert.deepEqual(
    e.filter((x) => x.type === 'continuation'),
    [
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'dGhvdWdodC1zaWctMQ==', part: 'thought' },
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'Y2FsbC1zaWc=', index: 0 },
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'dGV4dC1zaWc=', part: 'text' },
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'ZnVuYy1zaWc=', index: 1 },
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'ZW1wdHktc2ln', part: 'text' },
    ],
  );
  assert.deepEqual(e.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: 'STOP', finish: 'tool-calls' });

  e = route({ content: 'text' }, [
    [
      'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Let me call the tool."}]}}]}',
      'data: {"candidates":[{"content":{"parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: set_reminder(at=08:45"}]}',
      '',
    ].join('\r\n\r\n'),
  ]);
  assert.deepEqual(e.at(-1), {
    type: 'done',
    ok: true,
    parse_ok: true,
    finish_reason: 'MALFORMED_FUNCTION_CALL',
    finish: 'error',
    finish_message: 'Malformed function call: set_reminder(at=08:45',
  });

  e = eventsOf('gemini-interactions-tools.sse');
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call').map(({ id, name, arguments: a }) => [id, name, a]),
    [
      ['fc_3k9d', 'get_weather', { city: 'Reykjavík', days: 2 }],
      ['fc_7x1a', 'get_time', { zone: 'Atlantic/Reykjavik' }],
    ],
  );
  assert.deepEqual(e.filter((x) => x.type === 'continuation').at(-1), {
    type: 'continuation',
    kind: 'thought_signature',
    signature: 'ZmMtc2ln',
    index: 0,
  });
  assert.deepEqual(e.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: 'requires_action', finish: 'tool-calls' });

  e = eventsOf('gemini-interactions-text.sse');
  assert.equal(textOf(e, 'thinking_delta', 'reasoning'), '**Recalling the river** The Douro meets the sea at Porto.');
  assert.equal(textOf(e, 'answer_delta'), 'The Douro flows into the Atlantic at Porto — “Foz do Douro”.');
  assert.deepEqual(e.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: 'completed', finish: 'stop' });

  const named = new StreamRouter({ provider: 'gemini-interactions' });
  assert.equal(named.provider, 'gemini-interactions');
  assert.deepEqual(structuredModes('gemini-interactions'), ['tool', 'json_schema', 'json_object', 'prompt']);
  const body = structuredRequest('gemini-interactions', {
    messages: [{ role: 'user', content: 'Quiz me' }],
    schema: { type: 'object' },
    name: 'quiz',
    mode: 'json_object',
  });
  assert.deepEqual(body.input, [{ type: 'user_input', content: [{ type: 'text', text: 'Quiz me' }] }]);
  assert.deepEqual(body.response_format, [{ type: 'text', mime_type: 'application/json' }]);
  assert.match(body.system_instruction, /named quiz/);
});

test('options are checked; caps and misuse throw StreamrouteError', () => {
  for (const bad of [{ provider: 'openai' }, { content: 'json' }, { maxEventBytes: 0 }, { maxEventBytes: 1.5 }]) {
    assert.throws(
      () => new StreamRouter(bad),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_option',
      JSON.stringify(bad),
    );
  }
  const r = new StreamRouter({ maxEventBytes: 16 });
  const first = 'data: {"choices":[{"delta":{"content":"ok"}}]}\n\n';
  let err;
  try {
    r.feed('data: {}\n\n' + first.replace('ok', 'far too long for the cap'));
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof StreamrouteError);
  assert.equal(err.code, 'sse_event_too_large');
  // The event completed before the cap rides on the error.
  assert.deepEqual(
    err.events.map((x) => x.type),
    ['error'],
  );
  const done = new StreamRouter();
  done.finish();
  assert.throws(
    () => done.feed('x'),
    (e) => e.code === 'invalid_state',
  );
  assert.throws(
    () => new StreamRouter({ content: 'tagged' }),
    (e) => e.code === 'invalid_option',
  );
});

function bodyOf(bytes, size, { delayMs = 0 } = {}) {
  let offset = 0;
  return new ReadableStream({
    async pull(controller) {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

async function collect(iterable) {
  const out = [];
  for await (const x of iterable) out.push(x);
  return out;
}

test('router.transform() and routeResponse() give the same events as feed/finish', async () => {
  for (const s of SAMPLES) {
    const want = route(s, [s.bytes]);
    const piped = bodyOf(s.bytes, 7).pipeThrough(new StreamRouter({ content: s.content, nonce: NONCE }).transform());
    assert.deepEqual(coalesce(await collect(piped)), want, `${s.file} transform`);
    const res = new Response(bodyOf(s.bytes, 64), { headers: { 'content-type': 'text/event-stream' } });
    assert.deepEqual(coalesce(await collect(routeResponse(res, { content: s.content, nonce: NONCE }))), want, `${s.file} routeResponse`);
  }
  const res = new Response('{"error":{"message":"bad key"}}', { status: 401 });
  assert.deepEqual(await collect(routeResponse(res)), [
    { type: 'error', code: 'http_error', message: 'HTTP 401: bad key', provider_code: null },
    { type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error' },
  ]);
});

test('routeResponse stops when its AbortSignal fires', async () => {
  const s = SAMPLES.find((x) => x.file === 'openai-chat-action.sse');
  const ac = new AbortController();
  const res = new Response(bodyOf(s.bytes, 256, { delayMs: 2 }));
  const got = [];
  await assert.rejects(
    async () => {
      for await (const e of routeResponse(res, { content: 'action-json', signal: ac.signal })) {
        got.push(e);
        if (got.length === 3) ac.abort();
      }
    },
    (e) => e.name === 'AbortError',
  );
  assert.equal(got.length, 3);
  assert.ok(!got.some((e) => e.type === 'done'));
  const aborted = AbortSignal.abort();
  await assert.rejects(collect(routeResponse(new Response('x'), { signal: aborted })), (e) => e.name === 'AbortError');
});

async function sse(events, profile, options) {
  const stream = new ReadableStream({
    start(c) {
      events.forEach((e) => c.enqueue(e));
      c.close();
    },
  }).pipeThrough(toSse(profile, { heartbeatMs: 0, ...options }));
  const text = new TextDecoder().decode(new Uint8Array(await new Response(stream).arrayBuffer()));
  const d = new SseDecoder();
  return { text, frames: [...d.feed(text), ...d.finish()], retry: d.retry };
}

test('toSse("ai-sdk"): UI message stream parts with ids, [DONE] last', async () => {
  const events = eventsOf('openai-chat-tools.sse');
  const { text, frames, retry } = await sse(events, 'ai-sdk', { retry: 2500 });
  assert.equal(retry, 2500);
  assert.match(text, /^id: 1\nretry: 2500\ndata: \{"type":"start"\}\n\n/);
  assert.equal(frames.at(-1).data, '[DONE]');
  const parts = frames.slice(0, -1).map((f) => JSON.parse(f.data));
  frames.slice(0, -1).forEach((f, i) => assert.equal(f.id, String(i + 1)));
  const types = parts.map((p) => p.type);
  assert.deepEqual(types.slice(0, 3), ['start', 'reasoning-start', 'reasoning-delta']);
  assert.equal(
    parts
      .filter((p) => p.type === 'reasoning-delta')
      .map((p) => p.delta)
      .join(''),
    'Two cities, so two weather calls in parallel.',
  );
  assert.equal(
    parts
      .filter((p) => p.type === 'text-delta')
      .map((p) => p.delta)
      .join(''),
    'Let me check both.',
  );
  assert.deepEqual(
    parts.filter((p) => p.type === 'tool-input-available'),
    [
      { type: 'tool-input-available', toolCallId: 'call_Wx1', toolName: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
      { type: 'tool-input-available', toolCallId: 'call_Wx2', toolName: 'get_weather', input: { city: 'Tōkyō', unit: 'celsius' } },
    ],
  );
  assert.equal(
    parts
      .filter((p) => p.type === 'tool-input-delta' && p.toolCallId === 'call_Wx2')
      .map((p) => p.inputTextDelta)
      .join(''),
    '{"city": "Tōkyō", "unit": "celsius"}',
  );
  // Every part that starts also ends, before the finish.
  for (const kind of ['text', 'reasoning']) {
    assert.equal(types.filter((t) => t === `${kind}-start`).length, types.filter((t) => t === `${kind}-end`).length);
  }
  assert.deepEqual(parts.at(-1), {
    type: 'finish',
    finishReason: 'tool-calls',
    messageMetadata: { ok: true, parse_ok: true, finish_reason: 'tool_calls', finish: 'tool-calls' },
  });
});

test('toSse("planner"): the reference frames (llm_stream_chunk, tool_call_*, step, done), artifact chunks and payload', async () => {
  const events = [
    ...eventsOf('anthropic-action.sse').slice(0, -1),
    { type: 'artifact_chunk', stream_id: 'chart', seq: 0, chunk: { points: [1, 2] }, done: false, artifact_type: 'chart' },
    { type: 'answer_delta', text: 'Done.' },
    { type: 'done', ok: true, parse_ok: true, finish_reason: 'end_turn', payload: { raw_answer: 'Done!', artifacts: [] } },
  ];
  const { frames } = await sse(events, 'planner', { actionSeq: 3, traceId: 't1' });
  const names = [...new Set(frames.map((f) => f.event))];
  assert.deepEqual(names, ['event', 'llm_stream_chunk', 'step', 'artifact_chunk', 'done']);
  const thinking = frames.map((f) => JSON.parse(f.data)).filter((d) => d.channel === 'thinking');
  assert.equal(thinking.map((d) => d.text).join(''), 'Search before answering.Need the docs first.');
  assert.ok(thinking.every((d) => d.action_seq === 3 && d.trace_id === 't1'));
  // Native reasoning is phase `thinking`, the action's streamed thought phase `observation`.
  assert.deepEqual(
    thinking.map((d) => [d.phase, d.text]),
    [
      ['thinking', 'Search before answering.'],
      ['observation', 'Need the docs first.'],
    ],
  );
  const step = JSON.parse(frames.find((f) => f.event === 'step').data);
  assert.equal(step.node, 'search_docs');
  assert.equal(step.thought, 'Need the docs first.');
  assert.deepEqual(JSON.parse(frames.find((f) => f.event === 'artifact_chunk').data), {
    trace_id: 't1',
    stream_id: 'chart',
    seq: 0,
    chunk: { points: [1, 2] },
    done: false,
    artifact_type: 'chart',
    meta: {},
    event: 'artifact_chunk',
  });
  const answerChunks = frames
    .filter((f) => f.event === 'llm_stream_chunk')
    .map((f) => JSON.parse(f.data))
    .filter((d) => d.channel === 'answer');
  assert.deepEqual(
    answerChunks.map((d) => [d.text, d.done]),
    [
      ['Done.', false],
      ['', true],
    ],
  );
  const done = JSON.parse(frames.at(-1).data);
  assert.equal(done.answer, 'Done!');
  assert.deepEqual(done.payload, { raw_answer: 'Done!', artifacts: [] });
  assert.deepEqual(done.metadata, { ok: true, parse_ok: true, finish_reason: 'end_turn' });
  assert.equal(done.answer_action_seq, 3);

  const tools = (await sse(eventsOf('openai-chat-tools.sse'), 'planner')).frames;
  const calls = tools.filter((f) => f.event.startsWith('tool_call')).map((f) => [f.event, JSON.parse(f.data)]);
  assert.deepEqual(
    calls.filter(([n]) => n !== 'tool_call_args').map(([n, d]) => [n, d.tool_call_id, d.tool_name]),
    [
      ['tool_call_start', 'call_Wx1', 'get_weather'],
      ['tool_call_end', 'call_Wx1', 'get_weather'],
      ['tool_call_start', 'call_Wx2', 'get_weather'],
      ['tool_call_end', 'call_Wx2', 'get_weather'],
    ],
  );
  assert.equal(
    calls
      .filter(([n, d]) => n === 'tool_call_args' && d.tool_call_id === 'call_Wx1')
      .map(([, d]) => d.delta)
      .join(''),
    '{"city": "Paris", "unit": "celsius"}',
  );
});

test('toSse("tagged"): artifact_delta / user_delta / done, and a ping event while idle', async () => {
  const events = [
    { type: 'artifact_delta', text: '# Draft\n' },
    { type: 'artifact_chunk', stream_id: 's', seq: 0, chunk: 'more', done: true, artifact_type: 'text' },
    { type: 'user_delta', text: 'Save it?' },
    { type: 'error', code: 'stream_truncated', message: 'cut' },
    { type: 'done', ok: false, parse_ok: true, finish_reason: null },
  ];
  const { frames } = await sse(events, 'tagged');
  assert.deepEqual(
    frames.map((f) => [f.event, JSON.parse(f.data), f.id]),
    [
      ['artifact_delta', { text: '# Draft\n' }, '1'],
      ['artifact_delta', { text: 'more', stream_id: 's', seq: 0, chunk: 'more', done: true, artifact_type: 'text' }, '2'],
      ['user_delta', { text: 'Save it?' }, '3'],
      ['error', { code: 'stream_truncated', message: 'cut' }, '4'],
      ['done', { ok: false, parse_ok: true, error: { code: 'stream_truncated', message: 'cut' } }, '5'],
    ],
  );

  // Heartbeats: nothing to send for a while → `event: ping` (tagged) / `: ping` (others).
  for (const [profile, beat] of [
    ['tagged', 'event: ping\ndata: {}\n\n'],
    ['ai-sdk', ': ping\n\n'],
  ]) {
    const ts = toSse(profile, { heartbeatMs: 20 });
    const writer = ts.writable.getWriter();
    const reader = ts.readable.getReader();
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), beat, profile);
    await writer.close();
    while (!(await reader.read()).done);
  }
  assert.throws(
    () => toSse('json'),
    (e) => e instanceof StreamrouteError && e.code === 'invalid_option',
  );
});

/** A server that sends events 1..total with ids (or the frames of `body`), honours Last-Event-ID, and drops the first `dropsLeft` connections after `dropAfter` events each (mid-event). */
async function flakyServer({ total = 10, dropAfter = 4, dropsLeft = 1, body = null } = {}) {
  const seen = [];
  let drops = dropsLeft;
  const server = await listen((req, res) => {
    let reqBody = '';
    req.on('data', (c) => (reqBody += c));
    req.on('end', () => {
      seen.push({
        method: req.method,
        lastEventId: req.headers['last-event-id'] ?? null,
        auth: req.headers.authorization ?? null,
        body: reqBody,
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const from = Number(req.headers['last-event-id'] ?? 0) + 1;
      res.write('retry: 30\n\n');
      const frames = body ?? Array.from({ length: total }, (_, i) => `id: ${i + 1}\ndata: {"n":${i + 1}}\n\n`);
      const start = body ? frames.findIndex((f) => f.startsWith(`id: ${from}\n`)) : from - 1;
      for (let i = Math.max(0, start), sent = 0; i < frames.length; i++, sent++) {
        if (drops > 0 && sent === dropAfter) {
          drops--;
          res.write(frames[i].slice(0, 8)); // half an event, then the connection dies
          setTimeout(() => res.socket.destroy(), 20);
          return;
        }
        res.write(frames[i]);
      }
      res.end();
    });
  });
  return { server, seen };
}

test('connectSse resumes with Last-Event-ID after a dropped connection: nothing lost or repeated', async () => {
  const { server, seen } = await flakyServer({ dropsLeft: 2, dropAfter: 4 });
  try {
    const got = await collect(
      connectSse(`${server.origin}/stream`, {
        method: 'POST',
        body: '{"q":1}',
        headers: { authorization: 'Bearer x' },
      }),
    );
    assert.deepEqual(
      got.map((e) => e.data),
      Array.from({ length: 10 }, (_, i) => `{"n":${i + 1}}`),
    );
    assert.deepEqual(
      got.map((e) => e.id),
      Array.from({ length: 10 }, (_, i) => String(i + 1)),
    );
    assert.deepEqual(
      seen.map((s) => s.lastEventId),
      [null, '4', '8'],
    );
    assert.ok(seen.every((s) => s.method === 'POST' && s.body === '{"q":1}' && s.auth === 'Bearer x'));
  } finally {
    await server.close();
  }
});

test('connectSse gives up after maxRetries, and stops on abort', async () => {
  const { server, seen } = await flakyServer({ dropsLeft: 99, dropAfter: 0 });
  try {
    await assert.rejects(
      collect(connectSse(`${server.origin}/`, {}, { maxRetries: 2 })),
      (e) => e instanceof StreamrouteError && e.code === 'sse_connection_failed',
    );
    assert.equal(seen.length, 3);
    const ac = new AbortController();
    const it = connectSse(`${server.origin}/`, { signal: ac.signal }, { maxRetries: 50, retryMs: 10 });
    setTimeout(() => ac.abort(), 60);
    await assert.rejects(collect(it), (e) => e.name === 'AbortError');
  } finally {
    await server.close();
  }
});

test('connectSse with router options yields the routed events of a resumed provider stream', async () => {
  const s = SAMPLES.find((x) => x.file === 'openai-chat-tools.sse');
  // The sample with ids added, one per event.
  const frames = s.text
    .replaceAll('\r\n', '\n')
    .split('\n\n')
    .filter(Boolean)
    .map((f, i) => `id: ${i + 1}\n${f}\n\n`);
  const { server, seen } = await flakyServer({ body: frames, dropAfter: 12 });
  try {
    const got = await collect(connectSse(`${server.origin}/`, {}, { router: { provider: 'openai-chat' } }));
    assert.deepEqual(coalesce(got), route(s, [s.bytes]));
    assert.deepEqual(
      seen.map((x) => x.lastEventId),
      [null, '12'],
    );
  } finally {
    await server.close();
  }
});

test('the streamroute bin routes a file or stdin: readable by default, NDJSON with --json', async () => {
  const { execFileSync, spawnSync } = await import('node:child_process');
  const { join, dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const consumer = join(dirname(fileURLToPath(import.meta.url)), '.tmp', 'consumer');
  const bin = join(consumer, 'node_modules', '.bin', 'streamroute');
  const s = SAMPLES.find((x) => x.file === 'openai-chat-tools.sse');
  const file = join(consumer, '..', '..', '..', '..', 'examples', 'streams', s.file);
  const lines = execFileSync(bin, ['route', file, '--json'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(coalesce(lines), route(s, [s.bytes]));
  const human = execFileSync(bin, ['route', '-', '--provider', 'openai-chat'], { input: s.bytes, encoding: 'utf8' });
  assert.match(human, /^── thinking \(reasoning\)\nTwo cities, so two weather calls in parallel\.\n── answer\nLet me check both\.\n/);
  assert.match(human, /── tool call 1 complete: get_weather\(\{"city":"Tōkyō","unit":"celsius"\}\)\n/);
  assert.match(human, /── done: ok · parse_ok true · finish_reason tool_calls\n {3}\(provider: openai-chat, content: text\)\n$/);
  const a = SAMPLES.find((x) => x.file === 'openai-chat-action.sse');
  const action = execFileSync(bin, ['route', '--content', 'action-json', '-'], { input: a.bytes, encoding: 'utf8' });
  assert.match(
    action,
    /── answer\nBonjour ! Voilà "la" réponse :\n— café ☕, naïve 😀 \\o\/ \{ok\}\n── action: \{"next_node":"final_response"/,
  );
  const bad = spawnSync(bin, ['route', '--content', 'yaml', file], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /invalid_option/);
});

test('TypeScript: the router API type-checks', async () => {
  const { status, output } = typecheck(
    'ts-router',
    `
    import { StreamRouter, toSse, routeResponse, connectSse, type RoutedEvent, type StreamRouterInit, type SseEvent } from 'streamroute';
    const o: StreamRouterInit = { provider: 'anthropic', content: 'action-json', maxEventBytes: 1 << 20 };
    const r = new StreamRouter(o);
    const events: RoutedEvent[] = r.feed(new Uint8Array(0)).concat(r.finish());
    for (const e of events) {
      if (e.type === 'answer_delta') { const t: string = e.text; void t; }
      if (e.type === 'tool_call') { const n: number = e.index; const rep: boolean = e.repaired; void [n, rep, e.arguments]; }
      if (e.type === 'done') { const f: string | null | undefined = e.finish_reason; void [f, e.ok, e.parse_ok]; }
      if (e.type === 'action') { const node: string = e.action.next_node; void node; }
    }
    const ts: TransformStream<Uint8Array | string, RoutedEvent> = r.transform();
    const body: ReadableStream<Uint8Array> = new ReadableStream<Uint8Array>().pipeThrough(ts).pipeThrough(toSse('ai-sdk', { retry: 10 }));
    const provider: string = r.provider;
    async function f(res: Response) {
      for await (const e of routeResponse(res, { content: 'text', signal: AbortSignal.timeout(10) })) { const t: string = e.type; void t; }
      for await (const e of connectSse('http://x', { method: 'POST' })) { const ev: SseEvent = e; void ev; }
      for await (const e of connectSse('http://x', {}, { router: { provider: 'gemini' } })) { const ev: RoutedEvent = e; void ev; }
    }
    void [body, provider, f];
  `,
  );
  assert.equal(status, 0, output);
});

// The declared type is the type of the values: every event of the sample streams (every event
// type, absent optional fields as `null`) type-checks as a `RoutedEvent` literal, where a
// field of another type, a missing field or an undeclared one is an error.
test('TypeScript: every routed event of the sample streams is a RoutedEvent, every structured mode a StructuredMode', () => {
  const events = SAMPLES.flatMap((s) => coalesce(feedAll(new StreamRouter({ content: s.content, nonce: NONCE }), [s.bytes])));
  assert.equal(new Set(events.map((e) => e.type)).size, 18, 'every event type');
  assert.ok(
    events.some((e) => e.type === 'usage' && Object.values(e).includes(null)),
    'a usage count is null',
  );
  assert.ok(
    events.some((e) => e.type === 'action' && e.action.thought === null),
    'an action thought is null',
  );
  const providers = [
    'openai-chat',
    'openai-responses',
    'anthropic',
    'gemini',
    'gemini-interactions',
    'ollama',
    'bedrock',
    'cohere',
    'text',
  ];
  const modes = providers.flatMap((p) => structuredModes(p));
  assert.equal(new Set(modes).size, 4, 'every mode');
  const { status, output } = typecheck(
    'ts-router-values',
    `
    import type { RoutedEvent, StructuredMode } from 'streamroute';
    export const events: RoutedEvent[] = ${JSON.stringify(events)};
    export const modes: StructuredMode[] = ${JSON.stringify(modes)};
  `,
  );
  assert.equal(status, 0, output);
});

test('structuredRequest builds the strongest supported request body; structuredModes is the table', () => {
  const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Quiz me' },
  ];
  assert.deepEqual(structuredRequest('anthropic', { messages, schema, name: 'quiz', stream: true }), {
    max_tokens: 4096,
    messages: [{ role: 'user', content: 'Quiz me' }],
    system: 'Be brief.',
    tools: [{ name: 'quiz', input_schema: schema }],
    tool_choice: { type: 'tool', name: 'quiz' },
    stream: true,
  });
  const chat = structuredRequest('openai-chat', { messages, schema, name: 'quiz' });
  assert.deepEqual(chat.tool_choice, { type: 'function', function: { name: 'quiz' } });
  assert.equal(chat.stream, true);
  assert.deepEqual(
    structuredRequest('openai-chat', { messages, schema, name: 'quiz', stream: false, mode: 'json_schema' }).response_format,
    { type: 'json_schema', json_schema: { name: 'quiz', schema: { ...schema, additionalProperties: false }, strict: true } },
  );
  assert.deepEqual(structuredRequest('gemini', { messages, schema, name: 'quiz' }).toolConfig, {
    functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['quiz'] },
  });
  assert.deepEqual(structuredModes('anthropic'), ['tool', 'json_schema', 'prompt']);
  assert.deepEqual(structuredModes('openai-responses'), ['tool', 'json_schema', 'json_object', 'prompt']);
  assert.deepEqual(structuredModes('text'), ['prompt']);
  for (const [p, o] of [
    ['anthropic', { messages, schema, name: 'q', mode: 'json_object' }],
    ['nope', { messages, schema, name: 'q' }],
    ['gemini', { messages: 'hi', schema, name: 'q' }],
    ['gemini', { messages, schema, name: 'a b' }],
  ]) {
    assert.throws(
      () => structuredRequest(p, o),
      (e) => e instanceof StreamrouteError && e.code === 'invalid_option',
      p,
    );
  }
});

test('content "tagged": the nonce leaves through no channel, at every chunking; toSse forwards only masks', async () => {
  const nonce = '0123456789abcdef0123456789abcdef';
  const [head, tail] = [nonce.slice(0, 13), nonce.slice(13)];
  const soft = '0123\u200b456789abcdef\u00ad0123456789ab\ufeffcdef';
  const chunk = (delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
  const sse =
    chunk({ reasoning_content: `I must write [ARTIFACT:${head}` }) +
    chunk({ reasoning_content: `${tail}] first, then ${soft}.` }) +
    chunk({ refusal: `I will not repeat ${nonce}` }) +
    chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'save', arguments: `{"tag":"${head}` } }] }) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: `${tail}"}` } }] }) +
    chunk({ content: `[ARTIFACT:${nonce}]A[/ARTIFACT:${nonce}][USER:${nonce}]Hello ${soft}[/USER:${nonce}]` }) +
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n` +
    `data: ${JSON.stringify({ error: { message: `bad ${nonce}`, type: 'server_error' } })}\n\n` +
    'data: [DONE]\n\n';
  const run = (chunks) => coalesce(feedAll(new StreamRouter({ provider: 'openai-chat', content: 'tagged', nonce }), chunks));
  const want = run([sse]);
  for (const [label, chunks] of splitings(sse)) assert.deepEqual(run(chunks), want, label);
  const text = JSON.stringify(want);
  for (const piece of [nonce, '0123\u200b4567', `[ARTIFACT:0`]) assert.ok(!text.includes(piece), `${piece} in ${text}`);
  const of = (type) => want.filter((e) => e.type === type);
  assert.equal(
    of('thinking_delta')
      .map((e) => e.text)
      .join(''),
    'I must write [ARTIFACT:\ufffd] first, then \ufffd.',
  );
  assert.equal(of('refusal_delta')[0].text, 'I will not repeat \ufffd');
  assert.deepEqual(of('tool_call')[0].arguments, { tag: '\ufffd' });
  assert.equal(
    of('user_delta')
      .map((e) => e.text)
      .join(''),
    'Hello \ufffd',
  );
  const done = want.at(-1);
  assert.equal(done.parse_ok, false);
  assert.deepEqual(
    done.violations.map((v) => v.code),
    Array(7).fill('nonce_in_text'),
  );
  // toSse forwards what the router gives: the masks, never the nonce.
  for (const profile of ['planner', 'tagged', 'ai-sdk']) {
    const ts = toSse(profile, { heartbeatMs: 0 });
    const body = new Response(ts.readable).text();
    const writer = ts.writable.getWriter();
    for (const e of want) await writer.write(e);
    await writer.close();
    assert.ok(!(await body).includes(nonce), profile);
  }
  // Without the nonce outside the blocks, done has no violations.
  const clean = run([
    chunk({ content: `[ARTIFACT:${nonce}]A[/ARTIFACT:${nonce}][USER:${nonce}]Hi[/USER:${nonce}]` }) +
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
  ]);
  assert.equal(clean.at(-1).parse_ok, true);
  assert.equal('violations' in clean.at(-1), false);
});

test('structuredRequest reads its options strictly: unknown keys, wrong types, the input cap, unencodable and deep values', () => {
  const schema = { type: 'object', properties: { q: { type: 'string' } } };
  const messages = [{ role: 'user', content: 'Quiz me' }];
  const fails = (o, code, re) =>
    assert.throws(
      () => structuredRequest('openai-chat', o),
      (e) => e instanceof StreamrouteError && e.code === code && re.test(e.message),
      `${code} ${re}`,
    );
  fails({ messages, schema, modle: 'gpt-4.1' }, 'invalid_input', /unknown option "modle"/);
  fails({ messages, schema, name: 42 }, 'invalid_option', /name: invalid type: a number, expected a string/);
  fails({ messages, schema, stream: 'false' }, 'invalid_option', /stream: invalid type: a string, expected a boolean/);
  fails({ messages, schema, mode: 1 }, 'invalid_option', /mode: invalid type: a number/);
  fails({ messages, schema, model: ['m'] }, 'invalid_option', /model: invalid type: an array/);
  fails({ messages: 'hi', schema }, 'invalid_option', /messages/);
  const cyclic = { type: 'object' };
  cyclic.self = cyclic;
  fails({ messages, schema: cyclic }, 'invalid_input', /schema must be a JSON-serialisable value/);
  fails({ messages, schema: { type: 'object', maxLength: 1n } }, 'invalid_input', /schema must be a JSON-serialisable value/);
  fails({ messages: [{ role: 'user', content: 2n }], schema }, 'invalid_input', /messages must be a JSON-serialisable value/);
  let deep = { type: 'string' };
  for (let i = 0; i < 600; i++) deep = { anyOf: [deep] };
  fails({ messages, schema: deep }, 'json_too_deep', /./);
  // 64 MiB of JSON text at most, for each JSON option: one long message, or many that add up.
  const big = 'x'.repeat(65 << 20);
  fails({ messages: [{ role: 'user', content: big }], schema }, 'input_too_large', /messages/);
  const part = big.slice(0, 40 << 20);
  fails(
    {
      messages: [
        { role: 'user', content: part },
        { role: 'user', content: part },
      ],
      schema,
    },
    'input_too_large',
    /messages/,
  );
  fails({ messages, schema: { type: 'string', description: big } }, 'input_too_large', /schema/);
  // Absent, undefined and null are the defaults; a body within the cap is built.
  const ok = structuredRequest('openai-chat', { messages, schema, name: undefined, stream: null, mode: undefined, model: null });
  assert.equal(ok.stream, true);
  assert.equal(ok.tool_choice.function.name, 'output');
  assert.equal(
    structuredRequest('openai-chat', { messages: [{ role: 'user', content: part }], schema }).messages[0].content.length,
    part.length,
  );
});

test('toSse: null, a primitive or a malformed event is invalid_input for every profile', async () => {
  const failure = async (profile, event) => {
    const ts = toSse(profile, { heartbeatMs: 0 });
    const writer = ts.writable.getWriter();
    const reader = ts.readable.getReader();
    const [w, r] = await Promise.all([
      writer.write(event).then(
        () => null,
        (e) => e,
      ),
      reader.read().then(
        () => null,
        (e) => e,
      ),
    ]);
    return w ?? r;
  };
  const bad = [
    null,
    undefined,
    5,
    'answer',
    [],
    {},
    { type: 7 },
    { type: 'action', action: null },
    { type: 'action', action: 'x' },
    { type: 'answer_delta' },
    { type: 'answer_delta', text: 1 },
    { type: 'thinking_delta', text: null },
    { type: 'tool_call_start', id: 'a' },
    { type: 'tool_call_delta', index: 0 },
    { type: 'tool_call_delta', index: -1, arguments: '' },
    { type: 'tool_call', index: 0 },
    { type: 'error', code: 'x' },
    { type: 'artifact_chunk', seq: 0 },
    { type: 'refusal_delta', text: {} },
  ];
  for (const profile of ['planner', 'tagged', 'ai-sdk']) {
    for (const event of bad) {
      const e = await failure(profile, event);
      assert.ok(e instanceof StreamrouteError && e.code === 'invalid_input', `${profile} ${JSON.stringify(event)}: ${e}`);
    }
    // A well-formed event of every kind still goes out.
    const ts = toSse(profile, { heartbeatMs: 0 });
    const out = new Response(ts.readable).text();
    const writer = ts.writable.getWriter();
    for (const event of [
      { type: 'answer_delta', text: 'a' },
      { type: 'action', action: { next_node: 'n', args: {} } },
      { type: 'tool_call_start', index: 0, id: 'c', name: 'f' },
      { type: 'tool_call_delta', index: 0, arguments: '{}' },
      { type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: {}, repaired: false },
      { type: 'error', code: 'x', message: 'y' },
      { type: 'usage', input_tokens: 1 },
      { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop' },
    ])
      await writer.write(event);
    await writer.close();
    assert.match(await out, /data: /, profile);
  }
});

test('toSse takes ArtifactStream events: artifact chunks and the final done with its payload', async () => {
  const { ArtifactStream, buildFinalPayload } = await import('streamroute/payload');
  const stream = new ArtifactStream();
  const { payload } = buildFinalPayload({ answer: 'Revenue grew 15%.' });
  const events = [
    { type: 'answer_delta', text: 'Revenue grew 15%.' },
    stream.emit('sales_chart', { series: [1, 2] }, true),
    stream.finish(payload),
  ];
  const planner = (await sse(events, 'planner')).frames;
  assert.deepEqual(
    planner.map((f) => f.event),
    ['llm_stream_chunk', 'artifact_chunk', 'llm_stream_chunk', 'done'],
  );
  assert.deepEqual(JSON.parse(planner[1].data), {
    stream_id: 'sales_chart',
    seq: 0,
    chunk: { series: [1, 2] },
    done: true,
    artifact_type: 'dict',
    meta: {},
    event: 'artifact_chunk',
  });
  const done = JSON.parse(planner[3].data);
  assert.equal(done.answer, 'Revenue grew 15%.');
  assert.equal(done.payload.raw_answer, 'Revenue grew 15%.');
  assert.deepEqual(done.metadata, { ok: true, parse_ok: true, finish_reason: null });
  const parts = (await sse(events, 'ai-sdk')).frames.slice(0, -1).map((f) => JSON.parse(f.data));
  assert.deepEqual(
    parts.find((p) => p.type === 'data-artifact'),
    {
      type: 'data-artifact',
      id: 'sales_chart-0',
      data: { stream_id: 'sales_chart', seq: 0, chunk: { series: [1, 2] }, done: true, artifact_type: 'dict' },
    },
  );
  assert.equal(parts.at(-1).messageMetadata.payload.raw_answer, 'Revenue grew 15%.');
  const tagged = (await sse(events, 'tagged')).frames;
  assert.deepEqual(
    tagged.map((f) => f.event),
    ['user_delta', 'artifact_delta', 'done'],
  );
  assert.equal(JSON.parse(tagged[2].data).payload.raw_answer, 'Revenue grew 15%.');
});

test('nothing after the end marker, choice 0 only, tool call indices that are not indices are provider_error', () => {
  const sse = (...events) => events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');
  const chunk = (choices, extra = {}) => ({ object: 'chat.completion.chunk', choices, ...extra });
  const routeAll = (text) => {
    const want = coalesce(feedAll(new StreamRouter({ provider: 'openai-chat' }), [text]));
    for (const [label, chunks] of splitings(text)) {
      assert.deepEqual(coalesce(feedAll(new StreamRouter({ provider: 'openai-chat' }), chunks)), want, label);
    }
    return want;
  };
  // n = 2 interleaved; content after choice 0's finish reason and after [DONE] is dropped; the
  // usage chunk after the finish reason counts.
  let e = routeAll(
    sse(
      chunk([{ index: 0, delta: { content: 'Zero ' } }]),
      chunk([{ index: 1, delta: { content: 'One ' } }]),
      chunk([
        { delta: { content: 'uno ' }, index: 1 },
        { index: 0, delta: { content: 'first' } },
      ]),
      chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
      chunk([{ index: 0, delta: { content: ' AFTER FINISH' } }]),
      chunk([], { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }),
      '[DONE]',
      chunk([{ index: 0, delta: { content: ' AFTER DONE' } }]),
    ),
  );
  assert.equal(textOf(e, 'answer_delta'), 'Zero first');
  assert.equal(e.filter((x) => x.type === 'usage').length, 1);
  assert.deepEqual(e.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop' });
  // -1, "0" and 2^32 used to be coerced and merged into call 0.
  const call = (index, args, more = {}) =>
    chunk([{ index: 0, delta: { tool_calls: [{ index, ...more, function: { arguments: args, ...more.function } }] } }]);
  e = routeAll(
    sse(
      call(0, '{"a":', { id: 'c0', function: { name: 'f' } }),
      call(-1, '9'),
      call('0', '8'),
      call(2 ** 32, '7'),
      call(0, '1}'),
      chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
      '[DONE]',
    ),
  );
  assert.deepEqual(
    e.filter((x) => x.type === 'error').map((x) => x.code),
    ['provider_error', 'provider_error', 'provider_error'],
  );
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call').map((x) => [x.index, x.id, x.arguments]),
    [[0, 'c0', { a: 1 }]],
  );
  assert.equal(e.at(-1).ok, false);
});

// A fetch whose first response sends `frames` and then drops the connection, and whose later
// ones drop at once; records each request's Last-Event-ID and when it came.
function droppingFetch(frames) {
  const calls = [];
  const fetch = async (_url, init) => {
    calls.push({ lastEventId: new Headers(init.headers).get('last-event-id'), at: Date.now() });
    let sent = calls.length > 1;
    const body = new ReadableStream({
      pull(c) {
        if (sent) return c.error(new TypeError('connection dropped'));
        sent = true;
        c.enqueue(new TextEncoder().encode(frames));
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, calls };
}

test('connectSse resumes after an event id beyond Latin-1: Last-Event-ID carries its UTF-8 bytes', async () => {
  const id = 'caf\u00e9-\u4e16-\u{1F600}';
  const { fetch, calls } = droppingFetch(`retry: 5\nid: ${id}\ndata: x\n\n`);
  await assert.rejects(
    collect(connectSse('http://example.test/', {}, { fetch, maxRetries: 2 })),
    (e) => e instanceof StreamrouteError && e.code === 'sse_connection_failed',
  );
  const sent = String.fromCharCode(...new TextEncoder().encode(id));
  assert.deepEqual(
    calls.map((c) => c.lastEventId),
    [null, sent, sent],
  );
});

test('connectSse clamps a huge retry: to its maximum instead of reconnecting at once', async () => {
  const { fetch, calls } = droppingFetch('retry: 99999999999\nid: 1\ndata: x\n\n');
  const ac = new AbortController();
  const it = connectSse('http://example.test/', { signal: ac.signal }, { fetch, maxRetries: 5 });
  setTimeout(() => ac.abort(), 300);
  await assert.rejects(collect(it), (e) => e.name === 'AbortError');
  assert.equal(calls.length, 1, 'no reconnection within 300 ms');
});

test('a stream routed as a provider it is not ends in provider_mismatch, at every chunking', () => {
  const anthropic = SAMPLES.find((s) => s.file === 'anthropic-tools.sse');
  const text = anthropic.text + 'data: [DONE]\n\n';
  const outcome = (chunks) => {
    const events = feedAll(new StreamRouter({ provider: 'openai-chat' }), chunks);
    return { errors: events.filter((e) => e.type === 'error'), done: events.at(-1) };
  };
  const want = outcome([text]);
  assert.deepEqual(
    want.errors.map((e) => [e.code, e.provider_code]),
    [['provider_mismatch', null]],
  );
  assert.match(want.errors[0].message, /routed as openai-chat .* looks like anthropic/);
  assert.equal(want.done.type, 'done');
  assert.equal(want.done.ok, false);
  for (const [label, chunks] of splitings(text)) assert.deepEqual(outcome(chunks), want, label);
  // Its own provider never gets it.
  const own = feedAll(new StreamRouter({ provider: 'anthropic' }), [anthropic.text]);
  assert.ok(!own.some((e) => e.code === 'provider_mismatch'));
  assert.equal(own.at(-1).ok, true);
});

// Anthropic: n tool_use blocks open at once, each with its own arguments, then closed.
function openToolUses(n) {
  const frames = [
    { type: 'message_start', message: { id: 'm', role: 'assistant', content: [], usage: { input_tokens: 1, output_tokens: 0 } } },
  ];
  for (let i = 0; i < n; i++)
    frames.push({
      type: 'content_block_start',
      index: i,
      content_block: { type: 'tool_use', id: `t${i}`, name: 'delete_file', input: {} },
    });
  for (let i = 0; i < n; i++)
    frames.push({ type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: `{"path": "/f${i}"}` } });
  for (let i = 0; i < n; i++) frames.push({ type: 'content_block_stop', index: i });
  frames.push({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } }, { type: 'message_stop' });
  return frames.map((f) => `event: ${f.type}\ndata: ${JSON.stringify(f)}\n\n`).join('');
}

test('routeResponse: 300 open Anthropic tool calls each keep their arguments; past the budget, error and done {ok: false}, nothing lost', async () => {
  const wire = openToolUses(300);
  const calls = (await collect(routeResponse(new Response(wire), { provider: 'anthropic' }))).filter((e) => e.type === 'tool_call');
  assert.equal(calls.length, 300);
  for (const [i, c] of calls.entries()) assert.deepEqual(c.arguments, { path: `/f${i}` });
  for (const [, chunks] of splitings(wire)) {
    const bytes = chunks.map((s) => (typeof s === 'string' ? new TextEncoder().encode(s) : s));
    const body = new ReadableStream({
      start(c) {
        for (const b of bytes) c.enqueue(b);
        c.close();
      },
    });
    const events = await collect(routeResponse(new Response(body), { provider: 'anthropic', maxBufferBytes: 4096 }));
    const [error, done] = events.slice(-2);
    assert.equal(error.type, 'error');
    assert.equal(error.code, 'buffer_limit_exceeded');
    assert.match(error.message, /maxBufferBytes/);
    assert.deepEqual([done.type, done.ok], ['done', false]);
    // No call came out without the arguments it was sent, and the starts before the error were kept.
    assert.ok(events.some((e) => e.type === 'tool_call_start'));
    for (const e of events) if (e.type === 'tool_call') assert.match(JSON.stringify(e.arguments), /"path":"\/f\d+"/);
  }
});

test('OpenAI-compatible dialects and Cohere: what their samples say in JS', () => {
  let e = eventsOf('openai-chat-gemini-compat.sse');
  assert.deepEqual(
    e.filter((x) => x.type === 'continuation'),
    [{ type: 'continuation', kind: 'thought_signature', thoughtSignature: 'CqQBAdHtim8sig0001', index: 0 }],
  );
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call').map((x) => [x.index, x.id, x.arguments]),
    [
      [0, 'function-call-1101', { city: 'Oslo' }],
      [1, 'function-call-1102', { city: 'Lima' }],
    ],
  );

  e = eventsOf('openai-chat-perplexity.sse');
  assert.deepEqual(
    e.filter((x) => x.type === 'source'),
    [
      {
        type: 'source',
        id: null,
        url: 'https://www.iso.org/iso-8601-date-and-time-format.html',
        title: 'ISO 8601 — Date and time format',
        snippet: 'ISO 8601 is an international standard',
      },
      { type: 'source', id: null, url: 'https://en.wikipedia.org/wiki/ISO_8601', title: 'ISO 8601', snippet: null },
    ],
  );
  assert.equal(textOf(e, 'answer_delta'), 'ISO 8601 writes dates year first[1][2].');

  e = eventsOf('openai-chat-compat-tools.sse');
  assert.equal(textOf(e, 'thinking_delta', 'reasoning'), 'Convert, then round.');
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call').map((x) => [x.index, x.id, x.name]),
    [
      [0, 'chatcmpl-tool-a1', 'convert'],
      [1, 'chatcmpl-tool-b2', 'round'],
    ],
  );

  e = eventsOf('cohere-chat.sse');
  assert.equal(textOf(e, 'thinking_delta', 'reasoning'), 'Both documents mention the lighthouse.');
  assert.deepEqual(
    e.filter((x) => x.type === 'source').map((x) => x.id),
    ['doc:0', 'doc:1'],
  );
  assert.deepEqual(e.filter((x) => x.type === 'usage').at(-1), {
    type: 'usage',
    input_tokens: 902,
    output_tokens: 44,
    total_tokens: 946,
    reasoning_tokens: null,
    cached_input_tokens: 640,
  });
  assert.deepEqual(e.at(-1), { type: 'done', ok: true, parse_ok: true, finish_reason: 'COMPLETE', finish: 'stop' });

  e = eventsOf('cohere-tools.sse');
  assert.equal(textOf(e, 'thinking_delta', 'reasoning'), 'I will look up the flight, then the gate.');
  assert.deepEqual(
    e.filter((x) => x.type === 'tool_call').map((x) => [x.name, x.arguments, x.provider_executed]),
    [
      ['flight_status', { flight: 'SK1463' }, false],
      ['gate_info', {}, false],
    ],
  );

  const cohere = new StreamRouter({ provider: 'cohere' });
  assert.equal(cohere.provider, 'cohere');
  const auto = new StreamRouter();
  feedAll(auto, [SAMPLES.find((s) => s.file === 'cohere-error.sse').bytes]);
  assert.equal(auto.provider, 'cohere');
  assert.deepEqual(structuredModes('cohere'), ['json_schema', 'tool', 'json_object', 'prompt']);
});
