// The packed package inside a real workerd (through miniflare). The worker
// tests/js/worker/worker.js imports the bare specifier `streamroute`; like wrangler, the test
// bundles it with esbuild under the `workerd` condition, which resolves the package's
// `exports["."].workerd` (dist/streamroute/workerd.js), and `streamroute/planning` its own
// entry's. Each entry imports its `./streamroute_bg.wasm`; the .wasm is not bundled: an esbuild plugin marks it external and renames the import to a
// module name next to the bundle, and miniflare gets it as a separate `CompiledWasm` module
// (workerd forbids compiling wasm from bytes at run time). Run after ./setup-consumer.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Miniflare } from 'miniflare';
import { SseDecoder, SseEncoder } from 'streamroute';
import { JS_DIR, PKG_DIR, bundleWorker } from './helpers/runtimes.mjs';
import { MISUSE_CODES } from './helpers/misuse.mjs';
import { PROFILES } from './helpers/client-roundtrip.mjs';

const WORKER = join(JS_DIR, 'worker', 'worker.js');
// Where the bundled modules live for workerd: names are paths relative to this root. Nothing
// is written there; every module's contents are passed in memory.
const MODULES_ROOT = join(JS_DIR, '.tmp', 'worker-bundle');

let mf;
let bundle;

before(async () => {
  bundle = await bundleWorker(WORKER, MODULES_ROOT);
  mf = new Miniflare({
    modulesRoot: MODULES_ROOT,
    modules: bundle.modules,
    compatibilityDate: '2025-01-01',
  });
  await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

test('esbuild resolves `streamroute` through its workerd export condition', () => {
  const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['.'].workerd, './dist/streamroute/workerd.js');
  assert.equal(pkg.exports['./planning'].workerd, './dist/planning/workerd.js');
  const fromPkg = bundle.inputs
    .map((p) => relative(PKG_DIR, realpathSync(resolve(process.cwd(), p))))
    .filter((p) => !p.startsWith('..'))
    .sort();
  for (const dir of ['streamroute', 'planning']) {
    assert.ok(fromPkg.includes(join('dist', dir, 'workerd.js')), `inputs: ${fromPkg}`);
    assert.ok(!fromPkg.includes(join('dist', dir, 'browser.js')), `inputs: ${fromPkg}`);
    assert.ok(!fromPkg.includes(join('dist', dir, 'node.js')), `inputs: ${fromPkg}`);
  }
  assert.deepEqual([...bundle.wasmModules].map(([name, file]) => [name, relative(PKG_DIR, file)]).sort(), [
    ['./planning/streamroute_bg.wasm', join('dist', 'planning', 'streamroute_bg.wasm')],
    ['./streamroute/streamroute_bg.wasm', join('dist', 'streamroute', 'streamroute_bg.wasm')],
  ]);
  assert.match(bundle.code, /from "\.\/streamroute\/streamroute_bg\.wasm"/);
  assert.match(bundle.code, /from "\.\/planning\/streamroute_bg\.wasm"/);
});

const INPUT_EVENTS = [
  { event: 'message', data: 'first' },
  { event: 'token', data: 'héllo wörld 🌍' },
  { event: 'token', data: 'multi\nline\n\ndata with 日本語' },
  { event: 'message', data: '' },
  { event: 'done', data: '{"finish_reason":"stop"}' },
];

/** The raw request stream: original ids (to be replaced), comments, CRLF and LF line ends. */
function rawStream() {
  const enc = new SseEncoder({ autoId: true, firstId: 100 });
  let text = enc.comment('upstream') + 'retry: 3000\r\n\r\n';
  INPUT_EVENTS.forEach((e, i) => {
    let wire = enc.encode(e.event === 'message' ? { data: e.data } : e);
    if (i % 2 === 1) wire = wire.replaceAll('\n', '\r\n');
    text += wire;
  });
  return new TextEncoder().encode(text + enc.ping());
}

/** A request body that arrives in small pieces (cutting UTF-8 sequences and CRLF pairs). */
function chunkedBody(bytes, size) {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

function decodeAll(text) {
  const dec = new SseDecoder({});
  const events = [...dec.feed(text), ...dec.finish()];
  return { events, lastEventId: dec.lastEventId };
}

const EXPECTED = INPUT_EVENTS.map((e, i) => ({ ...e, id: String(i + 1) }));

test('worker re-encodes a chunked SSE request body with ids 1..n', { timeout: 30_000 }, async () => {
  const bytes = rawStream();
  // Sanity: the raw stream decodes in Node to the input events with the upstream ids.
  assert.deepEqual(
    decodeAll(new TextDecoder().decode(bytes)).events,
    INPUT_EVENTS.map((e, i) => ({ ...e, id: String(100 + i) })),
  );

  for (const size of [1, 3, 7, 64, bytes.length]) {
    const res = await mf.dispatchFetch('http://localhost/reencode', {
      method: 'POST',
      headers: { 'content-type': 'text/event-stream' },
      body: chunkedBody(bytes, size),
      duplex: 'half',
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const text = await res.text();
    const { events, lastEventId } = decodeAll(text);
    assert.deepEqual(events, EXPECTED, `chunk size ${size}`);
    assert.equal(lastEventId, String(INPUT_EVENTS.length));
    assert.match(text, /\n: chunks [1-9]\d*\n\n$/, 'flush() ran');
  }

  // A plain string body too.
  const res = await mf.dispatchFetch('http://localhost/reencode', {
    method: 'POST',
    body: new TextDecoder().decode(bytes),
  });
  assert.deepEqual(decodeAll(await res.text()).events, EXPECTED);
});

test('worker streams nonce-tagged blocks as SSE events, no tag leaks', { timeout: 30_000 }, async () => {
  const n = 'c0ffee00c0ffee00c0ffee00c0ffee00';
  const text = `Sure! [ARTIFACT:${n}]Plan 🚀 日本語 [/ARTIFACT:0000][/ARTIFACT:${n}]\n[USER:${n}]OK?[/USER:${n}]`;
  const bytes = new TextEncoder().encode(text);
  for (const size of [1, 5, bytes.length]) {
    const res = await mf.dispatchFetch(`http://localhost/tags?nonce=${n}`, {
      method: 'POST',
      body: chunkedBody(bytes, size),
      duplex: 'half',
    });
    const body = await res.text();
    assert.ok(!body.includes(n), body);
    const { events } = decodeAll(body);
    const got = { artifact_delta: '', user_delta: '' };
    for (const e of events.slice(0, -1)) got[e.event] += JSON.parse(e.data).text;
    assert.deepEqual(got, { artifact_delta: 'Plan 🚀 日本語 [/ARTIFACT:0000]', user_delta: 'OK?' }, `size ${size}`);
    assert.deepEqual(events.at(-1), { event: 'done', data: '{"ok":true,"parse_ok":false}', id: String(events.length) });
  }
});

test('makeNonce and StreamrouteError codes inside workerd', { timeout: 30_000 }, async () => {
  const res = await mf.dispatchFetch('http://localhost/info');
  assert.equal(res.status, 200);
  const info = await res.json();
  const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));
  assert.equal(info.version, pkg.version);
  assert.equal(info.nonces.length, 2);
  for (const n of info.nonces) assert.match(n, /^[0-9a-f]{32}$/);
  assert.notEqual(info.nonces[0], info.nonces[1]);
  assert.deepEqual(info.error, {
    code: 'sse_event_too_large',
    name: 'StreamrouteError',
    message: info.error?.message,
    isStreamrouteError: true,
    isError: true,
    events: [{ event: 'message', data: 'ok', id: '' }],
  });
  assert.equal(typeof info.error.message, 'string');
  assert.deepEqual(info.invalid, { code: 'sse_invalid_field', isStreamrouteError: true });
  assert.deepEqual(info.misuse, MISUSE_CODES);

  // The error thrown by feed() inside the TransformStream reaches the worker's reader as the
  // same StreamrouteError, carrying the events that feed() completed before the cap.
  const capped = await mf.dispatchFetch('http://localhost/reencode-capped', {
    method: 'POST',
    body: 'data: ok\n\ndata: this data is far over the cap\n\n',
  });
  assert.deepEqual(await capped.json(), {
    text: '',
    code: 'sse_event_too_large',
    isStreamrouteError: true,
    events: [{ event: 'message', data: 'ok', id: '' }],
  });
});

test('worker proxies an upstream provider stream through StreamRouter and toSse("ai-sdk")', { timeout: 60_000 }, async () => {
  const { NONCE, SAMPLES, aiSdkParts, replay } = await import('./helpers/streams.mjs');
  const { listen } = await import('./helpers/runtimes.mjs');
  const { StreamRouter, toSse } = await import('streamroute');
  const files = [
    'openai-chat-tools.sse',
    'anthropic-tools.sse',
    'gemini-tools.sse',
    'openai-responses-tools.sse',
    'openai-chat-action.sse',
    'openai-chat-tagged.sse',
    'anthropic-error.sse',
  ];
  const upstream = await listen((req, res) => {
    const s = SAMPLES.find((x) => `/${x.file}` === new URL(req.url, 'http://x').pathname);
    if (!s) return res.writeHead(404).end();
    replay(res, s.bytes, 29);
  });
  try {
    for (const file of files) {
      const s = SAMPLES.find((x) => x.file === file);
      // What the browser must receive: the same pipeline in Node, on the whole stream.
      const want = new Response(
        new Response(s.bytes).body
          .pipeThrough(new StreamRouter({ content: s.content, nonce: NONCE }).transform())
          .pipeThrough(toSse('ai-sdk', { retry: 1000 })),
      );
      const dec = new SseDecoder();
      const expected = aiSdkParts([...dec.feed(await want.text()), ...dec.finish()]);

      const res = await mf.dispatchFetch(
        `http://localhost/route?content=${s.content}&nonce=${NONCE}&upstream=${encodeURIComponent(`${upstream.origin}/${file}`)}`,
      );
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/event-stream');
      assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
      const text = await res.text();
      assert.match(text, /^id: 1\nretry: 1000\ndata: \{"type":"start"\}\n\n/);
      const d = new SseDecoder();
      const frames = [...d.feed(text), ...d.finish()];
      // Ids count 1..n, one per frame, and [DONE] closes the stream.
      assert.deepEqual(
        frames.map((f) => f.id),
        frames
          .map((_, i) => String(i + 1))
          .slice(0, -1)
          .concat(String(frames.length - 1)),
      );
      assert.equal(frames.at(-1).data, '[DONE]');
      const got = aiSdkParts(frames);
      assert.deepEqual(
        got.map(([, p]) => p),
        expected.map(([, p]) => p),
        file,
      );
    }
    // Spot checks of the browser-facing parts of one stream.
    const res = await mf.dispatchFetch(`http://localhost/route?upstream=${encodeURIComponent(`${upstream.origin}/anthropic-tools.sse`)}`);
    const d = new SseDecoder();
    const parts = aiSdkParts([...d.feed(await res.text()), ...d.finish()]).map(([, p]) => p);
    assert.deepEqual(
      parts.filter((p) => p.type === 'tool-input-available').map((p) => [p.toolCallId, p.input]),
      [
        ['toolu_01T1x1fJ34qAm0', { location: 'San Francisco, CA', unit: 'fahrenheit' }],
        ['toolu_01T1x1fJ34qAm1', { location: 'Kraków', unit: 'celsius' }],
      ],
    );
    assert.deepEqual(parts.find((p) => p.type === 'reasoning-delta').delta, 'Two lookups; I can run them in parallel.');
    assert.deepEqual(parts.find((p) => p.type === 'text-delta').delta, "I'll look up both cities.");
    assert.deepEqual(parts.at(-2), {
      type: 'finish',
      finishReason: 'tool-calls',
      messageMetadata: { ok: true, parse_ok: true, finish_reason: 'tool_use', finish: 'tool-calls' },
    });
  } finally {
    await upstream.close();
  }
});

test('planning inside workerd: narrow tools with query vectors, check and fix a plan', { timeout: 30_000 }, async () => {
  const fixture = (name) => JSON.parse(readFileSync(join(JS_DIR, '..', 'planning', name), 'utf8'));
  const walk = fixture('walkthrough.json');
  const emb = fixture('embeddings.json');
  const body = {
    catalog: fixture('catalog.json').tools,
    model_id: emb.model_id,
    dim: emb.dim,
    embeddings: emb.tools.flatMap((t) => t.embedding),
    queryVectors: emb.walkthrough_queries.map((q) => q.embedding),
    requirements: walk.requirements,
    template: walk.template,
    plan: walk.adapted_plan,
  };
  const res = await mf.dispatchFetch('http://localhost/plan', { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    tools: [
      ['parse_datetime', 'template'],
      ['aggregate', 'template'],
      ['plot_line', 'template'],
      ['compute_summary_stats', 'template'],
      ['plot_scatter', 'retrieval'],
      ['plot_area', 'retrieval'],
      ['plot_dual_axis', 'retrieval'],
      ['plot_bar', 'retrieval'],
    ],
    method: 'cosine',
    report: {
      ok: false,
      missing: [],
      unjustified: ['detect_anomalies', 'plot_histogram'],
      message: 'Remove unjustified steps: detect_anomalies, plot_histogram',
    },
    fixed: ['parse_datetime', 'aggregate', 'plot_line', 'compute_summary_stats'],
    after: {
      ok: true,
      lines: [
        'analysis.total -> aggregate (OK)',
        'analysis.compare -> aggregate + grouping (OK)',
        'analysis.trend -> plot_line (OK)',
        'outputs.chart -> plot_line (OK)',
        'outputs.table -> compute_summary_stats (OK)',
        'group_by -> aggregate with group_by (OK)',
        'time -> parse_datetime + plot_line (OK)',
      ],
    },
  });
  // Labels outside the closed sets: requirements_invalid and the re-extraction prompt.
  const bad = await mf.dispatchFetch('http://localhost/plan', {
    method: 'POST',
    body: JSON.stringify({ ...body, requirements: { ...walk.requirements, analysis: ['totals'] } }),
  });
  assert.equal(bad.status, 422);
  const err = await bad.json();
  assert.equal(err.code, 'requirements_invalid');
  assert.equal(err.isStreamrouteError, true);
  assert.deepEqual(err.paths, ['analysis[0]']);
  assert.match(err.retry, /"totals" is not an allowed label; use one of: total, compare/);
});

test('worker: toSse → fromSse → StreamState gives the snapshot of the routed events, every sample and profile', {
  timeout: 120_000,
}, async () => {
  const { SAMPLES, NONCE } = await import('./helpers/streams.mjs');
  const { SEED } = await import('./helpers/chunking.mjs');
  const res = await mf.dispatchFetch('http://localhost/client-roundtrip', {
    method: 'POST',
    body: JSON.stringify({ samples: SAMPLES.map(({ file, content, text }) => ({ file, content, text })), nonce: NONCE, seed: SEED }),
  });
  const { compared, mismatches } = await res.json();
  assert.deepEqual(mismatches, [], `seed ${SEED}`);
  assert.equal(compared, (SAMPLES.length + 2) * PROFILES.length * 6); // the samples, the continuation and the extra events
});
