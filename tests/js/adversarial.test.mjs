// A randomized adversarial run against the packed package: several machines of every
// streaming class live at once and get hostile chunks (Proxies and array-likes whose traps
// feed, free or grow other machines, getters, numbers, odd views, split surrogates, bytes
// that are not UTF-8), hostile options objects (misspelled keys, throwing getters, Proxies),
// frees, finishes and resets in random order. Checked after every step: whatever was thrown
// is a StreamrouteError, nothing trapped (a fresh machine of every class still gives what it
// gave at the start), and the wasm memory stays within the machines' documented caps. The
// seed is printed on failure; STREAMROUTE_SEED pins it, STREAMROUTE_STEPS sets the length.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as sr from 'streamroute';
import { SEED, rng } from './helpers/chunking.mjs';

const { StreamrouteError } = sr;
const STEPS = Number(process.env.STREAMROUTE_STEPS ?? 800);
const NONCE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const CAP = 1 << 16;
// Each class with its constructor arguments before the options, and the options that cap
// what it may hold (the documented budgets the memory check relies on).
const CLASSES = {
  SseDecoder: [[], { maxLineBytes: CAP, maxEventBytes: CAP }],
  StreamRouter: [[], { maxEventBytes: CAP }],
  AnswerExtractor: [[], { maxBufferBytes: CAP }],
  PartialJson: [[], { maxBufferBytes: CAP }],
  LlmStreamChunker: [[], { maxBufferBytes: CAP }],
  JsonItemStream: [['$.items'], { maxItemBytes: CAP }],
  TagFilter: [[NONCE], { maxBufferBytes: CAP }],
};
const NAMES = Object.keys(CLASSES);
const SAMPLE = `data: {"items":[1,"x\u00e9\u{1F600}"],"answer":"hi"}\n\n[ARTIFACT:${NONCE}]a[/ARTIFACT:${NONCE}]`;

const outcome = (f) => {
  try {
    return JSON.stringify(f());
  } catch (e) {
    return e instanceof StreamrouteError ? `error ${e.code}` : `raw ${e?.constructor?.name}: ${e?.message}`;
  }
};
const make = (name, options) => new sr[name](...CLASSES[name][0], options ?? CLASSES[name][1]);
// What a fresh machine of `name` makes of SAMPLE: the same at every checkpoint, or the
// instance is broken.
const probe = (name) =>
  outcome(() => {
    const m = make(name);
    try {
      return [m.feed(SAMPLE), m.finish()];
    } finally {
      m.free();
    }
  });

test(`randomized adversarial run: ${STEPS} steps over machines of every class (seed ${SEED})`, () => {
  const next = rng(SEED);
  const pick = (list) => list[next(list.length)];
  const expected = Object.fromEntries(NAMES.map((n) => [n, probe(n)]));
  const memory = sr.__sr_memory();
  const live = NAMES.map((n) => ({ name: n, m: make(n) }));
  const misfires = [];
  let trapsRan = 0;
  const freedByTrap = new WeakSet();
  let memoryAtHalf = 0;

  // The text of a random chunk: SSE and JSON fragments, markers, characters of every width,
  // lone surrogate halves, occasionally long.
  const PARTS = [
    'data: ',
    '\n',
    '\r\n',
    '{"items":[',
    '1,',
    '"a\\u00e9',
    '"',
    ']}',
    `[ARTIFACT:${NONCE}]`,
    `[/USER:${NONCE}]`,
    'caf\u00e9',
    '\u4e16\u754c',
    '\u{1F600}',
    '\ud83d',
    '\ude00',
    'event: x\n',
    'id: 7\n',
    'retry: 99999999999\n',
    ': c\n',
    '\0',
  ];
  const text = () => {
    let s = '';
    const n = next(8) === 0 ? 2000 + next(20000) : next(40);
    for (let i = 0; i < n; i++) s += pick(PARTS);
    return s;
  };
  const bytes = (s) => {
    const b = new TextEncoder().encode(s);
    if (next(4) === 0 && b.length) b[next(b.length)] = 0x80 | next(0x80); // not UTF-8 any more
    return b;
  };
  // A trap that, when run, feeds, grows or frees machines. Those of chunks must never run;
  // those of options objects do (options are read), while no machine is in a call.
  const hostileTrap = (counts = true) => ({
    get(t, k) {
      if (counts) trapsRan++;
      const victim = pick(live);
      try {
        if (next(3) === 0) {
          victim.m.free();
          freedByTrap.add(victim.m);
        } else {
          victim.m.feed('x'.repeat(1 << (8 + next(12))));
        }
      } catch {
        // whatever it is, it ran
      }
      return Reflect.get(t, k);
    },
  });
  const chunk = () => {
    const s = text();
    switch (next(12)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return s;
      case 4:
      case 5:
        return bytes(s);
      case 6: {
        const b = bytes(`..${s}..`);
        return b.subarray(2, b.length - 2);
      }
      case 7: {
        const b = bytes(s);
        return next(2) ? new DataView(b.buffer) : b.buffer;
      }
      case 8:
        return new Proxy(bytes(s), hostileTrap());
      case 9: {
        const like = Object.setPrototypeOf({}, Uint8Array.prototype);
        Object.defineProperty(like, 'length', { get: () => (hostileTrap().get({ length: 3 }, 'length'), 3) });
        return like;
      }
      case 10:
        return pick([42, null, undefined, {}, [1, 2], new String(s), Symbol('s'), 1n]);
      default:
        return new Proxy(bytes(s).buffer, hostileTrap());
    }
  };
  const isHostile = (c) => c !== null && typeof c === 'object' && !ArrayBuffer.isView(c) && !(c instanceof ArrayBuffer);
  // An options object: the capped one, or one with a misspelled key, a throwing getter, a
  // Proxy, or a hostile value.
  const options = (name) => {
    const base = CLASSES[name][1];
    const key = Object.keys(base)[0];
    switch (next(5)) {
      case 0:
        return { options: { ...base, [`${key}s`]: 1 }, unknownKey: `${key}s` };
      case 1:
        return {
          options: {
            ...base,
            get [key]() {
              throw new Error('getter');
            },
          },
          throws: true,
        };
      case 2:
        return { options: new Proxy({ ...base }, hostileTrap(false)) };
      case 3:
        return { options: { ...base, [key]: pick([-1, 0, 1.5, NaN, 'x', {}, 1n, 2 ** 60]) } };
      default:
        return { options: base };
    }
  };

  const step = (i) => {
    const slot = next(live.length);
    const entry = live[slot];
    const where = `step ${i} (seed ${SEED}): ${entry.name}`;
    const action = next(10);
    try {
      if (action < 6) {
        const c = chunk();
        if (isHostile(c)) {
          // A machine an options trap freed says so before it looks at the chunk.
          const code = freedByTrap.has(entry.m) ? 'invalid_state' : 'invalid_input';
          assert.throws(
            () => entry.m.feed(c),
            (e) => e instanceof StreamrouteError && e.code === code,
            `${where}: hostile chunk`,
          );
        } else {
          entry.m.feed(c);
        }
      } else if (action === 6) {
        entry.m.finish();
      } else if (action === 7) {
        entry.m.reset?.();
      } else {
        // Replace the machine: free it (a trap may have done so) and make a new one.
        if (!freedByTrap.has(entry.m)) entry.m.free();
        const name = pick(NAMES);
        const o = options(name);
        if (o.unknownKey || o.throws) {
          assert.throws(
            () => make(name, o.options),
            (e) =>
              e instanceof StreamrouteError &&
              e.code === 'invalid_input' &&
              (!o.unknownKey || e.message.includes(`unknown option "${o.unknownKey}"`)),
            `${where}: options`,
          );
          live[slot] = { name, m: make(name) };
        } else {
          try {
            live[slot] = { name, m: make(name, o.options) };
          } catch (e) {
            if (!(e instanceof StreamrouteError)) throw e;
            live[slot] = { name, m: make(name) };
          }
        }
      }
    } catch (e) {
      if (e?.code === 'ERR_ASSERTION') throw e;
      if (!(e instanceof StreamrouteError)) misfires.push(`${where}: ${e?.constructor?.name}: ${e?.message}`);
      // A machine that failed, finished or was freed by a trap is replaced now and then.
      if (e instanceof StreamrouteError && next(2)) {
        try {
          entry.m.free();
        } catch {
          /* already freed */
        }
        live[slot] = { name: entry.name, m: make(entry.name) };
      }
    }
  };

  for (let i = 0; i < STEPS; i++) {
    step(i);
    assert.match(sr.makeNonce(), /^[0-9a-f]{32}$/, `the instance works after step ${i} (seed ${SEED})`);
    if (i % 50 === 49) {
      for (const n of NAMES) assert.equal(probe(n), expected[n], `a fresh ${n} after step ${i} (seed ${SEED})`);
    }
    if (i === STEPS >> 1) memoryAtHalf = memory.buffer.byteLength;
  }
  for (const { m } of live) {
    try {
      m.free();
    } catch {
      /* freed by a trap */
    }
  }
  assert.deepEqual(misfires, [], `only StreamrouteErrors (seed ${SEED})`);
  assert.equal(trapsRan, 0, `no trap of a hostile chunk ran (seed ${SEED})`);
  // Every machine is capped at CAP (64 KiB) and chunks are at most ~1 MiB of UTF-8: the
  // second half of the run reuses the memory of the first instead of growing it.
  const end = memory.buffer.byteLength;
  assert.ok(end - memoryAtHalf <= 8 << 20, `memory grew ${(end - memoryAtHalf) >> 20} MiB in the second half (seed ${SEED})`);
  assert.ok(end <= 96 << 20, `memory ${end >> 20} MiB (seed ${SEED})`);
});
