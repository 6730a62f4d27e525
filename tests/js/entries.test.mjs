// The package's entries ('streamroute', 'streamroute/client', 'streamroute/sse', '/json', '/tags', '/payload',
// '/planning'), each with its own .wasm, as a user gets them (the packed package, installed by
// setup-consumer.sh): the exports map and the packed files; then, in Node ESM and CommonJS,
// Chromium and workerd, each entry's exact export list, `buildInfo().entry`, one real call per
// entry, and one `StreamrouteError` class for all (tests/js/helpers/entries.mjs; the Vite build
// and dev server run the same checks in vite.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Miniflare } from 'miniflare';
import * as streamroute from 'streamroute';
import * as client from 'streamroute/client';
import * as sse from 'streamroute/sse';
import * as json from 'streamroute/json';
import * as tags from 'streamroute/tags';
import * as payload from 'streamroute/payload';
import * as planning from 'streamroute/planning';
import { ENTRY_NAMES, EXPECTED_BEFORE_INIT, EXPECTED_ENTRIES, entriesResult } from './helpers/entries.mjs';
import { JS_DIR, PKG_DIR, bundleWorker, fileUnder, launchChromium, listen, sendFile } from './helpers/runtimes.mjs';
import { typecheck } from './helpers/typecheck.mjs';

const DIRS = Object.keys(ENTRY_NAMES);
const CONSUMER = join(JS_DIR, '.tmp', 'consumer');
const HELPER = join(JS_DIR, 'helpers', 'entries.mjs');
const subpath = (dir) => (dir === 'streamroute' ? '.' : `./${dir}`);

test('the exports map names every entry in every runtime condition, with its types; npm pack ships them', () => {
  const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));
  // './react' (hooks over the client entry, no wasm of its own) follows the wasm entries.
  const expectedKeys = [
    ...DIRS.map(subpath),
    './react',
    ...DIRS.map((d) => (d === 'streamroute' ? './streamroute_bg.wasm' : `./${d}/streamroute_bg.wasm`)),
    './package.json',
  ];
  assert.deepEqual(Object.keys(pkg.exports), expectedKeys);
  for (const dir of DIRS) {
    const d = `./dist/${dir}`;
    assert.deepEqual(pkg.exports[subpath(dir)], {
      types: `./types/${dir}.d.ts`,
      workerd: `${d}/workerd.js`,
      'edge-light': `${d}/workerd.js`,
      node: { import: `${d}/node.js`, require: `${d}/index.cjs` },
      browser: `${d}/browser.js`,
      default: `${d}/browser.js`,
    });
    // The installed copy is the tarball's: every file an entry needs was packed.
    for (const f of ['types', 'workerd', 'browser']) assert.ok(existsSync(join(PKG_DIR, pkg.exports[subpath(dir)][f])), `${dir} ${f}`);
    for (const f of ['browser.js', 'node.js', 'workerd.js', 'index.cjs', 'streamroute_bg.wasm', 'streamroute.d.ts']) {
      assert.ok(existsSync(join(PKG_DIR, 'dist', dir, f)), `dist/${dir}/${f}`);
    }
  }
  assert.ok(existsSync(join(PKG_DIR, 'types', 'common.d.ts')));
  assert.deepEqual(pkg.exports['./react'], {
    types: './types/react.d.ts',
    import: './dist/react/index.js',
    require: './dist/react/index.cjs',
    default: './dist/react/index.js',
  });
  for (const f of Object.values(pkg.exports['./react'])) assert.ok(existsSync(join(PKG_DIR, f)), `react ${f}`);
  assert.deepEqual([pkg.peerDependencies, pkg.peerDependenciesMeta], [{ react: '>=18' }, { react: { optional: true } }]);
});

test('no entry links serde: options and arguments are read by the field reader (src/wasm/de.rs)', () => {
  // Texts every serde-derived deserializer links: its field visitor's and its length error's.
  for (const dir of DIRS) {
    const wasm = readFileSync(join(PKG_DIR, 'dist', dir, 'streamroute_bg.wasm'));
    for (const text of ['field identifier', 'invalid length']) assert.ok(!wasm.includes(text), `${dir}: ${text}`);
  }
});

test('no entry links the str slicing panic (its message formatting, char Debug and the Unicode printable tables cost ~5 KB gzip)', () => {
  // `&s[a..b]`, `str::contains(&str)` and `trim_end_matches(&str)` link it; the code uses
  // `text::sub`, memchr and `strip_suffix` instead.
  for (const dir of DIRS) {
    const wasm = readFileSync(join(PKG_DIR, 'dist', dir, 'streamroute_bg.wasm'));
    assert.ok(!wasm.includes('is not a char boundary'), dir);
  }
});

test('every .wasm has short import and export names (scripts/minify-names.mjs), and its glue the same', () => {
  for (const dir of DIRS) {
    const module = new WebAssembly.Module(readFileSync(join(PKG_DIR, 'dist', dir, 'streamroute_bg.wasm')));
    const names = [
      ...WebAssembly.Module.imports(module).flatMap((i) => [i.module, i.name]),
      ...WebAssembly.Module.exports(module).map((e) => e.name),
    ];
    assert.ok(names.length > 10, dir);
    for (const name of names) assert.ok(name.length <= 3, `${dir}: ${name}`);
    const glue = readFileSync(join(PKG_DIR, 'dist', dir, 'browser.js'), 'utf8');
    assert.ok(!/__wbg_\w+_[0-9a-f]{16}\b/.test(glue), `${dir}: a hashed import name in the glue`);
  }
});

test('every exported class and function is named as it is exported (ESM and CommonJS), through the minified bundles', () => {
  const cjs = {
    streamroute: 'streamroute',
    client: 'streamroute/client',
    sse: 'streamroute/sse',
    json: 'streamroute/json',
    tags: 'streamroute/tags',
    payload: 'streamroute/payload',
    planning: 'streamroute/planning',
  };
  writeFileSync(
    join(CONSUMER, 'names.cjs'),
    `
    const out = {};
    for (const [dir, spec] of Object.entries(${JSON.stringify(cjs)})) {
      out[dir] = Object.entries(require(spec)).filter(([, v]) => typeof v === 'function').map(([k, v]) => [k, v.name]);
    }
    console.log(JSON.stringify(out));
  `,
  );
  const viaRequire = JSON.parse(execFileSync(process.execPath, [join(CONSUMER, 'names.cjs')], { cwd: CONSUMER, encoding: 'utf8' }));
  const modules = { streamroute, client, sse, json, tags, payload, planning };
  for (const [dir, m] of Object.entries(modules)) {
    const named = Object.entries(m).filter(([, v]) => typeof v === 'function');
    assert.ok(named.length > 3, dir);
    for (const [k, v] of named) assert.equal(v.name, k, `${dir}: ${k}.name`);
    for (const [k, name] of viaRequire[dir]) assert.equal(name, k, `${dir} (require): ${k}.name`);
  }
  assert.equal(String(new streamroute.StreamrouteError('invalid_input', 'x')), 'StreamrouteError: x');
  assert.equal(new payload.ArtifactCollector().constructor.name, 'ArtifactCollector');
});

test('Node ESM: each entry, its exports, buildInfo, one call, one StreamrouteError class', async () => {
  const r = await entriesResult({ streamroute, client, sse, json, tags, payload, planning });
  assert.deepEqual(r, EXPECTED_ENTRIES);
});

test('Node CommonJS: the same through require(), and one StreamrouteError class with ESM too', () => {
  writeFileSync(
    join(CONSUMER, 'entries.cjs'),
    `
    const modules = {
      streamroute: require('streamroute'), client: require('streamroute/client'), sse: require('streamroute/sse'), json: require('streamroute/json'),
      tags: require('streamroute/tags'), payload: require('streamroute/payload'), planning: require('streamroute/planning'),
    };
    (async () => {
      const { entriesResult } = await import(${JSON.stringify(pathToFileURL(HELPER).href)});
      const esm = await import('streamroute/json');
      let mixed;
      try { modules.tags.parseTagged('[USER:x]', 42); } catch (e) { mixed = e instanceof esm.StreamrouteError && esm.StreamrouteError === modules.payload.StreamrouteError; }
      console.log(JSON.stringify({ result: await entriesResult(modules), mixed }));
    })();
  `,
  );
  const { result, mixed } = JSON.parse(execFileSync(process.execPath, ['entries.cjs'], { cwd: CONSUMER, encoding: 'utf8' }));
  assert.deepEqual(result, EXPECTED_ENTRIES);
  assert.equal(mixed, true, 'an error thrown by a CommonJS entry is an instance of the ESM class');
});

test('Chromium: each browser entry loads its own .wasm once and passes the same checks', { timeout: 60_000 }, async () => {
  const imports = DIRS.map((d) => `import * as ${d} from '/streamroute/dist/${d}/browser.js';`).join('\n');
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><pre id="out">loading</pre><script type="module">
${imports}
import { beforeInitResult, entriesResult } from '/helpers/entries.mjs';
try {
  const beforeInit = beforeInitResult({ ${DIRS.join(', ')} });
  document.getElementById('out').textContent = JSON.stringify({ ...await entriesResult({ ${DIRS.join(', ')} }), beforeInit });
} catch (e) {
  document.getElementById('out').textContent = JSON.stringify({ failed: String(e?.stack ?? e) });
}
</script>`;
  const requests = [];
  const server = await listen((req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    const file = path.startsWith('/streamroute/')
      ? fileUnder(PKG_DIR, path.slice('/streamroute/'.length))
      : path.startsWith('/helpers/')
        ? fileUnder(join(JS_DIR, 'helpers'), path.slice('/helpers/'.length))
        : null;
    requests.push({ path, found: file !== null });
    sendFile(res, file);
  });
  const browser = await launchChromium();
  try {
    const tab = await browser.context.newPage();
    const errors = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    await tab.goto(`${server.origin}/`);
    await tab.waitForFunction(() => document.getElementById('out').textContent !== 'loading', null, { timeout: 30_000 });
    const { beforeInit, ...r } = JSON.parse(await tab.textContent('#out'));
    assert.deepEqual(errors, []);
    assert.deepEqual(r, EXPECTED_ENTRIES);
    assert.deepEqual(beforeInit, EXPECTED_BEFORE_INIT, 'a class constructed before init() throws not_initialized');
    assert.deepEqual(
      requests.filter((q) => !q.found),
      [],
      'every request found',
    );
    assert.deepEqual(
      requests
        .filter((q) => q.path.endsWith('.wasm'))
        .map((q) => q.path)
        .sort(),
      DIRS.map((d) => `/streamroute/dist/${d}/streamroute_bg.wasm`).sort(),
      'each entry fetches its own .wasm, once',
    );
  } finally {
    await browser.close();
    await server.close();
  }
});

test('workerd: a worker importing every entry (each .wasm its own module) passes the same checks', { timeout: 60_000 }, async () => {
  const root = join(JS_DIR, '.tmp', 'entries-worker-bundle');
  const bundle = await bundleWorker(join(JS_DIR, 'worker', 'entries-worker.js'), root);
  assert.deepEqual([...bundle.wasmModules.keys()].sort(), DIRS.map((d) => `./${d}/streamroute_bg.wasm`).sort());
  const mf = new Miniflare({ modulesRoot: root, modules: bundle.modules, compatibilityDate: '2025-01-01' });
  try {
    await mf.ready;
    const res = await mf.dispatchFetch('http://localhost/');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), EXPECTED_ENTRIES);
  } finally {
    await mf.dispose();
  }
});

test('TypeScript: each entry has its own types (one StreamrouteError, init and buildInfo in all); a name another entry has is an error', () => {
  const ok = typecheck(
    'ts-entries',
    `
    import * as main from 'streamroute';
    import { SseDecoder, connectSse, StreamrouteError, init, buildInfo, type SseEvent, type BuildInfo } from 'streamroute/sse';
    import { AnswerExtractor, parseJson, repairJson } from 'streamroute/json';
    import { TagFilter, makeNonce, parseTagged } from 'streamroute/tags';
    import { buildFinalPayload, ArtifactStream, type FinalPayload } from 'streamroute/payload';
    import { ToolIndex, checkCoverage, autoTimeGrain } from 'streamroute/planning';
    const ready: Promise<void> = init();
    const info: BuildInfo = buildInfo();
    const entry: string = info.entry;
    const features: string[] = info.features;
    const same: typeof StreamrouteError = main.StreamrouteError;
    const events: SseEvent[] = new SseDecoder().feed('data: x\\n\\n');
    const iter: AsyncIterable<SseEvent> = connectSse('https://example.com/', { method: 'POST' }, { maxRetries: 1 });
    const text: string = new AnswerExtractor().feed('{"answer":"a');
    const payload: FinalPayload = buildFinalPayload({ answer: 'a' }).payload;
    void [ready, entry, features, same, events, iter, text, payload, parseJson, repairJson, TagFilter, makeNonce,
      parseTagged, ArtifactStream, ToolIndex, checkCoverage, autoTimeGrain];
  `,
  );
  assert.equal(ok.status, 0, ok.output);
  const bad = typecheck(
    'ts-entries-bad',
    `
    import { StreamRouter } from 'streamroute/sse';
    import { connectSse } from 'streamroute/sse';
    import { validateFinalPayload } from 'streamroute';
    void connectSse('https://example.com/', {}, { router: {} });
    void [StreamRouter, validateFinalPayload];
  `,
  );
  assert.notEqual(bad.status, 0);
  assert.match(bad.output, /'"streamroute\/sse"' has no exported member named 'StreamRouter'|has no exported member 'StreamRouter'/);
  assert.match(bad.output, /has no exported member (named )?'validateFinalPayload'/);
  assert.match(bad.output, /'router' does not exist in type/);
});
