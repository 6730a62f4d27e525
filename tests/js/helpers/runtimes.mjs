// What the Chromium and workerd tests share: a loopback HTTP server that serves files (the
// installed package among them), headless Chromium launched with the tests' flags, and the
// worker bundle built the way wrangler builds it. Run the tests after ../setup-consumer.sh.
import http from 'node:http';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

/** tests/js */
export const JS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = resolve(JS_DIR, '..', '..');
/** The installed copy of the packed package (tests/js/node_modules/streamroute, resolved). */
export const PKG_DIR = realpathSync(join(JS_DIR, 'node_modules', 'streamroute'));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const MIME = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

/**
 * A fresh app project in tests/js/.tmp/`name` that installs the packed package with npm, as a
 * user's app does (the tarball ../setup-consumer.sh made). Returns its directory.
 */
export function freshApp(name) {
  const app = join(JS_DIR, '.tmp', name);
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app, { recursive: true });
  const tgz = readdirSync(join(JS_DIR, '.tmp')).find((f) => /^streamroute-.*\.tgz$/.test(f));
  assert.ok(tgz, 'setup-consumer.sh packed the package');
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name,
      private: true,
      type: 'module',
      dependencies: { streamroute: `file:../${tgz}` },
    }),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, stdio: 'pipe' });
  return app;
}

/** Maps a URL path to a file under `root`, or null (no escaping the root). */
export function fileUnder(root, rel) {
  const file = resolve(root, '.' + sep + decodeURIComponent(rel));
  if (file !== root && !file.startsWith(root + sep)) return null;
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** The MIME type a file is served with. */
export const mimeOf = (file) => MIME[extname(file)] ?? 'application/octet-stream';

/** Sends `file` (200, its MIME type, no caching), or a 404 when `file` is null. */
export function sendFile(res, file) {
  if (!file) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': mimeOf(file), 'cache-control': 'no-store' });
  createReadStream(file).pipe(res);
}

/** Starts `handler` on 127.0.0.1 (a free port): `{ server, origin, close() }`. */
export async function listen(handler) {
  const server = http.createServer(handler);
  await new Promise((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
  return {
    server,
    origin: `http://127.0.0.1:${server.address().port}`,
    async close() {
      const closed = new Promise((ok) => server.close(() => ok()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Headless Chromium in a fresh profile: `{ context, close() }` (close() removes the profile). */
export async function launchChromium() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'streamroute-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: 30_000,
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
    return {
      context,
      async close() {
        try {
          await context.close();
        } finally {
          rmSync(userDataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
}

// esbuild is a dev dependency of scripts/ (scripts/build uses it for the CommonJS bundle).
const esbuild = createRequire(join(ROOT, 'scripts', 'package.json'))('esbuild');

/**
 * Bundles a module worker like wrangler: `streamroute` resolves through its `workerd` export
 * condition, and each .wasm import is left external, renamed to a module name next to the
 * bundle (`./<its directory>/<its name>`), for miniflare to load as a `CompiledWasm` module (workerd forbids compiling wasm
 * from bytes at run time). `modulesRoot` is where the modules live for workerd; nothing is
 * written there. `nodePaths`: more directories to find packages in (for an entry that has no
 * node_modules above it). Returns `{ code, inputs, wasmModules, modules }`, `modules` being
 * what `new Miniflare({ modulesRoot, modules })` takes.
 */
export async function bundleWorker(entry, modulesRoot, { nodePaths = [] } = {}) {
  const wasmModules = new Map(); // module name -> absolute path
  const wasmAsCompiledModule = {
    name: 'wasm-as-compiled-module',
    setup(build) {
      build.onResolve({ filter: /\.wasm$/ }, (args) => {
        const file = resolve(args.resolveDir, args.path);
        // Each entry of the package has its own `streamroute_bg.wasm` (dist/<entry>/): the
        // module is named after its directory too.
        const name = `./${basename(dirname(file))}/${basename(file)}`;
        const seen = wasmModules.get(name);
        if (seen && seen !== file) throw new Error(`two different wasm files named ${name}`);
        wasmModules.set(name, file);
        return { path: name, external: true };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    nodePaths,
    outfile: join(modulesRoot, 'worker.js'),
    metafile: true,
    logLevel: 'silent',
    plugins: [wasmAsCompiledModule],
  });
  const [out] = result.outputFiles;
  const modules = [
    { type: 'ESModule', path: join(modulesRoot, 'worker.js'), contents: out.text },
    ...[...wasmModules].map(([name, file]) => ({
      type: 'CompiledWasm',
      path: join(modulesRoot, name),
      contents: readFileSync(file),
    })),
  ];
  return { code: out.text, inputs: Object.keys(result.metafile.inputs), wasmModules, modules };
}
