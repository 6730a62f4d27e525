// The packed package as a user gets it (installed from the `npm pack` tarball by
// setup-consumer.sh): ESM import, CommonJS require, the CLI, TypeScript declarations, errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sr from 'streamroute';
import { SEED, feedAll, rng, splitings } from './helpers/chunking.mjs';
import { typecheck } from './helpers/typecheck.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const consumer = join(here, '.tmp', 'consumer');
const root = join(here, '..', '..');

function runIn(dir, file, source) {
  writeFileSync(join(dir, file), source);
  return execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
}

test('ESM import through the exports map loads the wasm at once', async () => {
  await sr.init();
  await sr.init();
  const out = runIn(
    consumer,
    'esm.mjs',
    `
    import { SseDecoder, init, version } from 'streamroute';
    await init();
    const d = new SseDecoder();
    console.log(JSON.stringify([version(), d.feed('data: ok\\n\\n')]));
  `,
  );
  assert.deepEqual(JSON.parse(out), ['0.1.0', [{ event: 'message', data: 'ok', id: '' }]]);
});

test('CommonJS require works and shares the error class', () => {
  const out = runIn(
    consumer,
    'cjs.cjs',
    `
    const { SseDecoder, StreamrouteError, makeNonce, init } = require('streamroute');
    const d = new SseDecoder({ maxLineBytes: 4 });
    let code, isClass, isError;
    try { d.feed('data: too long\\n'); } catch (e) { code = e.code; isClass = e instanceof StreamrouteError; isError = e instanceof Error; }
    init().then(() => console.log(JSON.stringify({ code, isClass, isError, nonce: makeNonce() })));
  `,
  );
  const r = JSON.parse(out);
  assert.equal(r.code, 'sse_event_too_large');
  assert.equal(r.isClass, true);
  assert.equal(r.isError, true);
  assert.match(r.nonce, /^[0-9a-f]{32}$/);
});

test('makeNonce gives 32 lowercase hex chars, fresh each time', () => {
  const seen = new Set();
  for (let i = 0; i < 100; i++) {
    const n = sr.makeNonce();
    assert.match(n, /^[0-9a-f]{32}$/);
    seen.add(n);
  }
  assert.equal(seen.size, 100);
});

test('errors are StreamrouteError with code, message, offset and the events before', () => {
  const d = new sr.SseDecoder({ maxLineBytes: 8 });
  const err = assert.throws(
    () => d.feed('data: a\n\ndata: 123456789\n\n'),
    (e) => {
      assert.ok(e instanceof sr.StreamrouteError);
      assert.ok(e instanceof Error);
      assert.equal(e.name, 'StreamrouteError');
      assert.equal(e.code, 'sse_event_too_large');
      assert.equal(e.offset, 9 + 8);
      assert.deepEqual(e.events, [{ event: 'message', data: 'a', id: '' }]);
      return true;
    },
  );
  assert.equal(err, undefined);
  assert.throws(() => d.finish(), { code: 'sse_event_too_large' });
  assert.throws(() => new sr.SseDecoder({ maxEventBytes: 0 }), { code: 'invalid_option' });
  assert.throws(() => new sr.SseDecoder().feed({}), { code: 'invalid_input' });
  assert.throws(() => new sr.SseEncoder().encode({ data: 'x', id: 'a\nb' }), { code: 'sse_invalid_field' });
  assert.throws(() => new sr.SseEncoder().encode({ event: 'x' }), { code: 'invalid_input' });
});

test('options objects: absent, null and undefined fields take defaults; wrong types are invalid_option; unknown keys are invalid_input', () => {
  const lines = (d) => d.feed('data: 123456789\n\n').map((e) => e.data);
  assert.throws(
    () => new sr.SseDecoder({ unknownKey: 1, flushOnFinish: null }),
    (e) => e instanceof sr.StreamrouteError && e.code === 'invalid_input' && /unknown option "unknownKey"/.test(e.message),
  );
  for (const o of [undefined, null, {}, { maxLineBytes: undefined }, { maxLineBytes: null }, { flushOnFinish: null }]) {
    assert.deepEqual(lines(new sr.SseDecoder(o)), ['123456789'], JSON.stringify(o));
  }
  assert.deepEqual(
    new sr.SseDecoder({ flushOnFinish: true }).feed('data: x').concat(new sr.SseDecoder({ flushOnFinish: true }).finish()),
    [],
  );
  const bad = [
    [{ maxLineBytes: '8' }, /invalid type: a string, expected f64/],
    [{ flushOnFinish: 1 }, /invalid type: a number, expected/],
    [{ maxLineBytes: [8] }, /invalid type: an array, expected/],
    [{ maxLineBytes: Number.NaN }, /got NaN/],
    [{ maxLineBytes: Number.POSITIVE_INFINITY }, /got Infinity/],
    [{ maxLineBytes: 1.5 }, /got 1\.5/],
    ['options', /invalid type: a string, expected struct SseDecoderOptions/],
  ];
  for (const [o, message] of bad) {
    assert.throws(
      () => new sr.SseDecoder(o),
      (e) => e instanceof sr.StreamrouteError && e.code === 'invalid_option' && message.test(e.message),
      JSON.stringify(o),
    );
  }
  // Arrays of objects and of either strings or objects (untagged) read the same way.
  const w = new sr.TagEventWriter();
  assert.equal(w.deltas([{ type: 'user_delta', text: 'hi' }]), 'event: user_delta\nid: 1\ndata: {"text":"hi"}\n\n');
  assert.throws(() => w.deltas([{ type: 'user_delta' }]), { code: 'invalid_input', message: /missing field `text`/ });
  const nonce = sr.makeNonce();
  assert.equal(
    sr.correctiveMessage(nonce, ['missing_block', { code: 'wrong_order', offset: 3 }]),
    sr.correctiveMessage(nonce, [{ code: 'missing_block', offset: 0 }, 'wrong_order']),
  );
});

test('maps cross into JS as plain objects, not Map', () => {
  const info = sr.buildInfo();
  assert.equal(Object.getPrototypeOf(info.limits), Object.prototype);
  assert.ok(!(info.limits instanceof Map));
  assert.equal(info.limits.sseMaxLineBytes, 1 << 20);
  assert.equal(info.version, sr.version());
});

const STREAM =
  '\uFEFFevent: greet\r\ndata: caf\u00e9 \u4e16\u754c \u{1F600}\r\nid: 1\r\n\r\n' +
  ': comment\n\ndata: a\rdata: b\r\rretry: 1500\ndata: \u{1F30D}\n\n';
const EXPECTED = [
  { event: 'greet', data: 'caf\u00e9 \u4e16\u754c \u{1F600}', id: '1' },
  { event: 'message', data: 'a\nb', id: '1' },
  { event: 'message', data: '\u{1F30D}', id: '1' },
];

test('decoder gives the same events for every chunking, strings and bytes', () => {
  for (const [label, chunks] of splitings(STREAM)) {
    const d = new sr.SseDecoder();
    assert.deepEqual(feedAll(d, chunks), EXPECTED, label);
    assert.equal(d.lastEventId, '1');
    assert.equal(d.retry, 1500);
  }
});

test('encoder output decodes back to the same events', () => {
  const enc = new sr.SseEncoder({ autoId: true });
  const msgs = [
    { event: 'a', data: 'x\ny\n' },
    { data: '' },
    { data: ' lead: colon', id: 'custom' },
    { event: 'emoji', data: '\u{1F600}\n\u4e16', retry: 10 },
  ];
  const wire = msgs.map((m) => enc.encode(m)).join('') + enc.ping() + enc.comment('two\nlines');
  const d = new sr.SseDecoder();
  const got = [...d.feed(wire), ...d.finish()];
  assert.deepEqual(got, [
    { event: 'a', data: 'x\ny\n', id: '1' },
    { event: 'message', data: '', id: '2' },
    { event: 'message', data: ' lead: colon', id: 'custom' },
    { event: 'emoji', data: '\u{1F600}\n\u4e16', id: '3' },
  ]);
  assert.equal(d.retry, 10);
});

test('finish discards an unterminated event unless flushOnFinish', () => {
  const a = new sr.SseDecoder();
  assert.deepEqual(a.feed('data: x'), []);
  assert.deepEqual(a.finish(), []);
  const b = new sr.SseDecoder({ flushOnFinish: true });
  assert.deepEqual(b.feed('data: x'), []);
  assert.deepEqual(b.finish(), [{ event: 'message', data: 'x', id: '' }]);
});

test('the streamroute bin decodes a file and stdin', () => {
  const bin = join(consumer, 'node_modules', '.bin', 'streamroute');
  const file = join(root, 'examples', 'streams', 'anthropic-thinking.sse');
  const fromFile = execFileSync(bin, ['sse', file], { encoding: 'utf8' });
  const fromStdin = execFileSync(bin, ['sse', '-'], { input: readFileSync(file), encoding: 'utf8' });
  assert.equal(fromFile, fromStdin);
  const events = fromFile
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(events.length, 12);
  assert.equal(events[0].event, 'message_start');
  assert.equal(JSON.parse(events.at(-1).data).type, 'message_stop');
  const bad = spawnSync(bin, ['sse', join(root, 'no-such-file')], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /cannot read/);
});

test('TypeScript: a consumer type-checks, and a type error is reported', () => {
  const ok = typecheck(
    'ts',
    `
    import { init, SseDecoder, SseEncoder, StreamrouteError, makeNonce, version, buildInfo,
      type SseEvent, type SseDecoderOptions, type SseMessageInit, type BuildInfo } from 'streamroute';
    await init();
    const opts: SseDecoderOptions = { flushOnFinish: true, maxLineBytes: 1024 };
    const d = new SseDecoder(opts);
    const events: SseEvent[] = d.feed(new Uint8Array([100, 97, 116, 97, 10, 10]));
    const more: SseEvent[] = d.feed('data: x\\n\\n');
    const last: string = d.lastEventId;
    const retry: number | undefined = d.retry;
    const msg: SseMessageInit = { event: 'e', data: events[0]?.data ?? '', id: 3, retry: 100 };
    const wire: string = new SseEncoder({ autoId: true, firstId: 5 }).encode(msg);
    const info: BuildInfo = buildInfo();
    const cap: number | undefined = info.limits['sseMaxLineBytes'];
    try { d.finish(); } catch (e) { if (e instanceof StreamrouteError) { const c: string = e.code; void c; } }
    void [more, last, retry, wire, cap, makeNonce().length, version()];
  `,
  );
  assert.equal(ok.status, 0, ok.output);
  const bad = typecheck(
    'ts-bad',
    `
    import { SseDecoder } from 'streamroute';
    const n: number = new SseDecoder().feed('x')[0].data;
  `,
    'bad.mts',
  );
  assert.notEqual(bad.status, 0);
  assert.match(bad.output, /TS2322/);
});

test('a U+FEFF inside data is content; only the stream BOM is stripped', () => {
  for (const [label, chunks] of splitings('\uFEFFdata: \uFEFFx\n\ndata: \uFEFF\n\n')) {
    assert.deepEqual(
      feedAll(new sr.SseDecoder(), chunks),
      [
        { event: 'message', data: '\uFEFFx', id: '' },
        { event: 'message', data: '\uFEFF', id: '' },
      ],
      label,
    );
  }
});

test('invalid UTF-8 becomes U+FFFD exactly as the Rust core decodes it', () => {
  const bytes = Uint8Array.from([...Buffer.from('data: a'), 0xff, 0xe2, 0x82, ...Buffer.from('\nevent: e'), 0xc3, ...Buffer.from('\n\n')]);
  for (const split of [bytes.length, 1, 7, 8, 9]) {
    const d = new sr.SseDecoder();
    const out = [];
    for (let i = 0; i < bytes.length; i += split) out.push(...d.feed(bytes.subarray(i, i + split)));
    assert.deepEqual(out, [{ event: 'e\uFFFD', data: 'a\uFFFD\uFFFD', id: '' }], `split ${split}`);
  }
});

test('one feed of many events: names and ids that repeat, change and hold invalid UTF-8', () => {
  // The fast path packs an event name or id only when it differs from the previous event's in
  // the same feed; the others reuse the previous string. Every field here is checked.
  const enc = (s) => [...Buffer.from(s)];
  const bytes = Uint8Array.from([
    ...enc('event: a\ndata: 1\n\nevent: a\ndata: 2\n\ndata: 3\n\nid: x\ndata: 4\n\ndata: 5\n\n'),
    ...enc('event: b'),
    0xe2,
    0x82,
    ...enc('\nid: y'),
    0xff,
    ...enc('\ndata: 6\u00e9\n\n'),
    ...enc('event: b'),
    0xe2,
    0x82,
    ...enc('\ndata: 7\n\nid\ndata: 8\n\n'),
  ]);
  const want = [
    { event: 'a', data: '1', id: '' },
    { event: 'a', data: '2', id: '' },
    { event: 'message', data: '3', id: '' },
    { event: 'message', data: '4', id: 'x' },
    { event: 'message', data: '5', id: 'x' },
    { event: 'b\uFFFD', data: '6\u00e9', id: 'y\uFFFD' },
    { event: 'b\uFFFD', data: '7', id: 'y\uFFFD' },
    { event: 'message', data: '8', id: '' },
  ];
  for (const split of [bytes.length, 1, 5, 13]) {
    const d = new sr.SseDecoder();
    const out = [];
    for (let i = 0; i < bytes.length; i += split) out.push(...d.feed(bytes.subarray(i, i + split)));
    assert.deepEqual(out, want, `split ${split}`);
  }
});

// In Node a string chunk of 64+ units may go into wasm as UTF-16 and be made UTF-8 there
// (boundary.js `Input#writeString`), by a route each chunk picks from the one before (sparse or dense
// characters beyond ASCII, or none). Whatever the route, the text must be the UTF-8 the
// string stands for (a lone surrogate as U+FFFD, as TextEncoder makes it).
test('long string chunks decode as their UTF-8 bytes, on every route and switch between routes', () => {
  const next = rng(0x2f6b1d3);
  const wide = ['\u00e9', '\u07ff', '\u0800', '\u4e2d\u6587', '\uffff', '\u{1F600}', '\u{10FFFF}', '\ud800', '\udfff', '\ud83d'];
  const plain = ['a', 'bc ', 'xyz 0123456789', '[]{}', '"'];
  for (let round = 0; round < 200; round++) {
    // Chunks of 60..600 units, each ASCII-only, sparse or dense beyond ASCII.
    const chunks = [];
    for (let c = 0, count = 1 + next(8); c < count; c++) {
      const density = [0, 2, 30, 90][next(4)];
      let t = '';
      const len = 60 + next(540);
      while (t.length < len) t += next(100) < density ? wide[next(wide.length)] : plain[next(plain.length)];
      chunks.push(t);
    }
    const text = chunks.join('');
    const label = `round ${round}: ${JSON.stringify(text.slice(0, 200))}`;
    // SSE: one event whose data is the whole text (no line breaks in it).
    const sse = (parts) => feedAll(new sr.SseDecoder({ flushOnFinish: true }), parts);
    const sseChunks = ['data: ', ...chunks, '\n\n'];
    assert.deepEqual(sse(sseChunks), sse([Buffer.from(sseChunks.join(''))]), `SSE ${label}`);
    // PartialJson: a string value.
    const pj = (parts) => {
      const p = new sr.PartialJson();
      for (const c of parts) p.feed(c);
      return p.finish();
    };
    const jsonChunks = ['["', ...chunks.map((c) => c.replaceAll('"', "'")), '"]'];
    assert.deepEqual(pj(jsonChunks), pj([Buffer.from(jsonChunks.join(''))]), `PartialJson ${label}`);
  }
});

test('LlmStreamChunker: action_seq null when omitted, reset() starts a fresh attempt', () => {
  const c = new sr.LlmStreamChunker();
  assert.deepEqual(c.feed('{"next_node":"final_response","args":{"answer":"Hel'), [
    { text: 'Hel', done: false, phase: 'answer', channel: 'answer', action_seq: null },
  ]);
  c.reset();
  const retry = [...c.feed('{"next_node":"final_response","args":{"answer":"Hello"}}'), ...c.finish()];
  assert.deepEqual(
    retry.map((x) => [x.text, x.done]),
    [
      ['Hello', false],
      ['', true],
    ],
  );
});

test('the package ships the licence texts its licence field names', () => {
  const pkgDir = join(here, 'node_modules', 'streamroute');
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  assert.equal(manifest.license, 'MIT OR Apache-2.0');
  assert.match(readFileSync(join(pkgDir, 'LICENSE-MIT'), 'utf8'), /^MIT License\n/);
  assert.match(readFileSync(join(pkgDir, 'LICENSE-APACHE'), 'utf8'), /Apache License\s+Version 2\.0, January 2004/);
});

test('the package ships docs/, and every link of its README and docs leads to a file in it', () => {
  const pkgDir = join(here, 'node_modules', 'streamroute');
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort();
  assert.deepEqual(readdirSync(join(pkgDir, 'docs')).sort(), docs);
  const slug = (h) =>
    h
      .trim()
      .toLowerCase()
      .replace(/[^\w\- ]/g, '')
      .replaceAll(' ', '-');
  const anchors = (file) => new Set([...readFileSync(file, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1])));
  let links = 0;
  for (const file of ['README.md', ...docs.map((d) => `docs/${d}`)]) {
    const text = readFileSync(join(pkgDir, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, href] of text.matchAll(/\]\(([^)\s]+)\)|<img [^>]*src="([^"]+)"/g)) {
      if (!href || /^[a-z]+:/i.test(href)) continue;
      const [path, anchor] = href.split('#');
      const target = path ? join(dirname(join(pkgDir, file)), path) : join(pkgDir, file);
      assert.ok(existsSync(target), `${file}: ${href} leads nowhere in the package`);
      if (anchor) assert.ok(anchors(target).has(anchor), `${file}: ${href}: no such heading`);
      links++;
    }
  }
  assert.ok(links > 20, `${links} links checked`);
});

test("every entry's .wasm is exported, so a bundler's ?url import finds it", () => {
  const manifest = JSON.parse(readFileSync(join(here, 'node_modules', 'streamroute', 'package.json'), 'utf8'));
  const entries = Object.keys(manifest.exports).filter((k) => !k.endsWith('.wasm') && k !== './package.json' && k !== './react');
  const require = createRequire(join(consumer, 'x.js'));
  for (const e of entries) {
    const spec = e === '.' ? 'streamroute/streamroute_bg.wasm' : `streamroute/${e.slice(2)}/streamroute_bg.wasm`;
    const file = require.resolve(spec);
    assert.equal(readFileSync(file).subarray(0, 4).toString('hex'), '0061736d', spec);
  }
});

// Short text out of wasm is decoded in JS (pkg/entry/utf8.js); it must be exactly what
// TextDecoder makes of well-formed UTF-8, and decline (null) everything else, which then goes
// to TextDecoder for its U+FFFD.
test('decodeShort is TextDecoder on well-formed UTF-8 and declines the rest', async () => {
  const { decodeShort } = await import('../../pkg/entry/utf8.js');
  const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const check = (bytes) => {
    const got = decodeShort(bytes, 1, bytes.length - 1);
    const inner = bytes.subarray(1, bytes.length - 1);
    let want = null;
    try {
      want = fatal.decode(inner);
    } catch {
      // Malformed: decodeShort must decline.
    }
    assert.equal(got, want, `${[...inner].map((b) => b.toString(16)).join(' ')} (seed ${SEED})`);
  };
  // Every code point (surrogates included, as their 3-byte forms), between guard bytes.
  for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x3000 ? 1 : 97) {
    const b =
      cp < 0x80
        ? [cp]
        : cp < 0x800
          ? [0xc0 | (cp >> 6), 0x80 | (cp & 63)]
          : cp < 0x10000
            ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
            : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
    check(Uint8Array.from([0xff, ...b, 0xff]));
  }
  // Every one- and two-byte sequence, then random ones over the bytes that matter.
  for (let a = 0; a < 256; a++) {
    check(Uint8Array.from([0xff, a, 0xff]));
    for (let b = 0; b < 256; b++) check(Uint8Array.from([0xff, a, b, 0xff]));
  }
  const alphabet = [
    0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3,
    0xf4, 0xf5, 0xff,
  ];
  const next = rng(SEED);
  for (let round = 0; round < 100000; round++) {
    const n = 1 + next(8);
    check(Uint8Array.from([0xff, ...Array.from({ length: n }, () => alphabet[next(alphabet.length)]), 0xff]));
  }
  assert.equal(decodeShort(new Uint8Array(0), 0, 0), '');
});

// Input#writeUtf8 keeps one view of the input buffer between chunks: it must be made again
// after the memory grew (the old view is detached) and after the buffer moved (a larger chunk).
test('string chunks are written right after the memory grew and after the input buffer moved', () => {
  const chunks = [];
  for (let i = 0; i < 80; i++) {
    // 35 to 59 units (written as UTF-8 through the kept view), or ~900 (a larger buffer).
    const k = i % 11 === 5 ? 900 + i : 25 + ((i * 37) % 25);
    chunks.push(`data: ${'x'.repeat(k)}\u00e9${i}\n\n`);
  }
  const want = feedAll(new sr.SseDecoder(), [Buffer.from(chunks.join(''))]);
  const memory = () => sr.__sr_memory().buffer.byteLength;
  const before = memory();
  const d = new sr.SseDecoder();
  const got = [];
  const hogs = [];
  for (const [i, c] of chunks.entries()) {
    got.push(...d.feed(c));
    if (i % 7 === 3) {
      // Another machine's large chunk grows the memory (its own error, if any, is not ours).
      const hog = new sr.SseDecoder();
      hogs.push(hog);
      try {
        hog.feed(`: ${'y'.repeat(1 << (15 + (i % 6)))}`);
      } catch {
        // the line cap
      }
    }
  }
  got.push(...d.finish());
  for (const hog of hogs) hog.free();
  d.free();
  assert.ok(memory() > before, 'the memory grew');
  assert.deepEqual(got, want);
});
