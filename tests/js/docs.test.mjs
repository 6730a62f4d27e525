// docs/client.md runs as written: its React component (the one `jsx` block) is bundled with
// esbuild against the real `react` and `react-dom` from npm, rendered in headless Chromium with
// the packed package's browser entry, and fed a sample stream written by toSse("ai-sdk") in
// small pieces. The DOM must show what StreamState folds from the routed events in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as sr from 'streamroute';
import { JS_DIR, PKG_DIR, ROOT, fileUnder, launchChromium, listen, sendFile } from './helpers/runtimes.mjs';
import { NONCE, SAMPLES, replay } from './helpers/streams.mjs';
import { fold, routed, wireText } from './helpers/client-roundtrip.mjs';
import { fencedBlocks } from './helpers/markdown.mjs';

const esbuild = createRequire(join(ROOT, 'scripts', 'package.json'))('esbuild');
const DOC = readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8');
const TMP = join(JS_DIR, '.tmp', 'docs-react');

// Its blocks of one language; the component is marked ```jsx chromium (see docs-pages.test.mjs).
const blocks = (lang) => fencedBlocks(DOC, 'docs/client.md').filter((b) => b.lang === lang).map((b) => b.content + '\n');

const PAGE = `<!doctype html><meta charset="utf-8"><title>docs/client.md React example</title><link rel="icon" href="data:,">
<script type="importmap">{ "imports": { "streamroute": "/streamroute/dist/streamroute/browser.js" } }</script>
<div id="root"></div><script type="module" src="/app.js"></script>`;

// The page around the component: load the wasm once, render <Chat url="/stream" />.
const MAIN = `import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { init } from 'streamroute';
import { Chat } from './Chat.jsx';
await init();
createRoot(document.getElementById('root')).render(createElement(Chat, { url: '/stream' }));
`;

test('docs/client.md: the React component renders a stream with useSyncExternalStore in Chromium', { timeout: 60_000 }, async () => {
  const [component] = blocks('jsx');
  assert.equal(blocks('jsx').length, 1, 'one jsx block in docs/client.md');
  assert.match(component, /useSyncExternalStore\(state\.subscribe, state\.snapshot\)/);
  mkdirSync(TMP, { recursive: true });
  writeFileSync(join(TMP, 'Chat.jsx'), component);
  writeFileSync(join(TMP, 'main.jsx'), MAIN);
  const built = await esbuild.build({
    entryPoints: [join(TMP, 'main.jsx')], bundle: true, write: false, format: 'esm', target: 'es2022', jsx: 'automatic',
    external: ['streamroute'], nodePaths: [join(JS_DIR, 'node_modules')], define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const app = built.outputFiles[0].text;

  const sample = SAMPLES.find((s) => s.file === 'openai-chat-tools.sse');
  const events = routed(sr, sample.bytes, sample.content, NONCE);
  const want = fold(sr, events);
  const wire = new TextEncoder().encode(await wireText(sr, events, 'ai-sdk'));

  const server = await listen((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (path === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(app);
    if (path === '/stream') return replay(res, wire, 23, 2);
    sendFile(res, path.startsWith('/streamroute/') ? fileUnder(PKG_DIR, path.slice('/streamroute/'.length)) : null);
  });
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e?.stack ?? e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.origin}/`, { waitUntil: 'load' });
    // The answer grows while the stream arrives, then the call completes.
    await page.waitForSelector('article[data-status="done"]', { timeout: 30_000 });
    const dom = await page.evaluate(() => ({
      answer: document.querySelector('.answer').textContent,
      thinking: document.querySelector('details')?.textContent ?? '',
      tools: [...document.querySelectorAll('li')].map((li) => [li.dataset.state, li.textContent]),
      alerts: [...document.querySelectorAll('[role="alert"]')].map((p) => p.textContent),
    }));
    assert.deepEqual(errors, []);
    assert.equal(dom.answer, want.answer);
    assert.equal(dom.thinking, `Thinking${want.thinking.reasoning}`);
    assert.deepEqual(dom.tools, want.toolCalls.map((t) => ['input-available', `${t.name} ${JSON.stringify(t.arguments)}`]));
    assert.deepEqual(dom.alerts, []);
    assert.ok(want.toolCalls.length === 2 && want.answer.length > 0);
  } finally {
    await browser.close();
    await server.close();
  }
});
