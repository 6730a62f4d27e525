// Memory budgets and caps from JS (the packed package): a hostile stream ends in a typed
// `buffer_limit_exceeded` on its own router, never a trap; wasm memory running out is a
// typed `memory_limit_exceeded` on the machine that asked, and every other machine goes on;
// one-shot functions refuse inputs past their cap with `input_too_large`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  JsonItemStream,
  PartialJson,
  SseDecoder,
  StreamRouter,
  StreamrouteError,
  TagFilter,
  __sr_memory,
  normalizeAction,
  parseJson,
  repairJson,
} from 'streamroute';
// The payload entry has a wasm instance (and memory) of its own.
import { ArtifactStream, redactArtifacts, validateFinalPayload, __sr_memory as payloadMemory } from 'streamroute/payload';
import { checkCoverage } from 'streamroute/planning';
import { splitings } from './helpers/chunking.mjs';

const MiB = 1 << 20;
const ev = (type, fields = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const messageStart = ev('message_start', {
  message: { id: 'm', type: 'message', role: 'assistant', content: [], model: 'x', usage: { input_tokens: 1, output_tokens: 1 } },
});
const toolStart = (k) =>
  ev('content_block_start', { index: k, content_block: { type: 'tool_use', id: `toolu_${k}`, name: 'f', input: {} } });
const argsDelta = (k, text) => ev('content_block_delta', { index: k, delta: { type: 'input_json_delta', partial_json: text } });
const small =
  messageStart +
  ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
  ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'fine' } }) +
  ev('content_block_stop', { index: 0 }) +
  ev('message_delta', { delta: { stop_reason: 'end_turn' } }) +
  ev('message_stop');

/** Feeds `chunks`; returns every event returned (also those on the error) and the error. */
function feedUntilError(router, chunks) {
  const events = [];
  for (const c of chunks) {
    try {
      events.push(...router.feed(c));
    } catch (e) {
      events.push(...(e.events ?? []));
      return { events, error: e };
    }
  }
  return { events, error: null };
}

const argsBytes = (events) => events.filter((e) => e.type === 'tool_call_delta').reduce((n, e) => n + e.arguments.length, 0);

function worksAfterwards() {
  const events = [...new StreamRouter({ provider: 'anthropic' }).feed(small)];
  assert.equal(
    events
      .filter((e) => e.type === 'answer_delta')
      .map((e) => e.text)
      .join(''),
    'fine',
  );
}

test('two hostile routers each end in buffer_limit_exceeded (16 MiB default); a third works', () => {
  // The reproducer: 256 open tool_use blocks, then rounds of 1 MiB of arguments per block.
  const mib = 'x'.repeat(MiB);
  function* hostile() {
    yield messageStart;
    for (let k = 0; k < 256; k++) yield toolStart(k);
    for (let round = 0; round < 8; round++) for (let k = 0; k < 256; k++) yield argsDelta(k, mib);
  }
  const routers = [new StreamRouter({ provider: 'anthropic' }), new StreamRouter({ provider: 'anthropic' })];
  for (const r of routers) {
    const { events, error } = feedUntilError(r, hostile());
    assert.ok(error instanceof StreamrouteError, String(error));
    assert.equal(error.code, 'buffer_limit_exceeded');
    assert.equal(events.filter((e) => e.type === 'tool_call_start').length, 256);
    // The calls' ids and names (2,304 bytes) and 15 MiB fit in 16 MiB; the 16th MiB does not.
    assert.equal(argsBytes(events), 15 * MiB);
    assert.throws(() => r.feed('\n'), { code: 'buffer_limit_exceeded' }, 'a failed router stays failed');
  }
  worksAfterwards();
  for (const r of routers) r.free();
});

test('maxBufferBytes counts open calls together, gives closed calls back, and is chunk-invariant', () => {
  // Three open calls of 8 + 600 bytes each, and 64 bytes per open call and 16 per call started:
  // 2,064 bytes together; one at a time 608 + 64, plus 16 for each call started.
  const args = '{"a":"' + 'y'.repeat(592) + '"}';
  const deltas = (k) =>
    args
      .match(/.{1,50}/g)
      .map((p) => argsDelta(k, p))
      .join('');
  const open = messageStart + [0, 1, 2].map(toolStart).join('') + [0, 1, 2].map(deltas).join('');
  const serial = messageStart + [0, 1, 2].map((k) => toolStart(k) + deltas(k) + ev('content_block_stop', { index: k })).join('');
  const outcome = (stream, maxBufferBytes) => {
    let want;
    for (const [label, chunks] of splitings(stream)) {
      const { events, error } = feedUntilError(new StreamRouter({ provider: 'anthropic', maxBufferBytes }), chunks);
      const got = { code: error?.code ?? null, args: argsBytes(events) };
      if (want === undefined) want = got;
      else assert.deepEqual(got, want, label);
    }
    return want;
  };
  // The open message's id is kept too.
  const id = JSON.parse(messageStart.split('data: ')[1]).message.id.length;
  assert.deepEqual(outcome(open, 3 * 688 + id), { code: null, args: 3 * 600 });
  assert.deepEqual(outcome(open, 3 * 688 + id - 1), { code: 'buffer_limit_exceeded', args: 3 * 600 - 50 });
  assert.deepEqual(outcome(serial, 608 + 64 + 3 * 16 + id), { code: null, args: 3 * 600 });
  assert.throws(() => new StreamRouter({ maxBufferBytes: 0 }), { code: 'invalid_option' });
  assert.throws(() => new StreamRouter({ maxBufferBytes: 1.5 }), { code: 'invalid_option' });
});

test('one-shot functions refuse input past 64 MiB with input_too_large', () => {
  const big = ' '.repeat(64 * MiB + 1);
  for (const f of [() => parseJson(big), () => parseJson(big, { repair: true }), () => repairJson(big), () => normalizeAction(big)]) {
    assert.throws(f, (e) => e instanceof StreamrouteError && e.code === 'input_too_large');
  }
  assert.throws(() => validateFinalPayload({ answer: big }), { code: 'input_too_large' });
  // At the cap the text is read: blank text has no JSON in it.
  assert.throws(() => repairJson(big.slice(1)), { code: 'json_unrepairable' });
  // The cap counts UTF-8 bytes: 22,369,622 three-byte characters are more than 64 MiB.
  assert.throws(() => repairJson('€'.repeat(Math.floor((64 * MiB) / 3) + 1)), { code: 'input_too_large' });
});

/**
 * wasm32 memory grows to 4 GiB at most. Grows it from here to within 96 MiB of that (once: the
 * memory stays grown): the pages are reserved but never touched (no real memory is used), and
 * the allocator's own growth then fails for real once those 96 MiB are used up.
 */
function growMemoryToNearly4GiB(memory = __sr_memory(), room = 96 * MiB) {
  const page = 64 * 1024;
  let pages = 65536 - memory.buffer.byteLength / page - room / page;
  while (pages > 0) {
    try {
      memory.grow(pages);
      break;
    } catch {
      pages = Math.floor(pages / 2); // this engine caps memory lower: take what it gives
    }
  }
  assert.ok(memory.buffer.byteLength > 1024 * MiB, `memory ${memory.buffer.byteLength}`);
}

/**
 * Makes machines with `make`, each fed `start` and then `grow` until it throws, until one
 * throws before taking any `grow`: memory is then used up. Returns the machines (to free) and
 * the error codes seen; each failed machine is checked to stay failed.
 */
function exhaust(make, start, grow) {
  const hogs = [];
  const codes = new Set();
  for (let n = 0; n < 256; n++) {
    let m;
    let fed = 0;
    try {
      m = make();
      hogs.push(m);
      start(m);
      for (;;) {
        grow(m);
        fed++;
      }
    } catch (e) {
      assert.ok(e instanceof StreamrouteError, String(e));
      codes.add(e.code);
      if (m && fed > 0) assert.throws(() => grow(m), { code: e.code }, 'it stays failed');
    }
    if (fed === 0) break; // memory is used up: this one failed at once
  }
  return { hogs, codes: [...codes] };
}

const freeAll = (ms) => ms.forEach((m) => m.free());

// Last: they leave wasm memory grown to almost 4 GiB for the rest of the process.
test('a JS value nested past what JSON.stringify can encode is json_too_deep, not invalid_input', () => {
  let deep = {};
  for (let i = 0; i < 200_000; i++) deep = { a: deep };
  for (const [name, call] of [
    ['validateFinalPayload', () => validateFinalPayload({ raw_answer: 'x', extra: deep })],
    ['redactArtifacts', () => redactArtifacts(deep, { type: 'object' })],
    ['normalizeAction', () => normalizeAction(deep)],
    ['checkCoverage', () => checkCoverage(deep, { steps: [] })],
  ]) {
    assert.throws(call, (e) => e instanceof StreamrouteError && e.code === 'json_too_deep', name);
  }
  // A cycle is still not encodable at all.
  const cycle = {};
  cycle.self = cycle;
  assert.throws(() => validateFinalPayload(cycle), { code: 'invalid_input' });
  assert.throws(() => normalizeAction(cycle), { code: 'action_payload_unparseable' });
  // Text past the engine's longest string (what V8 throws then, made here by a toJSON).
  const huge = {
    toJSON() {
      throw new RangeError('Invalid string length');
    },
  };
  assert.throws(() => validateFinalPayload(huge), { code: 'input_too_large' });
  assert.throws(() => checkCoverage(huge, { steps: [] }), { code: 'input_too_large' });
  // Whatever the caller's code throws, reading it throws nothing more.
  const hostile = {
    toJSON() {
      throw {
        get name() {
          throw new Error('no');
        },
      };
    },
  };
  assert.throws(() => validateFinalPayload(hostile), { code: 'invalid_input' });
  assert.throws(() => normalizeAction(hostile), { code: 'action_payload_unparseable' });
});

test('out of wasm memory: memory_limit_exceeded on the machine that asked, the others go on', (t) => {
  const memory = __sr_memory();
  const bystander = new StreamRouter({ provider: 'anthropic' });
  bystander.feed(messageStart + toolStart(0) + argsDelta(0, '{"q":'));
  growMemoryToNearly4GiB();

  // Routers with no budget of their own to speak of take 256 KiB deltas until memory ends.
  const delta = new TextEncoder().encode(argsDelta(0, 'z'.repeat(256 * 1024)));
  const hogs = [];
  const codes = new Set();
  for (let n = 0; n < 64; n++) {
    const r = new StreamRouter({ provider: 'anthropic', maxBufferBytes: 2 ** 32 - 1 });
    hogs.push(r);
    let fed = 0;
    try {
      r.feed(messageStart + toolStart(0));
      for (;;) {
        r.feed(delta);
        fed++;
      }
    } catch (e) {
      assert.ok(e instanceof StreamrouteError, String(e));
      codes.add(e.code);
      assert.throws(() => r.feed(delta), { code: e.code }, 'it stays failed');
    }
    if (fed === 0) break; // memory is used up: this one failed at once
  }
  t.diagnostic(`${hogs.length} routers until memory ran out; wasm memory ${memory.buffer.byteLength / MiB} MiB`);
  assert.deepEqual([...codes], ['memory_limit_exceeded']);
  assert.ok(hogs.length >= 2 && hogs.length < 64, `${hogs.length} routers`);

  // The router that held its memory all along still works; freed memory is usable again.
  for (const r of hogs) r.free();
  const rest = bystander.feed(argsDelta(0, '"cats"}') + ev('content_block_stop', { index: 0 }));
  assert.deepEqual(rest.find((e) => e.type === 'tool_call')?.arguments, { q: 'cats' });
  worksAfterwards();
});

// Each streaming machine that keeps what it reads, run out of memory by itself.
const keepers = {
  PartialJson: {
    make: () => new PartialJson({ maxBufferBytes: 2 ** 32 - 1 }),
    start: (m) => m.feed('{"a": "'),
    begin: (m) => m.feed('{"a": [1, "b"], "c"'),
    end(m) {
      m.feed(': null}');
      assert.deepEqual(m.finish(), { a: [1, 'b'], c: null });
    },
  },
  JsonItemStream: {
    make: () => new JsonItemStream('$', { maxItemBytes: 2 ** 32 - 1 }),
    start: (m) => m.feed('["'),
    begin: (m) => assert.deepEqual(m.feed('[{"a": 1}, "x", '), [{ a: 1 }, 'x']),
    end: (m) => assert.deepEqual([...m.feed('2]'), ...m.finish()], [2]),
  },
  SseDecoder: {
    make: () => new SseDecoder({ maxEventBytes: 2 ** 32 - 1, maxLineBytes: 2 * MiB }),
    start: (m) => m.feed('event: big\n'),
    grow: (m) => m.feed(sseLine),
    begin: (m) =>
      assert.deepEqual(
        m.feed('data: a\n\ndata: b\n').map((e) => e.data),
        ['a'],
      ),
    end: (m) =>
      assert.deepEqual(
        m.feed('\n').map((e) => e.data),
        ['b'],
      ),
  },
};
const xs = 'x'.repeat(MiB);
const sseLine = `data: ${xs}\n`;

for (const [name, k] of Object.entries(keepers)) {
  test(`out of wasm memory: ${name} fails with memory_limit_exceeded, a bystander goes on, a fresh one works`, (t) => {
    const bystander = k.make();
    k.begin(bystander);
    growMemoryToNearly4GiB();
    const { hogs, codes } = exhaust(k.make, k.start, k.grow ?? ((m) => m.feed(xs)));
    t.diagnostic(`${hogs.length} ${name}s until memory ran out`);
    assert.deepEqual(codes, ['memory_limit_exceeded']);
    assert.ok(hogs.length >= 2, `${hogs.length} machines`);
    freeAll(hogs);
    k.end(bystander);
    bystander.free();
    const fresh = k.make();
    k.begin(fresh);
    k.end(fresh);
    fresh.free();
  });
}

test('out of wasm memory: TagFilter fails with memory_limit_exceeded, then works again', () => {
  const filter = new TagFilter('n0nce');
  growMemoryToNearly4GiB();
  // Memory used up by documents that keep their text; then 16 MiB more is asked for.
  const { hogs, codes } = exhaust(keepers.PartialJson.make, keepers.PartialJson.start, (m) => m.feed(xs));
  assert.deepEqual(codes, ['memory_limit_exceeded']);
  const big = 'y'.repeat(16 * MiB);
  assert.throws(() => filter.feed(`[ARTIFACT:n0nce]${big}`), { code: 'memory_limit_exceeded' });
  assert.throws(() => new TagFilter('n0nce').feed(new TextEncoder().encode(big)), { code: 'memory_limit_exceeded' });
  freeAll(hogs);

  const fresh = new TagFilter('n0nce');
  const deltas = fresh.feed('[ARTIFACT:n0nce]hello[/ARTIFACT:n0nce]');
  assert.equal(deltas.map((d) => d.text).join(''), 'hello');
  fresh.free();
  filter.free();
});

test('out of wasm memory: ArtifactStream (streamroute/payload) fails with memory_limit_exceeded, then works again', () => {
  const artifacts = new ArtifactStream();
  assert.equal(artifacts.emit('s', { part: 1 }).seq, 0);
  // The payload entry's own memory, grown to all but 8 MiB of what wasm32 can address; then
  // 16 MiB more is asked for.
  growMemoryToNearly4GiB(payloadMemory(), 8 * MiB);
  const big = 'y'.repeat(16 * MiB);
  assert.throws(() => artifacts.emit('s', { text: big }), { code: 'memory_limit_exceeded' });
  // The stream numbering was not disturbed by the failed emit.
  assert.equal(artifacts.emit('s', { part: 2 }, true).seq, 1);
  artifacts.free();
});
