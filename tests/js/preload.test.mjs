// docs/client.md's preload examples run as written, in headless Chromium: the page form (a
// preload link and `init(url)`) served as a plain page, and the Vite plugin in a `vite build` of
// an app that calls `await init()`. In both the client entry's `.wasm` is requested once (the
// preload's response is the one `init` compiles), its request starts before the entry's
// JavaScript has run, and the page folds a planner wire. Run after ./setup-consumer.sh.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';
import { PKG_DIR, ROOT, fileUnder, freshApp, launchChromium, listen, sendFile } from './helpers/runtimes.mjs';
import { fencedBlocks } from './helpers/markdown.mjs';

const DOC = readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8');
const block = (lang) => {
  const found = fencedBlocks(DOC, 'docs/client.md').filter((b) => b.lang === lang && b.marks[0] === 'preload');
  assert.equal(found.length, 1, `one \`${lang} preload\` block in docs/client.md`);
  return found[0].content;
};

const frame = (name, data) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const WIRE =
  ['Revenue ', 'grew.'].map((text) => frame('llm_stream_chunk', { text, phase: 'answer', channel: 'answer', done: false })).join('') +
  frame('done', { answer: 'Revenue grew.', metadata: { ok: true, parse_ok: true, finish_reason: 'stop' } });

// What the page does after the documented part: fold the wire, say when the entry's JavaScript
// first ran (the time `init` was called).
const FOLD = `
import { init, fromSse, StreamState } from 'streamroute/client';
await init();
const state = new StreamState();
const res = await fetch('/stream');
for await (const e of res.body.pipeThrough(fromSse('planner'))) state.apply(e);
document.getElementById('out').textContent = JSON.stringify({ answer: state.snapshot().answer, status: state.snapshot().status });
`;

let browser;
after(async () => {
  await browser?.close();
});

/** Loads `url` in Chromium: the page's result, and every request with its start time. */
async function load(origin, path) {
  browser ??= await launchChromium();
  const page = await browser.context.newPage();
  const errors = [];
  const consoleErrors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text());
  });
  await page.goto(`${origin}${path}`);
  await page.waitForFunction(() => document.getElementById('out')?.textContent, null, { timeout: 20_000 });
  const result = JSON.parse(await page.textContent('#out'));
  const timing = await page.evaluate(() =>
    performance.getEntriesByType('resource').map((r) => ({ name: new URL(r.name).pathname, start: r.startTime })),
  );
  await page.close();
  assert.deepEqual(errors, []);
  assert.deepEqual(
    consoleErrors.filter((t) => /preload|wasm/i.test(t)),
    [],
    'no warning about the preload',
  );
  return { result, timing };
}

test('docs/client.md: a preload link and init(url) fetch the .wasm once, with the page', { timeout: 60_000 }, async () => {
  const html = block('html');
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="importmap">{ "imports": { "streamroute/client": "/streamroute/dist/client/browser.js" } }</script>
${html}
<pre id="out"></pre>
<script type="module">${FOLD}</script>`;
  const requests = [];
  const server = await listen((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    requests.push(path);
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    if (path === '/stream') return res.writeHead(200, { 'content-type': 'text/event-stream' }).end(WIRE);
    if (path === '/assets/streamroute_bg.wasm') return sendFile(res, join(PKG_DIR, 'dist', 'client', 'streamroute_bg.wasm'));
    sendFile(res, path.startsWith('/streamroute/') ? fileUnder(PKG_DIR, path.slice('/streamroute/'.length)) : null);
  });
  try {
    const { result, timing } = await load(server.origin, '/');
    assert.deepEqual(result, { answer: 'Revenue grew.', status: 'done' });
    assert.deepEqual(
      requests.filter((p) => p.endsWith('.wasm')),
      ['/assets/streamroute_bg.wasm'],
      'the .wasm is fetched once',
    );
    const wasm = timing.find((r) => r.name.endsWith('.wasm'));
    const js = timing.find((r) => r.name.endsWith('/client/browser.js'));
    assert.ok(
      wasm && js && wasm.start <= js.start,
      `the .wasm request starts with the page (${wasm?.start} ms, the entry's JS at ${js?.start} ms)`,
    );
  } finally {
    await server.close();
  }
});

test('docs/client.md: the Vite plugin preloads the built .wasm, which init() then uses', { timeout: 120_000 }, async () => {
  const app = freshApp('vite-preload');
  writeFileSync(join(app, 'vite.config.js'), block('js'));
  writeFileSync(
    join(app, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><pre id="out"></pre><script type="module" src="/main.js"></script></body></html>',
  );
  writeFileSync(join(app, 'main.js'), FOLD);
  await build({ root: app, logLevel: 'silent', configFile: join(app, 'vite.config.js'), build: { outDir: 'dist', target: 'es2022' } });
  const dist = join(app, 'dist');
  const index = readFileSync(join(dist, 'index.html'), 'utf8');
  const assets = readdirSync(join(dist, 'assets'));
  const wasmFiles = assets.filter((f) => f.endsWith('.wasm'));
  assert.equal(wasmFiles.length, 1, `one .wasm asset among ${assets}`);
  assert.ok(
    index.includes(`<link rel="preload" href="/assets/${wasmFiles[0]}" as="fetch" type="application/wasm" crossorigin`),
    `the built page preloads the .wasm:\n${index}`,
  );
  const requests = [];
  const server = await listen((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    requests.push(path);
    if (path === '/stream') return res.writeHead(200, { 'content-type': 'text/event-stream' }).end(WIRE);
    sendFile(res, fileUnder(dist, path === '/' ? 'index.html' : path.slice(1)));
  });
  try {
    const { result } = await load(server.origin, '/');
    assert.deepEqual(result, { answer: 'Revenue grew.', status: 'done' });
    assert.deepEqual(
      requests.filter((p) => p.endsWith('.wasm')),
      [`/assets/${wasmFiles[0]}`],
      'the .wasm is fetched once',
    );
  } finally {
    await server.close();
  }
});
