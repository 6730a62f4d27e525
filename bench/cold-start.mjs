// Cold start of a page that reads a wire, in headless Chromium: from navigation to the first
// answer text rendered, for a page importing `streamroute/client` and one importing the main
// entry `streamroute`, each without and with a preload of its `.wasm` (a
// `<link rel="preload" as="fetch" crossorigin>` in the head and `init(url)` with the same URL,
// as docs/client.md shows). Files are served gzip-compressed from pkg/dist (as built by
// scripts/build) over an emulated network (10 Mbit/s down, 40 ms round trip) with the cache
// disabled; the wire is a short planner stream. A measurement, not a test: it checks that each
// page rendered the expected text and prints the median of `--runs` loads (default 9).
//
//   node cold-start.mjs [--runs N] [--json FILE]

import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { median } from './timing.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PKG = join(ROOT, 'pkg');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const RUNS = Number(arg('--runs', 9));
const TEXT = 'Revenue grew 12% in March.';

// A short planner wire: a chunk of thinking, the answer in three chunks, done.
const frame = (name, data) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const WIRE = [
  frame('llm_stream_chunk', { text: 'Looking at the sales table.', phase: 'thinking', channel: 'thinking', done: false }),
  ...['Revenue grew ', '12% in ', 'March.'].map((text) =>
    frame('llm_stream_chunk', { text, phase: 'answer', channel: 'answer', done: false }),
  ),
  frame('done', { answer: TEXT, metadata: { ok: true, parse_ok: true, finish_reason: 'stop' } }),
].join('');

const MIME = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html; charset=utf-8' };

function page(dir, preload) {
  const wasm = `/pkg/dist/${dir}/streamroute_bg.wasm`;
  return `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
${preload ? `<link rel="preload" href="${wasm}" as="fetch" type="application/wasm" crossorigin>` : ''}
<p id="out"></p>
<script type="module">
import { init, fromSse, StreamState } from '/pkg/dist/${dir}/browser.js';
await init(${preload ? `new URL('${wasm}', location.href)` : ''});
const state = new StreamState();
const res = await fetch('/stream');
const reader = res.body.pipeThrough(fromSse('planner')).getReader();
for (let r = await reader.read(); !r.done; r = await reader.read()) {
  state.apply(r.value);
  const { answer } = state.snapshot();
  if (answer && !window.first) {
    document.getElementById('out').textContent = answer;
    window.first = performance.now();
  }
}
window.answer = state.snapshot().answer;
</script>`;
}

const gz = new Map();
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  if (path === '/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.end(WIRE);
    return;
  }
  const m = /^\/(client|streamroute)-(plain|preload)\.html$/.exec(path);
  let body;
  let type;
  if (m) {
    body = Buffer.from(page(m[1], m[2] === 'preload'));
    type = MIME['.html'];
  } else if (path.startsWith('/pkg/')) {
    const file = normalize(join(PKG, path.slice(5)));
    if (!file.startsWith(PKG)) return res.writeHead(404).end();
    try {
      body = gz.get(file) ?? gz.set(file, gzipSync(readFileSync(file), { level: 9 })).get(file);
    } catch {
      return res.writeHead(404).end();
    }
    type = MIME[extname(file)] ?? 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'content-encoding': 'gzip', 'cache-control': 'no-store' });
    res.end(body);
    return;
  } else {
    return res.writeHead(404).end();
  }
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const profile = mkdtempSync(join(tmpdir(), 'streamroute-cold-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
  ],
});

const rows = [];
let ok = true;
try {
  for (const dir of ['client', 'streamroute']) {
    for (const mode of ['plain', 'preload']) {
      const times = [];
      for (let i = 0; i < RUNS; i++) {
        const tab = await context.newPage();
        const cdp = await context.newCDPSession(tab);
        await cdp.send('Network.enable');
        await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: 40,
          downloadThroughput: 10e6 / 8,
          uploadThroughput: 5e6 / 8,
        });
        await tab.goto(`${origin}/${dir}-${mode}.html`);
        await tab.waitForFunction(() => window.answer !== undefined, null, { timeout: 30_000 });
        const { first, answer } = await tab.evaluate(() => ({ first: window.first, answer: window.answer }));
        if (answer !== TEXT) ok = false;
        times.push(first);
        await tab.close();
      }
      rows.push({ entry: dir === 'client' ? 'streamroute/client' : 'streamroute', preload: mode === 'preload', ms: median(times) });
    }
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  server.close();
}

console.log('| entry | preload | navigation → first answer rendered (median ms) |');
console.log('|---|---|--:|');
for (const r of rows) console.log(`| ${r.entry} | ${r.preload ? 'yes' : 'no'} | ${r.ms.toFixed(0)} |`);
const json = arg('--json');
if (json) writeFileSync(json, JSON.stringify(rows, null, 2));
if (!ok) {
  console.error('a page did not render the expected answer');
  process.exit(1);
}
