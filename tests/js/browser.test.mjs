// The packed package in headless Chromium: a static server on 127.0.0.1 serves the installed
// package under /streamroute/ and the page tests/js/browser/index.html, which imports the
// package's browser entry (what the `browser` export condition points to), runs it and writes
// the results as JSON into `window.__result`. Run after ./setup-consumer.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JS_DIR, PKG_DIR, fileUnder, launchChromium, listen, mimeOf, sendFile } from './helpers/runtimes.mjs';
import { NONCE, SAMPLES, aiSdkParts, replay } from './helpers/streams.mjs';
import { MISUSE_CODES } from './helpers/misuse.mjs';
import { SEED } from './helpers/chunking.mjs';
import { PROFILES } from './helpers/client-roundtrip.mjs';
import { SseDecoder, StreamRouter, toSse } from 'streamroute';

const PAGE_DIR = join(JS_DIR, 'browser');

const requests = []; // { path, status, type }

function serve(req, res) {
  const path = new URL(req.url, 'http://127.0.0.1').pathname;
  let file = null;
  if (path.startsWith('/upstream/')) {
    const sample = SAMPLES.find((x) => x.file === path.slice('/upstream/'.length));
    requests.push({ path, status: sample ? 200 : 404, type: 'text/event-stream' });
    if (sample) return replay(res, sample.bytes, 31, 10); // paced, so the page reads it in pieces even on a busy machine
    return sendFile(res, null);
  }
  if (path === '/' || path === '/index.html') file = join(PAGE_DIR, 'index.html');
  else if (path === '/router.html') file = join(PAGE_DIR, 'router.html');
  else if (path.startsWith('/streamroute/')) file = fileUnder(PKG_DIR, path.slice('/streamroute/'.length));
  else if (path === '/client.html') file = join(PAGE_DIR, 'client.html');
  else if (path === '/browser/publish.mjs') file = join(PAGE_DIR, 'publish.mjs');
  else if (['/helpers/misuse.mjs', '/helpers/client-roundtrip.mjs', '/helpers/chunking.mjs'].includes(path)) file = join(JS_DIR, path);
  else if (path === '/samples.json') {
    requests.push({ path, status: 200, type: 'application/json' });
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(
      JSON.stringify({ samples: SAMPLES.map(({ file, content, text }) => ({ file, content, text })), nonce: NONCE, seed: SEED }),
    );
  }
  requests.push({ path, status: file ? 200 : 404, type: file ? mimeOf(file) : undefined });
  sendFile(res, file);
}

let server;
let origin;
let browser;
let context;

before(async () => {
  // The page must import exactly what the package's `browser` condition names.
  const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['.'].browser, './dist/streamroute/browser.js');

  server = await listen(serve);
  origin = server.origin;
  browser = await launchChromium();
  context = browser.context;
});

after(async () => {
  try {
    await browser?.close();
  } finally {
    await server?.close();
  }
});

test('browser entry decodes, encodes and throws StreamrouteError in Chromium', { timeout: 45_000 }, async () => {
  const page = await context.newPage();
  const consoleErrors = [];
  const consoleWarnings = [];
  const pageErrors = [];
  const failedRequests = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
    if (msg.type() === 'warning') consoleWarnings.push(msg.text());
  });
  page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
  page.on('requestfailed', (req) => failedRequests.push(`${req.url()}: ${req.failure()?.errorText}`));

  try {
    await page.goto(`${origin}/`, { waitUntil: 'load', timeout: 20_000 });
    await page.waitForFunction(() => typeof window.__result === 'string', null, { timeout: 20_000 });
    const r = JSON.parse(await page.evaluate(() => window.__result));
    const shown = JSON.parse(await page.textContent('#out'));

    assert.deepEqual(pageErrors, [], 'page errors');
    assert.deepEqual(consoleErrors, [], 'console errors');
    assert.deepEqual(failedRequests, [], 'failed requests');
    assert.equal(r.ok, true, r.error);
    assert.deepEqual(shown, r, 'the <pre> shows the same result');

    // init() is idempotent: one promise, resolving to undefined, and the .wasm fetched once
    // with the right MIME type (so no instantiateStreaming fallback warning either).
    assert.equal(r.initSamePromise, true);
    assert.equal(r.initValue, undefined);
    const wasmFetches = requests.filter((q) => q.path.endsWith('.wasm'));
    assert.deepEqual(wasmFetches, [{ path: '/streamroute/dist/streamroute/streamroute_bg.wasm', status: 200, type: 'application/wasm' }]);
    assert.deepEqual(consoleWarnings, [], 'console warnings');
    assert.ok(requests.some((q) => q.path === '/streamroute/dist/streamroute/browser.js' && q.status === 200));
    assert.deepEqual(
      requests.filter((q) => q.status !== 200),
      [],
      'every request found',
    );

    // The chunked byte stream (cuts inside UTF-8 sequences and CRLF pairs).
    assert.equal(r.streamChunkCount, 9);
    assert.deepEqual(r.streamEvents, [
      { event: 'greet', data: 'héllo 🌍\nsecond line', id: '7' },
      { event: 'message', data: 'plain', id: '7' },
      { event: 'end', data: '日本語', id: '8' },
    ]);
    // Each event comes out of the feed() that ends its blank line: a CR ends a line at once
    // (chunk 4 ends with the blank line's CR), and the LF after it is not a second blank line.
    assert.deepEqual(r.streamPerChunk, [0, 0, 0, 0, 1, 1, 0, 0, 1]);
    assert.deepEqual(r.streamFinish, []);
    assert.equal(r.lastEventId, '8');
    assert.equal(r.retry, 1500);

    // Encoder → decoder round trip.
    assert.equal(
      r.roundTripWire,
      ': round trip\n\n: ping\n\n' +
        'event: token\nid: 1\ndata: Hello\n\n' +
        'id: 2\ndata: multi\ndata: line\ndata: data\n\n' +
        'event: token\nid: explicit-1\ndata:  wörld ✓\n\n' +
        'event: done\nid: 3\nretry: 250\ndata: {"ok":true}\n\n',
    );
    assert.deepEqual(r.roundTripEvents, [
      { event: 'token', data: 'Hello', id: '1' },
      { event: 'message', data: 'multi\nline\ndata', id: '2' },
      { event: 'token', data: ' wörld ✓', id: 'explicit-1' },
      { event: 'done', data: '{"ok":true}', id: '3' },
    ]);
    assert.equal(r.roundTripRetry, 250);
    assert.equal(r.roundTripLastEventId, '3');

    // The error crosses from wasm as the package's StreamrouteError.
    assert.ok(r.error, 'feed() over maxEventBytes must throw');
    assert.equal(r.error.isStreamrouteError, true, 'instanceof StreamrouteError');
    assert.equal(r.error.isError, true, 'instanceof Error');
    assert.equal(r.error.name, 'StreamrouteError');
    assert.equal(r.error.code, 'sse_event_too_large');
    assert.deepEqual(r.error.events, [{ event: 'message', data: 'ok', id: '' }]);
    assert.deepEqual(r.misuse, MISUSE_CODES);

    assert.match(r.nonce, /^[0-9a-f]{32}$/);
    assert.match(r.nonce2, /^[0-9a-f]{32}$/);
    assert.notEqual(r.nonce, r.nonce2);
  } finally {
    await page.close();
  }
});

test('the router pipeline (StreamRouter → toSse("ai-sdk")) runs in a page on fetched streams', { timeout: 60_000 }, async () => {
  const streams = [
    ['openai-chat-tools.sse', 'text'],
    ['anthropic-tools.sse', 'text'],
    ['openai-responses-tools.sse', 'text'],
    ['gemini-tools.sse', 'text'],
    ['openai-chat-action.sse', 'action-json'],
    ['anthropic-action.sse', 'action-json'],
    ['openai-chat-tagged.sse', 'tagged'],
  ];
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
  try {
    await page.goto(`${origin}/router.html?nonce=${NONCE}&streams=${encodeURIComponent(JSON.stringify(streams))}`, {
      waitUntil: 'load',
      timeout: 20_000,
    });
    await page.waitForFunction(() => typeof window.__result === 'string', null, { timeout: 30_000 });
    const r = JSON.parse(await page.evaluate(() => window.__result));
    assert.deepEqual(pageErrors, []);
    assert.equal(r.ok, true, r.error);
    const decode = (text) => {
      const d = new SseDecoder();
      return [...d.feed(text), ...d.finish()];
    };
    for (const [file, content] of streams) {
      const s = SAMPLES.find((x) => x.file === file);
      assert.ok(r.chunks[file] > 1, `${file} arrived in pieces`);
      const want = await new Response(
        new Response(s.bytes).body
          .pipeThrough(new StreamRouter({ content, nonce: NONCE }).transform())
          .pipeThrough(toSse('ai-sdk', { retry: 1000 })),
      ).text();
      const frames = decode(r.streams[file]);
      assert.equal(frames.at(-1).data, '[DONE]', file);
      frames.slice(0, -1).forEach((f, i) => assert.equal(f.id, String(i + 1), file));
      assert.deepEqual(
        aiSdkParts(frames).map(([, p]) => p),
        aiSdkParts(decode(want)).map(([, p]) => p),
        file,
      );
    }
  } finally {
    await page.close();
  }
});

test('toSse → fromSse → StreamState gives the snapshot of the routed events in Chromium, every sample and profile', {
  timeout: 120_000,
}, async () => {
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
  try {
    await page.goto(`${origin}/client.html`, { waitUntil: 'load', timeout: 20_000 });
    await page.waitForFunction(() => typeof window.__result === 'string', null, { timeout: 100_000 });
    const r = JSON.parse(await page.evaluate(() => window.__result));
    assert.deepEqual(pageErrors, []);
    assert.equal(r.ok, true, r.error);
    assert.deepEqual(r.mismatches, [], `seed ${SEED}`);
    assert.equal(r.compared, (SAMPLES.length + 2) * PROFILES.length * 6); // the samples, the continuation and the extra events
  } finally {
    await page.close();
  }
});
