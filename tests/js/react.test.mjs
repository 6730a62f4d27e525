// streamroute/react: the hooks with the real `react` and `react-dom` from npm. In Node: the
// entry imports without a DOM (ESM and CommonJS) and renders on the server. In headless
// Chromium: a page bundled with esbuild (React in the bundle, 'streamroute/client' the packed
// package's browser entry through an import map, so the hooks and the page share its one wasm
// instance) renders event streams written by toSse from the main entry, and a server that
// records every request and every connection the page closed checks the aborts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as sr from 'streamroute';
import { build as viteBuild, createServer as viteServer } from 'vite';
import { JS_DIR, PKG_DIR, ROOT, fileUnder, launchChromium, listen, sendFile } from './helpers/runtimes.mjs';
import { NONCE, SAMPLES, replay } from './helpers/streams.mjs';
import { PROFILES, fold, routed, wireText } from './helpers/client-roundtrip.mjs';

const esbuild = createRequire(join(ROOT, 'scripts', 'package.json'))('esbuild');
const TMP = join(JS_DIR, '.tmp', 'react');

test('Node: streamroute/react imports without a DOM (ESM and CommonJS) and exports the two hooks', () => {
  mkdirSync(TMP, { recursive: true });
  writeFileSync(
    join(TMP, 'exports.mjs'),
    `
    if (typeof window !== 'undefined' || typeof document !== 'undefined') throw new Error('a DOM in Node');
    const esm = await import('streamroute/react');
    const { createRequire } = await import('node:module');
    const cjs = createRequire(import.meta.url)('streamroute/react');
    const client = createRequire(import.meta.url)('streamroute/client');
    console.log(JSON.stringify({ esm: Object.keys(esm).sort(), cjs: Object.keys(cjs).filter((k) => k !== '__esModule').sort(),
      names: [esm.useSseStream.name, esm.useStreamState.name], sameHooks: typeof cjs.useSseStream === 'function' }));
    void client;
  `,
  );
  const out = JSON.parse(execFileSync(process.execPath, [join(TMP, 'exports.mjs')], { cwd: TMP, encoding: 'utf8' }));
  assert.deepEqual(out, {
    esm: ['useSseStream', 'useStreamState'],
    cjs: ['useSseStream', 'useStreamState'],
    names: ['useSseStream', 'useStreamState'],
    sameHooks: true,
  });
});

test('Node: server rendering shows the state as it is and fetches nothing; a missing or unknown profile is invalid_option', async () => {
  const { createElement: h } = await import('react');
  const { renderToString } = await import('react-dom/server');
  const { StreamState, StreamrouteError } = await import('streamroute/client');
  const { useSseStream, useStreamState } = await import('streamroute/react');
  const state = new StreamState();
  state.apply([
    { type: 'answer_delta', text: 'Hello ' },
    { type: 'answer_delta', text: 'there.' },
  ]);
  const Manual = () => h('p', { 'data-status': useStreamState(state).status }, useStreamState(state, { throttleMs: 50 }).answer);
  assert.equal(renderToString(h(Manual)), '<p data-status="streaming">Hello there.</p>');
  let calls = 0;
  const request = () => {
    calls++;
    return Promise.reject(new Error('no fetch on the server'));
  };
  const Streamed = ({ options }) => {
    const { snapshot, stop, restart } = useSseStream(request, options);
    return h('p', { 'data-status': snapshot.status }, `${snapshot.answer}|${typeof stop}|${typeof restart}`);
  };
  assert.equal(renderToString(h(Streamed, { options: { profile: 'ai-sdk' } })), '<p data-status="streaming">|function|function</p>');
  assert.equal(calls, 0);
  for (const options of [undefined, {}, { profile: 'openai' }, { profile: 42 }]) {
    assert.throws(
      () => renderToString(h(Streamed, { options })),
      (e) =>
        e instanceof StreamrouteError &&
        e.code === 'invalid_option' &&
        /profile must be "planner", "tagged", "ai-sdk" or "ag-ui"/.test(e.message),
      JSON.stringify(options),
    );
  }
});

const PAGE = `<!doctype html><meta charset="utf-8"><title>streamroute/react</title><link rel="icon" href="data:,">
<script type="importmap">{ "imports": { "streamroute/client": "/streamroute/dist/client/browser.js" } }</script>
<div id="root"></div><script type="module" src="/app.js"></script>`;

// The page: components over the hooks, and `window.app` to mount them, plus counters (renders
// per component, StreamState.free calls, the signals a request function was given).
const APP = `
import { StrictMode, useState } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { StreamState, init } from 'streamroute/client';
import { useSseStream, useStreamState } from 'streamroute/react';

await init();
window.renders = {};
window.freed = 0;
window.signals = [];
const free = StreamState.prototype.free;
StreamState.prototype.free = function () {
  window.freed++;
  return free.call(this);
};
const count = (name) => (window.renders[name] = (window.renders[name] ?? 0) + 1);

function View({ name, snapshot }) {
  return (
    <article data-name={name} data-status={snapshot.status}>
      <p className="answer">{snapshot.answer}</p>
      <p className="reasoning">{snapshot.thinking.reasoning}</p>
      <ul>
        {snapshot.toolCalls.map((t) => (
          <li key={t.index} data-state={t.state}>{t.name} {JSON.stringify(t.arguments ?? t.partialArguments ?? {})}</li>
        ))}
      </ul>
      {snapshot.errors.map((e, i) => <p key={i} role="alert">{e.code}: {e.message}</p>)}
    </article>
  );
}

function Streamed({ request, options }) {
  count('streamed');
  const { snapshot, stop, restart } = useSseStream(request, options);
  window.controls = { stop, restart };
  return <View name="streamed" snapshot={snapshot} />;
}

function Manual({ name, state, throttleMs }) {
  count(name);
  const snapshot = useStreamState(state, throttleMs === undefined ? undefined : { throttleMs });
  return <View name={name} snapshot={snapshot} />;
}

const root = createRoot(document.getElementById('root'));
const show = (element, strict) => flushSync(() => root.render(strict ? <StrictMode>{element}</StrictMode> : element));
const requests = new Map();
window.app = {
  // request: a URL string; { fn: url } a function fetching it (the same function per url);
  // { url } a new URL object each time; { request: url } a new Request each time; { fail:
  // message } a function that rejects.
  stream(request, options, strict = false) {
    if (request.fn) {
      if (!requests.has(request.fn)) {
        const url = request.fn;
        requests.set(url, (signal) => {
          window.signals.push(signal);
          return fetch(url, { signal });
        });
      }
      request = requests.get(request.fn);
    } else if (request.url) {
      request = new URL(request.url, location.href);
    } else if (request.request) {
      request = new Request(request.request);
    } else if (request.fail) {
      const message = request.fail;
      request = () => Promise.reject(new TypeError(message));
    }
    show(<Streamed request={request} options={options} />, strict);
  },
  manual(throttleMs) {
    window.states = { plain: new StreamState(), throttled: new StreamState() };
    show(
      <>
        <Manual name="plain" state={window.states.plain} />
        <Manual name="throttled" state={window.states.throttled} throttleMs={throttleMs} />
      </>,
    );
  },
  unmount() {
    show(null);
  },
};
window.ready = true;
`;

const dom = (page, name = 'streamed') =>
  page.evaluate((name) => {
    const a = document.querySelector(`article[data-name="${name}"]`);
    return (
      a && {
        status: a.dataset.status,
        answer: a.querySelector('.answer').textContent,
        reasoning: a.querySelector('.reasoning').textContent,
        tools: [...a.querySelectorAll('li')].map((li) => [li.dataset.state, li.textContent]),
        alerts: [...a.querySelectorAll('[role="alert"]')].map((p) => p.textContent),
      }
    );
  }, name);

/** Waits until `check()` is true (polling), or fails with `what`. */
async function until(check, what, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('Chromium: useSseStream renders streams, aborts on unmount, on a new request and on stop, restarts fresh; useStreamState throttles', {
  timeout: 120_000,
}, async (t) => {
  mkdirSync(TMP, { recursive: true });
  writeFileSync(join(TMP, 'app.jsx'), APP);
  const built = await esbuild.build({
    entryPoints: [join(TMP, 'app.jsx')],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    external: ['streamroute/client'],
    nodePaths: [join(JS_DIR, 'node_modules')],
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
    metafile: true,
  });
  const app = built.outputFiles[0].text;
  const inputs = Object.keys(built.metafile.inputs);
  // The hooks come from the packed package's dist/react, with one React, and no wasm of their own.
  assert.ok(
    inputs.some((f) => f.endsWith('dist/react/index.js')),
    inputs.join('\n'),
  );
  assert.equal(inputs.filter((f) => /node_modules\/react\/cjs\/react\.production/.test(f)).length, 1, inputs.join('\n'));
  assert.ok(!inputs.some((f) => /dist\/client\//.test(f)), 'the client entry stays external');

  const sample = SAMPLES.find((s) => s.file === 'openai-chat-tools.sse');
  const events = routed(sr, sample.bytes, sample.content, NONCE);
  const want = fold(sr, events);
  const wires = Object.fromEntries(
    await Promise.all(PROFILES.map(async (p) => [p, new TextEncoder().encode(await wireText(sr, events, p))])),
  );
  assert.ok(want.toolCalls.length === 2 && want.answer.length > 0 && want.thinking.reasoning.length > 0);

  // What the server saw: requests by path, connections closed before the response ended.
  const hits = new Map();
  const closed = new Set();
  const finished = new Map();
  const server = await listen(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const path = url.pathname + url.search;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.on('close', () => {
      if (!res.writableFinished) closed.add(path);
      else finished.set(path, (finished.get(path) ?? 0) + 1);
    });
    if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (url.pathname === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(app);
    const wire = /^\/wire\/([a-z-]+)$/.exec(url.pathname);
    if (wire) return replay(res, wires[wire[1]], 29, 1);
    // One planner frame, then the connection stays open until the client closes it.
    const hang = /^\/hang\/(\w+)$/.exec(url.pathname);
    if (hang) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(await wireText(sr, [{ type: 'answer_delta', text: `hang ${hang[1]}.` }], 'planner'));
      return;
    }
    // One frame, then the body ends with no done: with an error frame before the end, or not.
    const cut = /^\/cut\/(plain|error)$/.exec(url.pathname);
    if (cut) {
      const events = [{ type: 'answer_delta', text: 'cut.' }];
      if (cut[1] === 'error') events.push({ type: 'error', code: 'overloaded', message: 'try later', provider_code: null });
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(await wireText(sr, events, 'planner'));
      return;
    }
    const status = /^\/status\/(\d+)$/.exec(url.pathname);
    if (status) return res.writeHead(Number(status[1]), { 'content-type': 'text/plain' }).end('unavailable');
    sendFile(res, url.pathname.startsWith('/streamroute/') ? fileUnder(PKG_DIR, url.pathname.slice('/streamroute/'.length)) : null);
  });
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e?.stack ?? e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.origin}/`, { waitUntil: 'load' });
    await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
    const app = (method, ...args) => page.evaluate(([method, args]) => window.app[method](...args), [method, args]);
    const textIs = (text) => until(async () => (await dom(page))?.answer === text, `the answer ${JSON.stringify(text)}`);

    await t.test('each profile: the DOM shows what StreamState folds from the routed events', async () => {
      for (const profile of PROFILES) {
        await app('unmount');
        await app('stream', `/wire/${profile}`, { profile });
        await page.waitForSelector('article[data-status="done"]', { timeout: 15_000 });
        const got = await dom(page);
        assert.equal(got.answer, want.answer, profile);
        assert.equal(got.reasoning, want.thinking.reasoning, profile);
        assert.deepEqual(
          got.tools,
          want.toolCalls.map((c) => ['input-available', `${c.name} ${JSON.stringify(c.arguments)}`]),
          profile,
        );
        assert.deepEqual(got.alerts, [], profile);
      }
      // Under StrictMode the effect runs twice: the first fetch is aborted, the second folds into a fresh state.
      await app('unmount');
      await app('stream', '/wire/ai-sdk', { profile: 'ai-sdk', throttleMs: 16 }, true);
      await page.waitForSelector('article[data-status="done"]', { timeout: 15_000 });
      assert.equal((await dom(page)).answer, want.answer);
    });

    await t.test(
      'unmounting aborts the fetch (the server sees the connection closed, the signal aborted) and frees the state',
      async () => {
        await app('unmount');
        await app('stream', '/hang/a', { profile: 'planner' });
        await textIs('hang a.');
        const freed = await page.evaluate(() => window.freed);
        await app('unmount');
        await until(() => closed.has('/hang/a'), 'the server to see /hang/a closed');
        assert.ok((await page.evaluate(() => window.freed)) > freed, 'state.free() on unmount');

        await app('stream', { fn: '/hang/b' }, { profile: 'planner' });
        await textIs('hang b.');
        assert.deepEqual(await page.evaluate(() => window.signals.map((s) => s.aborted)), [false]);
        await app('unmount');
        assert.deepEqual(await page.evaluate(() => window.signals.map((s) => s.aborted)), [true]);
        await until(() => closed.has('/hang/b'), 'the server to see /hang/b closed');
      },
    );

    await t.test('a new request aborts the old one and starts from a fresh state; the same URL again does not refetch', async () => {
      await app('unmount');
      await app('stream', '/hang/c', { profile: 'planner' });
      await textIs('hang c.');
      await app('stream', '/hang/d', { profile: 'planner' });
      await textIs('hang d.');
      await until(() => closed.has('/hang/c'), 'the server to see /hang/c closed');
      // The same URL again (a string, then new URL objects with the same text): the same request.
      await app('stream', '/hang/d', { profile: 'planner' });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(hits.get('/hang/d'), 1);
      assert.ok(!closed.has('/hang/d'));
      await app('stream', { url: '/hang/g' }, { profile: 'planner' });
      await textIs('hang g.');
      await app('stream', { url: '/hang/g' }, { profile: 'planner' });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(hits.get('/hang/g'), 1);
      assert.ok(!closed.has('/hang/g'));
      // A Request is compared by identity: a new Request object is a new request.
      await app('stream', { request: '/hang/e' }, { profile: 'planner' });
      await textIs('hang e.');
      await until(() => closed.has('/hang/d') && closed.has('/hang/g'), 'the server to see /hang/d and /hang/g closed');
      await app('stream', { request: '/hang/e' }, { profile: 'planner' });
      await until(() => hits.get('/hang/e') === 2 && closed.has('/hang/e'), 'a second fetch of /hang/e and the first closed');
      await textIs('hang e.');
      await app('unmount');
    });

    await t.test('stop() aborts and keeps what arrived; restart() fetches again into a fresh state', async () => {
      await app('stream', '/hang/f', { profile: 'planner' });
      await textIs('hang f.');
      await page.evaluate(() => window.controls.stop());
      await until(() => closed.has('/hang/f'), 'the server to see /hang/f closed');
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(await dom(page), { status: 'streaming', answer: 'hang f.', reasoning: '', tools: [], alerts: [] });
      await page.evaluate(() => window.controls.restart());
      await until(() => hits.get('/hang/f') === 2, 'a second fetch of /hang/f');
      await textIs('hang f.');

      await app('unmount');
      await app('stream', '/wire/tagged?restart', { profile: 'tagged' });
      await page.waitForSelector('article[data-status="done"]', { timeout: 15_000 });
      assert.equal(hits.get('/wire/tagged?restart'), 1);
      await page.evaluate(() => window.controls.restart());
      await until(() => hits.get('/wire/tagged?restart') === 2, 'a second fetch of /wire/tagged?restart');
      await page.waitForSelector('article[data-status="done"]', { timeout: 15_000 });
      const got = await dom(page);
      assert.equal(got.answer, want.answer, 'the restarted stream is folded into a fresh state, not appended');
      assert.equal(got.tools.length, want.toolCalls.length);
      await app('unmount');
    });

    await t.test('a non-2xx response folds http_error, a failed fetch or a body cut before done network', async () => {
      await app('stream', '/status/503', { profile: 'ai-sdk' });
      await page.waitForSelector('article[data-status="error"]', { timeout: 10_000 });
      assert.deepEqual((await dom(page)).alerts, ['http_error: HTTP 503 Service Unavailable']);
      await app('stream', { fail: 'offline' }, { profile: 'ai-sdk' });
      await until(async () => (await dom(page))?.alerts[0] === 'network: offline', 'the network error');
      assert.equal((await dom(page)).status, 'error');
      await app('stream', '/cut/plain', { profile: 'planner' });
      await until(async () => (await dom(page))?.status === 'error', 'the cut stream failed');
      assert.deepEqual(await dom(page), {
        status: 'error',
        answer: 'cut.',
        reasoning: '',
        tools: [],
        alerts: ['network: the stream ended before its done event'],
      });
      // The stream's own error says it: nothing is added.
      await app('stream', '/cut/error', { profile: 'planner' });
      await until(async () => (await dom(page))?.status === 'error', 'the stream with an error failed');
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual((await dom(page)).alerts, ['overloaded: try later']);
      await app('unmount');
    });

    await t.test('useStreamState renders a state applied by hand', async () => {
      await app('manual', 100);
      await page.evaluate(() => {
        window.states.plain.apply({ type: 'answer_delta', text: 'Hello ' });
        window.states.plain.apply([
          { type: 'answer_delta', text: 'world.' },
          { type: 'done', ok: true, parse_ok: true, finish_reason: 'stop', finish: 'stop' },
        ]);
      });
      await until(async () => (await dom(page, 'plain'))?.status === 'done', 'the plain state done');
      assert.equal((await dom(page, 'plain')).answer, 'Hello world.');
    });

    await t.test('throttleMs: fewer renders for the same deltas, and the last change is rendered', async (t) => {
      const supported = await page.evaluate(async () => {
        const { StreamState } = await import('streamroute/client');
        const s = new StreamState();
        let heard = 0;
        s.subscribe(() => heard++, { throttleMs: 1000 });
        s.apply({ type: 'answer_delta', text: 'a' });
        s.apply({ type: 'answer_delta', text: 'b' });
        return heard < 2;
      });
      if (!supported) {
        t.skip('StreamState.subscribe ignores { throttleMs } in this build: useStreamState re-renders on every change');
        return;
      }
      await app('manual', 100);
      const renders = await page.evaluate(async () => {
        const before = { ...window.renders };
        for (let i = 0; i < 40; i++) {
          window.states.plain.apply({ type: 'answer_delta', text: `${i} ` });
          window.states.throttled.apply({ type: 'answer_delta', text: `${i} ` });
          await new Promise((r) => setTimeout(r, 5));
        }
        await new Promise((r) => setTimeout(r, 400));
        return { plain: window.renders.plain - before.plain, throttled: window.renders.throttled - before.throttled };
      });
      const text = Array.from({ length: 40 }, (_, i) => `${i} `).join('');
      assert.equal((await dom(page, 'throttled')).answer, text);
      assert.equal((await dom(page, 'plain')).answer, text);
      assert.ok(renders.plain >= 20, JSON.stringify(renders));
      assert.ok(renders.throttled * 3 <= renders.plain, JSON.stringify(renders));
    });

    // The console logs the 503 the page asked for; nothing else.
    assert.deepEqual(
      errors.filter((e) => !/status of 503/.test(e)),
      [],
    );
  } finally {
    await browser.close();
    await server.close();
  }
});

// A Vite app, as a frontend user builds one (the tarball installed with npm; react from
// tests/js/node_modules): `vite build`, and the dev server with its dependency pre-bundling,
// must give the hooks the page's copy of 'streamroute/client'. A stream with tool calls proves
// it: StreamState parses their arguments with PartialJson, whose wasm only the page's
// `await init()` loaded; a second copy of the client would have its own, never loaded.
const VITE_APP = join(JS_DIR, '.tmp', 'react-vite');
const VITE_MAIN = `
import { createRoot } from 'react-dom/client';
import { init } from 'streamroute/client';
import { useSseStream } from 'streamroute/react';

function Chat() {
  const { snapshot } = useSseStream('/stream', { profile: 'ai-sdk' });
  return (
    <article data-status={snapshot.status}>
      <p className="answer">{snapshot.answer}</p>
      <ul>{snapshot.toolCalls.map((t) => <li key={t.index}>{t.name} {JSON.stringify(t.partialArguments)}</li>)}</ul>
      {snapshot.errors.map((e, i) => <p key={i} role="alert">{e.code}: {e.message}</p>)}
    </article>
  );
}

await init();
createRoot(document.getElementById('root')).render(<Chat />);
`;

test('Vite (build, and the dev server with pre-bundling): the hooks and the page share one client entry and its wasm', {
  timeout: 180_000,
}, async (t) => {
  rmSync(VITE_APP, { recursive: true, force: true });
  mkdirSync(VITE_APP, { recursive: true });
  const tgz = readdirSync(join(JS_DIR, '.tmp')).find((f) => /^streamroute-.*\.tgz$/.test(f));
  assert.ok(tgz, 'setup-consumer.sh packed the package');
  writeFileSync(
    join(VITE_APP, 'package.json'),
    JSON.stringify({
      name: 'react-vite-app',
      private: true,
      type: 'module',
      dependencies: { streamroute: `file:../${tgz}` },
    }),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: VITE_APP, stdio: 'pipe' });
  writeFileSync(
    join(VITE_APP, 'index.html'),
    '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><div id="root"></div><script type="module" src="/main.jsx"></script></body></html>',
  );
  writeFileSync(join(VITE_APP, 'main.jsx'), VITE_MAIN);

  const sample = SAMPLES.find((s) => s.file === 'openai-chat-tools.sse');
  const events = routed(sr, sample.bytes, sample.content, NONCE);
  const want = fold(sr, events);
  const wire = new TextEncoder().encode(await wireText(sr, events, 'ai-sdk'));
  const config = { root: VITE_APP, logLevel: 'silent', esbuild: { jsx: 'automatic' } };

  const browser = await launchChromium();
  const check = async (origin) => {
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e?.stack ?? e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    try {
      await page.goto(`${origin}/`);
      await page.waitForSelector('article[data-status="done"], article[data-status="error"]', { timeout: 30_000 });
      const got = await page.evaluate(() => ({
        status: document.querySelector('article').dataset.status,
        answer: document.querySelector('.answer').textContent,
        tools: [...document.querySelectorAll('li')].map((li) => li.textContent),
        alerts: [...document.querySelectorAll('[role="alert"]')].map((p) => p.textContent),
        wasm: performance.getEntriesByType('resource').filter((r) => /\.wasm(\?|$)/.test(r.name)).length,
      }));
      assert.deepEqual(errors, []);
      assert.deepEqual(got, {
        status: 'done',
        answer: want.answer,
        alerts: [],
        wasm: 1,
        tools: want.toolCalls.map((c) => `${c.name} ${JSON.stringify(c.arguments)}`),
      });
    } finally {
      await page.close();
    }
  };
  try {
    await t.test('vite build', async () => {
      await viteBuild({ ...config, build: { outDir: 'dist', emptyOutDir: true } });
      const server = await listen((req, res) => {
        const path = new URL(req.url, 'http://x').pathname;
        if (path === '/stream') return replay(res, wire, 23, 1);
        sendFile(res, fileUnder(join(VITE_APP, 'dist'), path === '/' ? 'index.html' : path.slice(1)));
      });
      try {
        await check(server.origin);
      } finally {
        await server.close();
      }
    });
    await t.test('the Vite dev server', async () => {
      const stream = {
        name: 'stream',
        configureServer(server) {
          server.middlewares.use((req, res, next) => (req.url === '/stream' ? replay(res, wire, 23, 1) : next()));
        },
      };
      const server = await viteServer({ ...config, plugins: [stream], server: { host: '127.0.0.1', port: 0, hmr: false } });
      await server.listen();
      try {
        await check(`http://127.0.0.1:${server.httpServer.address().port}`);
      } finally {
        await server.close();
      }
    });
  } finally {
    await browser.close();
  }
});
