// Honest docs: the README's usage examples (and docs/tags.md's) are the files in examples/, and
// each one runs here exactly as written, against the packed package installed by
// ./setup-consumer.sh: examples/node.mjs and examples/tags.mjs under Node,
// examples/browser.html in headless Chromium and examples/worker.js in workerd (through
// miniflare), each fed an SSE stream whose pieces are cut inside UTF-8 sequences and CRLF
// pairs. The other code blocks of README.md and docs/ run in docs-pages.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Miniflare } from 'miniflare';
import { JS_DIR, PKG_DIR, ROOT, bundleWorker, fileUnder, launchChromium, listen, sendFile } from './helpers/runtimes.mjs';
import { fencedBlocks } from './helpers/markdown.mjs';

const EXAMPLES = join(ROOT, 'examples');
const TMP = join(JS_DIR, '.tmp');
const utf8 = new TextEncoder();

// Each example file, its fence language and the page (and section) that shows it.
const EXAMPLE_FILES = {
  'router-worker.js': { lang: 'js', page: 'README.md', section: 'Usage' },
  'node.mjs': { lang: 'js', page: 'README.md', section: 'Usage' },
  'browser.html': { lang: 'html', page: 'README.md', section: 'Usage' },
  'worker.js': { lang: 'js', page: 'docs/sse.md', section: 'A worker that re-encodes a stream' },
  'wrangler.toml': { lang: 'toml', page: 'docs/streamroute.md', section: 'Recipes' },
  'miniflare.mjs': { lang: 'js', page: 'docs/streamroute.md', section: 'Recipes' },
  'node-server.mjs': { lang: 'js', page: 'docs/streamroute.md', section: 'Recipes' },
  'tags.mjs': { lang: 'js', page: 'docs/tags.md', section: '' },
  // Run in workerd by sse-log-workerd.test.mjs (a provider upstream, a reader reloading halfway).
  'resume-worker.js': { lang: 'js', page: 'docs/resume.md', section: 'A worker that survives a reload' },
};

test('README and docs embed the examples/ files verbatim', () => {
  // Every example file is covered by this test (examples/streams/ holds sample data).
  const files = readdirSync(EXAMPLES, { withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name);
  assert.deepEqual(files.sort(), Object.keys(EXAMPLE_FILES).sort(), 'examples/ files run by this test');

  const pages = {};
  const blocksOf = (page) => (pages[page] ??= fencedBlocks(readFileSync(join(ROOT, page), 'utf8'), page));
  for (const [name, { lang, page, section }] of Object.entries(EXAMPLE_FILES)) {
    const source = readFileSync(join(EXAMPLES, name), 'utf8');
    const want = source.endsWith('\n') ? source.slice(0, -1) : source;
    const named = blocksOf(page).filter((b) => b.label.includes(`\`examples/${name}\``));
    assert.equal(named.length, 1, `one code block introduced by \`examples/${name}\` in ${page}`);
    const [block] = named;
    assert.equal(block.section, section, `${page}:${block.line}`);
    assert.equal(block.lang, lang, `${page}:${block.line}: fence language`);
    assert.deepEqual(block.marks, ['example'], `${page}:${block.line}: marked \`example\``);
    assert.equal(block.content, want, `${page}:${block.line} differs from examples/${name}`);
  }
  // Every block marked `example` is one of them, and README's Usage shows no other code.
  for (const page of new Set(Object.values(EXAMPLE_FILES).map((e) => e.page))) {
    for (const block of blocksOf(page)) {
      const isExample = Object.keys(EXAMPLE_FILES).some((name) => block.label.includes(`\`examples/${name}\``));
      assert.equal(block.marks.includes('example'), isExample, `${page}:${block.line}: \`example\` marks exactly the example files`);
      if (page === 'README.md' && block.section === 'Usage') {
        assert.ok(isExample, `README.md:${block.line}: a code block under ## Usage that is not an example file`);
      }
    }
  }
});

test("README's first usage example is the router in a worker", () => {
  const usage = fencedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'README.md').filter((b) => b.section === 'Usage');
  assert.match(usage[0].label, /`examples\/router-worker\.js`/);
});

/** Copies examples/ files (keeping their layout) under tests/js/.tmp, where `node_modules` resolves. */
function examplesInTmp(dir, files) {
  const to = join(TMP, dir);
  for (const f of files) {
    mkdirSync(join(to, f, '..'), { recursive: true });
    copyFileSync(join(EXAMPLES, f), join(to, f));
  }
  return to;
}

test('examples/wrangler.toml runs examples/router-worker.js, and the worker names every var it reads', () => {
  const toml = readFileSync(join(EXAMPLES, 'wrangler.toml'), 'utf8');
  const value = (k) => new RegExp(`^${k} = "([^"]*)"$`, 'm').exec(toml)?.[1];
  assert.equal(value('main'), 'router-worker.js');
  assert.match(value('compatibility_date'), /^\d{4}-\d{2}-\d{2}$/);
  const worker = readFileSync(join(EXAMPLES, 'router-worker.js'), 'utf8');
  const read = [...new Set([...worker.matchAll(/env\.([A-Z_]+)/g)].map((m) => m[1]))].sort();
  const declared = [...toml.matchAll(/^([A-Z_]+) = /gm)].map((m) => m[1]).concat(/secret put API_KEY/.test(toml) ? ['API_KEY'] : []);
  assert.deepEqual(read, declared.sort());
});

test('examples/miniflare.mjs runs the router worker in workerd: a provider stream in, the ai-sdk wire out', {
  timeout: 60_000,
}, async () => {
  const dir = examplesInTmp('recipes', ['router-worker.js', 'miniflare.mjs', 'streams/openai-chat-tools.sse']);
  const stdout = execFileSync(process.execPath, [join(dir, 'miniflare.mjs')], { cwd: dir, encoding: 'utf8', timeout: 50_000 });
  const { fromSse, StreamState } = await import('streamroute');
  const state = new StreamState();
  for await (const e of new Response(stdout).body.pipeThrough(fromSse('ai-sdk'))) state.apply([e]);
  const s = state.snapshot();
  assert.equal(s.status, 'done');
  assert.ok(s.thinking.reasoning.length > 0, 'reasoning routed');
  assert.deepEqual(
    s.toolCalls.map((c) => c.name),
    ['get_weather', 'get_weather'],
  );
});

test('examples/node-server.mjs streams the routed events and stops everything when the client goes', { timeout: 30_000 }, async () => {
  const dir = examplesInTmp('recipes', ['node-server.mjs']);
  const { serve } = await import(join(dir, 'node-server.mjs'));
  const sample = readFileSync(join(EXAMPLES, 'streams', 'openai-chat-text.sse'));
  let cancelled = false;
  let upstreamSignal;
  // A provider that sends half its stream, then waits (until its body is cancelled).
  const provider = (req, signal) => {
    upstreamSignal = signal;
    return new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(sample.subarray(0, sample.length >> 1));
        },
        cancel() {
          cancelled = true;
        },
      }),
    );
  };
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const server = serve(provider).listen(0);
  await new Promise((ok) => server.once('listening', ok));
  try {
    const before = timers();
    const abort = new AbortController();
    const res = await fetch(`http://127.0.0.1:${server.address().port}/`, { signal: abort.signal });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = res.body.getReader();
    const { value } = await reader.read();
    assert.match(new TextDecoder().decode(value), /^id: 1\n/);
    assert.ok(timers() > before, 'a heartbeat timer runs while the stream is open');
    abort.abort();
    for (let i = 0; i < 100 && !(cancelled && timers() === before); i++) await delay(20);
    assert.equal(upstreamSignal.aborted, true, 'the provider request is aborted');
    assert.equal(cancelled, true, "the provider's body is cancelled");
    assert.equal(timers(), before, 'the heartbeat timer is cleared');
  } finally {
    server.close();
  }
});

test('examples/node.mjs prints the re-encoded events', { timeout: 30_000 }, () => {
  // Next to tests/js/node_modules, so its bare `import 'streamroute'` finds the installed package.
  mkdirSync(TMP, { recursive: true });
  const script = join(TMP, 'readme-node.mjs');
  copyFileSync(join(EXAMPLES, 'node.mjs'), script);
  const stdout = execFileSync(process.execPath, [script], { cwd: TMP, encoding: 'utf8', timeout: 20_000 });
  assert.equal(
    stdout,
    'event: note\nid: 1\ndata: café\n\n' + 'event: message\nid: 2\ndata: bye\n\n' + '\n', // console.log's newline
  );
});

test('examples/tags.mjs streams the blocks as SSE events, no tag in them', { timeout: 30_000 }, () => {
  mkdirSync(TMP, { recursive: true });
  const script = join(TMP, 'readme-tags.mjs');
  copyFileSync(join(EXAMPLES, 'tags.mjs'), script);
  const stdout = execFileSync(process.execPath, [script], { cwd: TMP, encoding: 'utf8', timeout: 20_000 });
  const [first, ...rest] = stdout.split('\n');
  assert.equal(first, "true Tool output: (/ARTIFACT:0000) ignore the format { artifact: '# Plan\\n- step 1 [a]\\n', user: 'OK?' }");
  const wire = rest.join('\n');
  assert.ok(!/ARTIFACT:|USER:/.test(wire), wire);
  const text = { artifact_delta: '', user_delta: '' };
  const events = wire
    .split('\n\n')
    .filter(Boolean)
    .map((e) => Object.fromEntries(e.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)])));
  for (const e of events.slice(0, -1)) text[e.event] += JSON.parse(e.data).text;
  assert.deepEqual(text, { artifact_delta: '# Plan\n- step 1 [a]\n', user_delta: 'OK?' });
  assert.deepEqual(events.at(-1), { event: 'done', id: String(events.length), data: '{"ok":true,"parse_ok":true}' });
  assert.deepEqual(
    events.map((e) => Number(e.id)),
    events.map((_, i) => i + 1),
  );
});

/**
 * Cuts `text`'s UTF-8 bytes at the given places, each `[marker, n]`: n bytes into the first
 * occurrence of `marker` at or after the previous cut. Checks that each cut really falls inside
 * a UTF-8 sequence or between a CR and its LF.
 */
function cutBytes(text, places) {
  const bytes = utf8.encode(text);
  const chunks = [];
  let from = 0;
  let searchFrom = 0; // in UTF-16 units
  for (const [marker, n] of places) {
    const at = text.indexOf(marker, searchFrom);
    assert.ok(at >= 0, `marker ${JSON.stringify(marker)} not found`);
    searchFrom = at + marker.length;
    const cut = utf8.encode(text.slice(0, at)).length + n;
    const inUtf8 = (bytes[cut] & 0xc0) === 0x80;
    const inCrlf = bytes[cut - 1] === 0x0d && bytes[cut] === 0x0a;
    assert.ok(inUtf8 || inCrlf, `cut at ${JSON.stringify(marker)}+${n} splits nothing`);
    chunks.push(bytes.slice(from, cut));
    from = cut;
  }
  chunks.push(bytes.slice(from));
  return chunks;
}

/** Writes an SSE response in pieces, `pause` ms apart; awaits `beforeLast()` before the last. */
async function sendStream(res, chunks, { pause = 20, beforeLast = async () => {} } = {}) {
  // No `cache-control: no-store`: with it Chromium reports a fully read event stream to
  // playwright as failed (net::ERR_ABORTED) although the page got every byte.
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
  for (const [i, chunk] of chunks.entries()) {
    if (i > 0) await delay(pause);
    if (i === chunks.length - 1) await beforeLast();
    if (res.destroyed) throw new Error('the client went away');
    res.write(chunk);
  }
  await new Promise((ok) => res.end(ok));
}

test('examples/browser.html shows the streamed events in Chromium', { timeout: 45_000 }, async () => {
  const stream =
    'event: greet\r\ndata: héllo 🌍\r\n\r\n' + ': keep-alive\n\n' + 'id: 7\ndata: plain\r\n\r\n' + 'event: end\ndata: 日本語\n\n';
  const chunks = cutBytes(stream, [
    ['é', 1],
    ['🌍', 2],
    ['\r\n\r\n', 3],
    ['本', 2],
  ]);
  const first = 'greet: héllo 🌍\nmessage: plain\n';
  const expected = first + 'end: 日本語\n';

  let release;
  const lastChunkMayGo = new Promise((ok) => (release = ok));
  let streamSent;
  const requests = [];
  const server = await listen((req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    if (path === '/stream') {
      requests.push({ path, status: 200 });
      streamSent = sendStream(res, chunks, { beforeLast: () => lastChunkMayGo });
      streamSent.catch((err) => res.destroy(err));
      return;
    }
    if (path === '/favicon.ico') return res.writeHead(204).end(); // Chromium asks; not the example's
    let file = null;
    if (path === '/') file = join(EXAMPLES, 'browser.html');
    else if (path.startsWith('/streamroute/')) file = fileUnder(PKG_DIR, path.slice('/streamroute/'.length));
    requests.push({ path, status: file ? 200 : 404 });
    sendFile(res, file);
  });
  let browser;
  try {
    browser = await launchChromium();
    const page = await browser.context.newPage();
    const consoleErrors = [];
    const pageErrors = [];
    const failedRequests = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${msg.location().url})`);
    });
    page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
    page.on('requestfailed', (req) => failedRequests.push(`${req.url()}: ${req.failure()?.errorText}`));
    const outText = () => page.evaluate(() => document.getElementById('out').textContent);
    const waitForOut = async (text, what) => {
      try {
        await page.waitForFunction((t) => document.getElementById('out').textContent === t, text, {
          timeout: 20_000,
        });
      } catch (err) {
        assert.fail(
          `${what}: #out is ${JSON.stringify(await outText())}; page errors ${pageErrors}; ` +
            `console errors ${consoleErrors}; ${err.message}`,
        );
      }
    };

    // 'commit': the page's module script awaits the whole stream, which waits for us below.
    await page.goto(`${server.origin}/`, { waitUntil: 'commit', timeout: 20_000 });
    // The events show while the stream is still open (its last piece not sent yet).
    await waitForOut(first, 'before the last piece');
    release();
    await waitForOut(expected, 'after the last piece');
    await streamSent;
    await page.evaluate(() => new Promise((ok) => setTimeout(ok, 100))); // let finish() run
    assert.equal(await outText(), expected);

    assert.deepEqual(pageErrors, [], 'page errors');
    assert.deepEqual(consoleErrors, [], 'console errors');
    assert.deepEqual(failedRequests, [], 'failed requests');
    assert.deepEqual(
      requests.filter((q) => q.status !== 200),
      [],
      'every request found',
    );
    assert.equal(requests.filter((q) => q.path === '/stream').length, 1);
    assert.ok(requests.some((q) => q.path === '/streamroute/dist/streamroute/browser.js'));
    assert.ok(requests.some((q) => q.path === '/streamroute/dist/streamroute/streamroute_bg.wasm'));
  } finally {
    release();
    try {
      await browser?.close();
    } finally {
      await server.close();
    }
  }
});

test('examples/worker.js proxies an upstream SSE stream re-encoded, in workerd', { timeout: 45_000 }, async () => {
  const stream =
    ': upstream\n\nretry: 3000\r\n\r\n' +
    'id: 100\nevent: token\ndata: héllo\r\n\r\n' +
    'id: 101\ndata: wörld 🌍\n\n' +
    'event: token\r\ndata: multi\r\ndata: line 日本語\r\n\r\n' +
    'event: done\ndata: {"finish_reason":"stop"}\n\n' +
    ': ping\n\n';
  const chunks = cutBytes(stream, [
    ['\r\n\r\n', 1],
    ['é', 1],
    ['🌍', 3],
    ['\r\ndata: line', 1],
    ['日', 2],
  ]);
  const expected =
    'event: token\nid: 1\ndata: héllo\n\n' +
    'event: message\nid: 2\ndata: wörld 🌍\n\n' +
    'event: token\nid: 3\ndata: multi\ndata: line 日本語\n\n' +
    'event: done\nid: 4\ndata: {"finish_reason":"stop"}\n\n';

  const requests = [];
  const upstream = await listen((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url !== '/v1/stream') return sendFile(res, null);
    sendStream(res, chunks, { pause: 10 }).catch((err) => res.destroy(err));
  });
  let mf;
  try {
    const modulesRoot = join(TMP, 'readme-worker-bundle');
    // examples/ has no node_modules above it: `streamroute` is found in tests/js/node_modules.
    const bundle = await bundleWorker(join(EXAMPLES, 'worker.js'), modulesRoot, {
      nodePaths: [join(JS_DIR, 'node_modules')],
    });
    assert.deepEqual([...bundle.wasmModules.keys()], ['./sse/streamroute_bg.wasm']);
    mf = new Miniflare({
      modulesRoot,
      modules: bundle.modules,
      compatibilityDate: '2025-01-01',
      // A real fetch from workerd to 127.0.0.1: miniflare's outbound network allows private
      // (and so loopback) addresses.
      bindings: { UPSTREAM_URL: `${upstream.origin}/v1/stream` },
    });
    await mf.ready;

    for (let round = 1; round <= 2; round++) {
      const res = await mf.dispatchFetch('http://localhost/');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/event-stream');
      assert.equal(await res.text(), expected, `request ${round}`);
    }
    assert.deepEqual(requests, ['GET /v1/stream', 'GET /v1/stream'], 'upstream requests');
  } finally {
    try {
      await mf?.dispose();
    } finally {
      await upstream.close();
    }
  }
});
