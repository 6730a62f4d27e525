// AnswerExtractor and LlmStreamChunker from the packed package: the shared corpus
// (tests/corpus/answer_extractor.json, also run by tests/answer_extractor.rs) under every
// chunking of helpers/chunking.mjs (strings whole, one UTF-16 code unit at a time, UTF-8 bytes
// one at a time, random string and byte pieces), 1 MB answers generated here, the
// llm_stream_chunk shape rules, the JS side of B14/B15/B16, and errors with codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as sr from 'streamroute';
import { SEED, byteSplitings, rng, splitings } from './helpers/chunking.mjs';

const corpus = JSON.parse(readFileSync(new URL('../corpus/answer_extractor.json', import.meta.url), 'utf8'));

const scalarCount = (s) => [...s].length;

/** Feeds every chunk (taking the thought after each), then finishes. */
function extract(chunks, options) {
  const x = new sr.AnswerExtractor(options);
  let answer = '';
  let thought = '';
  for (const c of chunks) {
    const t = x.feed(c);
    assert.equal(typeof t, 'string');
    answer += t;
    thought += x.takeThought();
  }
  answer += x.finish();
  thought += x.takeThought();
  // The contract's types: undefined until decided, never null.
  assert.ok(x.isFinishAction === undefined || typeof x.isFinishAction === 'boolean');
  assert.ok(x.nextNode === undefined || typeof x.nextNode === 'string');
  return {
    answer,
    isFinishAction: x.isFinishAction === undefined ? null : x.isFinishAction,
    nextNode: x.nextNode === undefined ? null : x.nextNode,
    thought,
    emittedCount: x.emittedCount,
  };
}

const expected = (c) => ({
  answer: c.answer,
  isFinishAction: c.isFinishAction,
  nextNode: c.nextNode,
  thought: c.thought,
  emittedCount: scalarCount(c.answer),
});

/** Feeds a chunker; checks the chunk shape rules; returns the texts it carried. */
function chunked(chunks, actionSeq) {
  const k = new sr.LlmStreamChunker(actionSeq === undefined ? undefined : { actionSeq });
  const seq = actionSeq === undefined ? null : actionSeq;
  const all = [];
  for (const c of chunks) all.push(...k.feed(c).map((e) => ({ ...e, fromFinish: false })));
  all.push(...k.finish().map((e) => ({ ...e, fromFinish: true })));
  let answer = '';
  let thought = '';
  let done = 0;
  for (const [i, e] of all.entries()) {
    const { fromFinish, ...chunk } = e;
    assert.deepEqual(Object.keys(chunk).sort(), ['action_seq', 'channel', 'done', 'phase', 'text']);
    if (seq === null) {
      // Documented as `null` when omitted; the binding currently gives `undefined` (the key
      // is present either way).
      assert.ok(chunk.action_seq == null, 'action_seq is null/undefined when omitted');
    } else {
      assert.equal(chunk.action_seq, seq);
    }
    if (chunk.phase === 'answer') {
      assert.equal(chunk.channel, 'answer');
      if (chunk.done) {
        done += 1;
        assert.equal(chunk.text, '');
        assert.ok(fromFinish && i === all.length - 1, 'the done chunk closes the stream');
      } else {
        assert.notEqual(chunk.text, '', 'no empty answer chunks');
        answer += chunk.text;
      }
    } else {
      assert.deepEqual([chunk.phase, chunk.channel, chunk.done], ['observation', 'thinking', false]);
      assert.notEqual(chunk.text, '', 'no empty thought chunks');
      thought += chunk.text;
    }
  }
  assert.ok(done <= 1);
  assert.equal(k.isFinishAction === true, done === 1, 'a done chunk exactly for a finish action');
  return { answer, thought, done: done === 1, chunks: all };
}

// ------------------------------------------------------------------------------------------
// The corpus
// ------------------------------------------------------------------------------------------

test('the corpus has at least 160 cases', () => {
  assert.ok(corpus.length >= 160, `${corpus.length} cases`);
});

for (const c of corpus) {
  test(`corpus: ${c.name}`, () => {
    const want = expected(c);
    for (const [label, chunks] of splitings(c.input)) {
      assert.deepEqual(extract(chunks), want, `${label} (STREAMROUTE_SEED=${SEED})`);
      const k = chunked(chunks, 7);
      assert.equal(k.answer, c.answer, `chunker answer, ${label}`);
      assert.equal(k.thought, c.thought, `chunker thought, ${label}`);
      assert.equal(k.done, c.isFinishAction === true, `chunker done, ${label}`);
    }
  });
}

// ------------------------------------------------------------------------------------------
// 1 MB answers (generated here, not stored)
// ------------------------------------------------------------------------------------------

function bigText(len, seed) {
  const pieces = ['lorem ', 'caf\u00e9 ', '\u4e16\u754c ', '\u{1F600}', '\n', '"q" ', 'b\\s ', '{"answer": "decoy"} ', '\u{10FFFF}', 'x'];
  const next = rng(seed);
  const out = [];
  let n = 0;
  while (n < len) {
    const p = pieces[next(pieces.length)];
    out.push(p);
    n += p.length;
  }
  return out.join('');
}

const MB = 1 << 20;

const BIG = bigText(MB, 42);
const BIG_CASES = [
  ['final answer', JSON.stringify({ next_node: 'final_response', args: { answer: BIG } }), BIG, true, 'final_response', ''],
  [
    'legacy answer held before next_node',
    JSON.stringify({ thought: 't', args: { raw_answer: BIG }, next_node: null }),
    BIG,
    true,
    null,
    't',
  ],
  ['tool call', JSON.stringify({ args: { answer: BIG }, next_node: 'save_note' }), '', false, 'save_note', ''],
];
for (const [name, input, answer, fin, nn, thought] of BIG_CASES) {
  test(`1 MB (code-generated): ${name}, every chunking`, () => {
    const want = { answer, isFinishAction: fin, nextNode: nn, thought, emittedCount: scalarCount(answer) };
    for (const [label, chunks] of splitings(input)) {
      const got = extract(chunks);
      // deepEqual on 1 MB strings prints megabytes on failure: compare, then report small.
      assert.ok(got.answer === want.answer, `${label}: answer differs (length ${got.answer.length})`);
      assert.deepEqual({ ...got, answer: '' }, { ...want, answer: '' }, label);
    }
  });
}

// ------------------------------------------------------------------------------------------
// llm_stream_chunk rules
// ------------------------------------------------------------------------------------------

test('LlmStreamChunker: a finish action streams answer chunks, then one closing done chunk', () => {
  const input = '{"next_node":"final_response","args":{"answer":"Hello world"}}';
  const k = new sr.LlmStreamChunker({ actionSeq: 3 });
  assert.equal(k.isFinishAction, undefined);
  assert.deepEqual(k.feed(input.slice(0, 53)), [{ text: 'Hello', done: false, phase: 'answer', channel: 'answer', action_seq: 3 }]);
  assert.equal(k.isFinishAction, true);
  assert.deepEqual(k.feed(input.slice(53)), [{ text: ' world', done: false, phase: 'answer', channel: 'answer', action_seq: 3 }]);
  assert.deepEqual(k.finish(), [{ text: '', done: true, phase: 'answer', channel: 'answer', action_seq: 3 }]);
});

test('LlmStreamChunker: the legacy thought goes out as observation/thinking, before the answer', () => {
  const k = new sr.LlmStreamChunker({ actionSeq: 0 });
  assert.deepEqual(k.feed('{"thought":"Let me'), [
    { text: 'Let me', done: false, phase: 'observation', channel: 'thinking', action_seq: 0 },
  ]);
  assert.deepEqual(k.feed(' see","next_node":null,"args":{"raw_answer":"Done'), [
    { text: ' see', done: false, phase: 'observation', channel: 'thinking', action_seq: 0 },
    { text: 'Done', done: false, phase: 'answer', channel: 'answer', action_seq: 0 },
  ]);
  assert.deepEqual(k.feed('."}}'), [{ text: '.', done: false, phase: 'answer', channel: 'answer', action_seq: 0 }]);
  assert.deepEqual(k.finish(), [{ text: '', done: true, phase: 'answer', channel: 'answer', action_seq: 0 }]);
});

test('LlmStreamChunker: a tool call gives no answer and no done chunk, its thought still streams', () => {
  const input = '{"thought":"searching","args":{"answer":"secret"},"next_node":"search"}';
  for (const [label, chunks] of splitings(input)) {
    const r = chunked(chunks, 9);
    assert.deepEqual([r.answer, r.thought, r.done], ['', 'searching', false], label);
    assert.ok(
      r.chunks.every((c) => c.phase === 'observation'),
      label,
    );
  }
});

test('LlmStreamChunker: no done chunk while undecided (truncated), action_seq null when omitted', () => {
  const k = new sr.LlmStreamChunker();
  assert.deepEqual(k.feed('{"args":{"answer":"held'), []);
  assert.deepEqual(k.finish(), []);
  assert.equal(k.isFinishAction, undefined);
  const r = chunked(['{"next_node":"final_response","args":"x"}']);
  assert.ok(r.chunks[0].action_seq == null);
  assert.deepEqual(
    r.chunks.map((c) => [c.text, c.done]),
    [
      ['x', false],
      ['', true],
    ],
  );
});

test('LlmStreamChunker: a finish action with an empty answer still closes with done', () => {
  const r = chunked(['{"next_node":"final_response","args":{"answer":""}}'], 1);
  assert.deepEqual(
    r.chunks.map((c) => [c.text, c.done]),
    [['', true]],
  );
});

// ------------------------------------------------------------------------------------------
// Reference bugs, JS side
// ------------------------------------------------------------------------------------------

test('B14: surrogate pairs from escapes and from split UTF-16 strings come out whole', () => {
  const escaped = '{"next_node":"final_response","args":{"answer":"\\uD83D\\uDE00 \\ud83c\\udf0d"}}';
  const raw = '{"next_node":"final_response","args":{"answer":"\u{1F600} \u{1F30D}"}}';
  for (const input of [escaped, raw]) {
    for (const [label, chunks] of splitings(input)) {
      const got = extract(chunks);
      assert.equal(got.answer, '\u{1F600} \u{1F30D}', label);
      assert.equal(got.emittedCount, 3, label);
      assert.ok(got.answer.isWellFormed(), label);
    }
  }
  // A lone high surrogate at the end of the input becomes U+FFFD, never a lone surrogate.
  const x = new sr.AnswerExtractor({});
  assert.equal(x.feed('{"next_node":null,"args":"a\uD83D'), 'a');
  assert.equal(x.finish(), '\uFFFD');
});

test('B15: reset() between attempts gives only the retry, and forgets a held surrogate', () => {
  const x = new sr.AnswerExtractor({});
  assert.equal(x.feed('{"next_node":"final_response","args":{"answer":"Hel'), 'Hel');
  x.reset();
  assert.equal(x.isFinishAction, undefined);
  assert.equal(x.emittedCount, 0);
  assert.equal(x.feed('{"next_node":"final_response","args":{"answer":"Hello world"}}'), 'Hello world');
  assert.equal(x.finish(), '');

  const y = new sr.AnswerExtractor({});
  assert.equal(y.feed('{"next_node":null,"args":"x\uD83D'), 'x');
  y.reset();
  // Without the reset the high half would pair with this low half into U+1F600.
  assert.equal(y.feed('{"next_node":null,"args":"\uDE00ok"}'), '\uFFFDok');

  // A retry after a response cut inside a string, in a fresh chunker per attempt: each
  // attempt's text carries its own action_seq, so the UI never glues "Hel" to the retry.
  // (The cut attempt was decided as a finish action, so it is closed with done as well.)
  const first = chunked(['{"next_node":"final_response","args":{"answer":"Hel'], 4);
  const retry = chunked(['{"next_node":"final_response","args":{"answer":"Hello world"}}'], 5);
  assert.deepEqual([first.answer, first.done, retry.answer, retry.done], ['Hel', true, 'Hello world', true]);
  assert.ok(first.chunks.every((c) => c.action_seq === 4));
  assert.ok(retry.chunks.every((c) => c.action_seq === 5));
});

test('B16: prose mentions and nested keys never reach the caller', () => {
  const cases = [
    ['I will not set "next_node": null\n{"next_node":"search","args":{}}', '', false],
    ['Thinking "args": {"answer": "leak"} {"next_node":"search","args":{"query":"q"}}', '', false],
    ['{"args":{"answer":"secret"},"next_node":"save_note"}', '', false],
    ['{"next_node":"final_response","args":{"sources":[{"answer":"nested"}],"answer":"real"}}', 'real', true],
    ['{"next_node":"final_response","args":{"thought":"nested","answer":"a"}}', 'a', true],
  ];
  for (const [input, answer, done] of cases) {
    for (const [label, chunks] of splitings(input)) {
      const r = chunked(chunks, 2);
      assert.deepEqual([r.answer, r.thought, r.done], [answer, '', done], `${input} / ${label}`);
    }
  }
});

// ------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------

test('errors carry a code: caps, lifecycle, options, input', () => {
  const x = new sr.AnswerExtractor({ maxBufferBytes: 16 });
  assert.throws(
    () => x.feed('{"args":{"answer":"seventeen bytes!!"'),
    (e) => {
      assert.ok(e instanceof sr.StreamrouteError);
      assert.equal(e.code, 'buffer_limit_exceeded');
      return true;
    },
  );
  // Sticky until reset().
  assert.throws(() => x.feed('","next_node":"final_response"}'), { code: 'buffer_limit_exceeded' });
  assert.throws(() => x.finish(), { code: 'buffer_limit_exceeded' });
  x.reset();
  assert.equal(x.feed('{"next_node":null,"args":"fine"}'), 'fine');
  assert.equal(x.finish(), '');
  assert.throws(() => x.feed('x'), { code: 'invalid_state' });
  assert.throws(() => x.finish(), { code: 'invalid_state' });

  // Once decided, a long answer streams: no cap.
  const long = 'y'.repeat(1000);
  assert.equal(new sr.AnswerExtractor({ maxBufferBytes: 16 }).feed(`{"next_node":"final_response","args":{"answer":"${long}"}}`), long);

  for (const bad of [0, -1, 1.5, Number.NaN, 'big']) {
    assert.throws(() => new sr.AnswerExtractor({ maxBufferBytes: bad }), { code: 'invalid_option' }, String(bad));
    assert.throws(() => new sr.LlmStreamChunker({ maxBufferBytes: bad }), { code: 'invalid_option' }, String(bad));
  }
  assert.throws(() => new sr.AnswerExtractor({}).feed({}), { code: 'invalid_input' });
  assert.throws(() => new sr.AnswerExtractor({}).feed(42), { code: 'invalid_input' });
  const k = new sr.LlmStreamChunker({ maxBufferBytes: 4 });
  assert.throws(() => k.feed('{"args":"too long"'), { code: 'buffer_limit_exceeded' });
  const f = new sr.LlmStreamChunker({});
  f.finish();
  assert.throws(() => f.feed('x'), { code: 'invalid_state' });
});

test('a freed extractor throws on feed and writes nothing into memory another one uses', () => {
  const keep = new sr.AnswerExtractor();
  const gone = new sr.AnswerExtractor();
  const doc = '{"next_node":"final_response","args":{"answer":"Hello, wörld: 你好 😀"}}';
  let out = keep.feed(doc.slice(0, 30));
  gone.feed(doc.slice(0, 30));
  gone.free();
  assert.throws(() => gone.feed('x'.repeat(4096)));
  assert.throws(() => gone.feed(new Uint8Array(4096).fill(0x41)));
  out += keep.feed(doc.slice(30)) + keep.finish();
  assert.equal(out, 'Hello, wörld: 你好 😀');
  assert.equal(keep.isFinishAction, true);
});

// The answer's bytes are not validated as they stream (the text is decoded once, on its way
// to JS): malformed UTF-8 anywhere in it (lone continuation bytes, truncated sequences,
// overlongs, surrogates, bytes never in UTF-8, sequences cut by an escape or the string's end)
// must still come out as TextDecoder decodes the same bytes, with emittedCount to match, at
// every byte chunking.
test('malformed UTF-8 in the answer decodes as TextDecoder does, at every chunking', () => {
  const pieces = [
    [0x61],
    [0x20],
    [0x80],
    [0xbf],
    [0xc2],
    [0xc0, 0xaf],
    [0xe0, 0x80],
    [0xe2, 0x82],
    [0xe2, 0x82, 0xac],
    [0xed, 0xa0, 0x80],
    [0xf0, 0x9f],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0xff],
    [0xc3, 0xa9],
    [0xe4, 0xb8, 0x96],
    [0x5c, 0x6e],
  ];
  const next = rng(SEED ^ 0xbad);
  const enc = new TextEncoder();
  for (let round = 0; round < 150; round++) {
    const content = [];
    for (let n = 1 + next(30); n > 0; n--) content.push(...pieces[next(pieces.length)]);
    // Long answers too, so that chunks of 4 KiB cut the text in many places.
    const reps = round % 10 === 9 ? 200 : 1;
    const body = Array.from({ length: reps }, () => content).flat();
    const decoded = new TextDecoder().decode(Uint8Array.from(body)).replaceAll('\\n', '\n');
    // A blank answer (ASCII whitespace only) is no answer: nothing streams.
    const want = /^[\t\n\r ]*$/.test(decoded) ? '' : decoded;
    const bytes = Uint8Array.from([...enc.encode('{"next_node":"final_response","args":{"answer":"'), ...body, ...enc.encode('"}}')]);
    for (const [label, chunks] of byteSplitings(bytes, SEED + round, [3, 64, 4096])) {
      const x = new sr.AnswerExtractor();
      let answer = '';
      for (const c of chunks) answer += x.feed(c);
      answer += x.finish();
      const where = `round ${round}, ${label} (seed ${SEED}): ${JSON.stringify(content)}`;
      assert.equal(answer, want, where);
      assert.equal(x.emittedCount, scalarCount(want), where);
    }
  }
});
