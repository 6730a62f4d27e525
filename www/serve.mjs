#!/usr/bin/env node
// The demo page's static server (Node only, no dependencies). URL layout:
//   /                    www/index.html, and the rest of www/
//   /streamroute/…       the package: pkg/ after ./scripts/build (the test serves the packed
//                        and installed copy instead)
//   /examples/streams/…  the library's bundled sample streams
// Pages are cross-origin isolated (COOP/COEP) so performance.now() has microsecond-level
// resolution for the timing readout. `./scripts/run --serve` runs this and prints the URL:
//   node www/serve.mjs [--port 8787] [--host 127.0.0.1] [--pkg DIR]
import http from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WWW_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(WWW_DIR, '..');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.sse': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

function under(root, rel) {
  let file;
  try {
    file = resolve(root, '.' + sep + decodeURIComponent(rel));
  } catch {
    return null; // a malformed %-escape
  }
  if (file !== root && !file.startsWith(root + sep)) return null;
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** Which file a URL path names (or null). */
export function fileFor(pathname, pkgDir) {
  if (pathname === '/') return join(WWW_DIR, 'index.html');
  if (pathname.startsWith('/streamroute/')) return under(pkgDir, pathname.slice('/streamroute/'.length));
  if (pathname.startsWith('/examples/streams/'))
    return under(join(ROOT, 'examples', 'streams'), pathname.slice('/examples/streams/'.length));
  if (pathname.endsWith('.mjs') && pathname.startsWith('/serve')) return null; // the server itself is not served
  return under(WWW_DIR, pathname.slice(1));
}

/**
 * The request handler. `pkgDir`: the package directory served under /streamroute/.
 * `onRequest({ path, status, type })` sees every request (the test counts .wasm fetches).
 */
export function demoHandler({ pkgDir = join(ROOT, 'pkg'), onRequest } = {}) {
  const root = resolve(pkgDir);
  return (req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    const file = req.method === 'GET' || req.method === 'HEAD' ? fileFor(path, root) : null;
    const type = file ? (MIME[extname(file)] ?? 'application/octet-stream') : undefined;
    onRequest?.({ path, status: file ? 200 : 404, type });
    const headers = {
      'cache-control': 'no-store',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'cross-origin-resource-policy': 'same-origin',
      'x-content-type-options': 'nosniff',
    };
    if (!file) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': type });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  };
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
  };
  const pkgDir = resolve(opt('--pkg', join(ROOT, 'pkg')));
  const host = opt('--host', '127.0.0.1');
  const port = Number(opt('--port', process.env.PORT ?? 8787));
  try {
    statSync(join(pkgDir, 'dist', 'streamroute', 'streamroute_bg.wasm'));
  } catch {
    console.error(`no built package in ${pkgDir} (run ./scripts/build first)`);
    process.exit(1);
  }
  const server = http.createServer(demoHandler({ pkgDir }));
  await new Promise((ok, fail) => {
    server.once('error', (err) => {
      if (err.code !== 'EADDRINUSE') return fail(err);
      server.listen(0, host, ok); // the port is taken: any free one
    });
    server.listen(port, host, ok);
  });
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${server.address().port}/`;
  console.log(`streamroute demo page: ${url}  (Ctrl-C stops the server)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
