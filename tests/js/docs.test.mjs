// docs/client.md runs as written: its React components (the one ```tsx chromium block) are
// type-checked with tsc (strict, the DOM lib, @types/react, no skipLibCheck), bundled with
// esbuild against the real `react` and `react-dom` from npm and rendered in headless Chromium
// with the packed package's client entry (an import map: the hooks of 'streamroute/react' and
// the page share its one wasm instance), fed sample streams written by toSse in small pieces.
// The DOM must show what StreamState folds from the routed events in Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const TSC = join(JS_DIR, 'node_modules', 'typescript', 'bin', 'tsc');

// Its blocks of one language and mark (see docs-pages.test.mjs).
const blocks = (lang, mark) =>
  fencedBlocks(DOC, 'docs/client.md')
    .filter((b) => b.lang === lang && b.marks.includes(mark))
    .map((b) => b.content + '\n');

const PAGE = `<!doctype html><meta charset="utf-8"><title>docs/client.md React example</title><link rel="icon" href="data:,">
<script type="importmap">{ "imports": { "streamroute/client": "/streamroute/dist/client/browser.js" } }</script>
<div id="root"></div><script type="module" src="/app.js"></script>`;

// The page around the components (type-checked with them): load the wasm once, then render
// <Chat url="/stream" />, <Ask question=… /> and <Task /> over a StreamMux's stream.
const MAIN = `import { createRoot } from 'react-dom/client';
import { StreamMux, init } from 'streamroute/client';
import { Ask, Chat, Task } from './Chat';

declare global {
  interface Window { mux: StreamMux }
}

await init();
window.mux = new StreamMux({ key: 'session_id' });
window.mux.apply({ type: 'answer_delta', text: 'Indexing ', session_id: 'task-1' });
const task = window.mux.get('task-1');
if (!task) throw new Error('no stream task-1');
createRoot(document.getElementById('root')!).render(
  <>
    <div id="chat"><Chat url="/stream" /></div>
    <div id="ask"><Ask question="What grew?" /></div>
    <div id="task"><Task state={task} /></div>
  </>,
);
`;

/** tsc on the components and the page: strict, ES2022 + DOM, @types/react, bundler resolution. */
function typecheck(dir) {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'docs-react', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        module: 'ESNext',
        moduleResolution: 'bundler',
        jsx: 'react-jsx',
        types: [],
        skipLibCheck: false,
        isolatedModules: true,
      },
      files: ['Chat.tsx', 'main.tsx'],
    }),
  );
  const r = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
  return { status: r.status, output: r.stdout + r.stderr };
}

const dom = (page, id) =>
  page.evaluate((id) => {
    const a = document.querySelector(`#${id} article`);
    return {
      status: a.dataset.status,
      answer: a.querySelector('.answer').textContent,
      thinking: a.querySelector('details')?.textContent ?? '',
      tools: [...a.querySelectorAll('li')].map((li) => [li.dataset.state, li.textContent]),
      alerts: [...a.querySelectorAll('[role="alert"]')].map((p) => p.textContent),
    };
  }, id);

test('docs/client.md: the React components type-check (strict, DOM, @types/react) and render streams with streamroute/react in Chromium', {
  timeout: 90_000,
}, async () => {
  const found = blocks('tsx', 'chromium');
  assert.equal(found.length, 1, 'one ```tsx chromium block in docs/client.md');
  const [components] = found;
  assert.match(components, /from 'streamroute\/react'/);
  assert.match(components, /useSseStream\(/);
  assert.match(components, /useStreamState\(/);
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  writeFileSync(join(TMP, 'Chat.tsx'), components);
  writeFileSync(join(TMP, 'main.tsx'), MAIN);
  const checked = typecheck(TMP);
  assert.equal(checked.status, 0, `tsc on docs/client.md's tsx block (${TMP}):\n${checked.output}`);

  const built = await esbuild.build({
    entryPoints: [join(TMP, 'main.tsx')],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    external: ['streamroute/client'],
    nodePaths: [join(JS_DIR, 'node_modules')],
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const app = built.outputFiles[0].text;

  const sample = SAMPLES.find((s) => s.file === 'openai-chat-tools.sse');
  const events = routed(sr, sample.bytes, sample.content, NONCE);
  const want = fold(sr, events);
  const wire = new TextEncoder().encode(await wireText(sr, events, 'ai-sdk'));
  const askSample = SAMPLES.find((s) => s.file === 'openai-chat-text.sse');
  const askEvents = routed(sr, askSample.bytes, askSample.content, NONCE);
  const askWant = fold(sr, askEvents);
  const askWire = new TextEncoder().encode(await wireText(sr, askEvents, 'planner'));

  const hits = new Map();
  const asked = [];
  const server = await listen((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (path === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(app);
    if (path === '/stream') return replay(res, wire, 23, 2);
    if (path === '/ask') {
      let body = '';
      req
        .setEncoding('utf8')
        .on('data', (c) => (body += c))
        .on('end', () => {
          asked.push([req.method, req.headers['content-type'], body]);
          replay(res, askWire, 31, 1);
        });
      return;
    }
    sendFile(res, path.startsWith('/streamroute/') ? fileUnder(PKG_DIR, path.slice('/streamroute/'.length)) : null);
  });
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e?.stack ?? e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.origin}/`, { waitUntil: 'load' });
    // The answers grow while the streams arrive, then the calls complete.
    await page.waitForSelector('#chat article[data-status="done"]', { timeout: 30_000 });
    await page.waitForSelector('#ask article[data-status="done"]', { timeout: 30_000 });
    const chat = await dom(page, 'chat');
    assert.equal(chat.answer, want.answer);
    assert.equal(chat.thinking, `Thinking${want.thinking.reasoning}`);
    assert.deepEqual(
      chat.tools,
      want.toolCalls.map((t) => ['input-available', `${t.name} ${JSON.stringify(t.arguments)}`]),
    );
    assert.deepEqual(chat.alerts, []);
    assert.ok(want.toolCalls.length === 2 && want.answer.length > 0);
    assert.equal(await page.isDisabled('#chat button:text("Stop")'), true, 'Stop is disabled once done');

    const ask = await dom(page, 'ask');
    assert.deepEqual(asked, [['POST', 'application/json', JSON.stringify({ question: 'What grew?' })]]);
    assert.equal(ask.answer, askWant.answer);
    assert.ok(askWant.answer.length > 0);

    // The task's stream is fed by the page's StreamMux.
    assert.equal((await dom(page, 'task')).answer, 'Indexing ');
    await page.evaluate(() =>
      window.mux.apply([
        { type: 'answer_delta', text: 'done.', session_id: 'task-1' },
        { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop', session_id: 'task-1' },
      ]),
    );
    await page.waitForSelector('#task article[data-status="done"]', { timeout: 10_000 });
    assert.equal((await dom(page, 'task')).answer, 'Indexing done.');

    // Regenerate: a second fetch, folded into a fresh state.
    assert.equal(hits.get('/stream'), 1);
    await page.click('#chat button:text("Regenerate")');
    await page.waitForFunction(() => document.querySelector('#chat article').dataset.status === 'streaming', null, { timeout: 10_000 });
    await page.waitForSelector('#chat article[data-status="done"]', { timeout: 30_000 });
    assert.equal(hits.get('/stream'), 2);
    assert.deepEqual(await dom(page, 'chat'), chat);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
