// The packed package in a Vite app, as a frontend user builds one: a fresh project installs
// the tarball with npm, `vite build` bundles it (the .wasm must come out as an asset the
// browser entry's `new URL(..., import.meta.url)` finds), and the Vite dev server serves it
// through its dependency pre-bundling. Headless Chromium loads both and the page decodes a
// stream, makes a nonce and catches a StreamrouteError, and runs the checks of every entry
// (helpers/entries.mjs: each entry's .wasm found in both). Run after ./setup-consumer.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, createServer } from 'vite';
import { JS_DIR, fileUnder, freshApp, launchChromium, listen, sendFile } from './helpers/runtimes.mjs';
import { ENTRY_NAMES, EXPECTED_ENTRIES } from './helpers/entries.mjs';

const APP = join(JS_DIR, '.tmp', 'vite-app');

const MAIN = `
import { init, SseDecoder, StreamrouteError, makeNonce, parseTagged } from 'streamroute';
${Object.entries(ENTRY_NAMES)
  .map(([dir, name]) => `import * as ${dir} from '${name}';`)
  .join('\n')}
import { entriesResult } from './entries.mjs';
await init();
const out = {};
const d = new SseDecoder();
out.events = d.feed('event: hi\\ndata: from vite\\n\\n');
d.free();
out.nonce = makeNonce();
try {
  new SseDecoder({ maxLineBytes: -1 });
} catch (e) {
  out.error = { isClass: e instanceof StreamrouteError, code: e.code };
}
const n = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
out.user = parseTagged('[ARTIFACT:' + n + ']{}[/ARTIFACT:' + n + '][USER:' + n + ']hello[/USER:' + n + ']', n).user;
out.entries = await entriesResult({ ${Object.keys(ENTRY_NAMES).join(', ')} });
document.getElementById('out').textContent = JSON.stringify(out);
`;

let browser;

before(() => {
  freshApp('vite-app');
  writeFileSync(
    join(APP, 'index.html'),
    '<!doctype html><html><body><pre id="out">loading</pre><script type="module" src="/main.js"></script></body></html>',
  );
  writeFileSync(join(APP, 'main.js'), MAIN);
  copyFileSync(join(JS_DIR, 'helpers', 'entries.mjs'), join(APP, 'entries.mjs'));
});

after(async () => {
  await browser?.close();
});

async function pageResult(url) {
  browser ??= await launchChromium();
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('out').textContent !== 'loading', null, { timeout: 20_000 }).catch(() => {});
  const text = await page.textContent('#out');
  await page.close();
  assert.deepEqual(errors, []);
  return JSON.parse(text);
}

function checkResult(r) {
  assert.deepEqual(r.events, [{ event: 'hi', data: 'from vite', id: '' }]);
  assert.match(r.nonce, /^[0-9a-f]{32}$/);
  assert.deepEqual(r.error, { isClass: true, code: 'invalid_option' });
  assert.equal(r.user, 'hello');
  assert.deepEqual(r.entries, EXPECTED_ENTRIES);
}

test('vite build bundles the package and its .wasm; the built page runs in Chromium', { timeout: 90_000 }, async () => {
  await build({ root: APP, logLevel: 'silent', build: { outDir: 'dist', emptyOutDir: true } });
  const assets = readdirSync(join(APP, 'dist', 'assets'));
  // One .wasm asset per entry.
  assert.equal(
    assets.filter((f) => f.endsWith('.wasm')).length,
    Object.keys(ENTRY_NAMES).length,
    `a .wasm asset per entry among ${assets}`,
  );
  const server = await listen((req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    sendFile(res, fileUnder(join(APP, 'dist'), path === '/' ? 'index.html' : path.slice(1)));
  });
  try {
    checkResult(await pageResult(server.origin + '/'));
  } finally {
    await server.close();
  }
});

test('the Vite dev server (dependency pre-bundling) serves a working page', { timeout: 90_000 }, async () => {
  const server = await createServer({
    root: APP,
    logLevel: 'silent',
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false },
  });
  await server.listen();
  try {
    const { port } = server.httpServer.address();
    checkResult(await pageResult(`http://127.0.0.1:${port}/`));
  } finally {
    await server.close();
  }
});
