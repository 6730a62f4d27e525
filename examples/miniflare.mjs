// examples/router-worker.js under miniflare, bundled as wrangler bundles it: esbuild with the
// `workerd` condition, each `.wasm` import kept as a module of its own that miniflare loads as
// `CompiledWasm` (workerd compiles no wasm from bytes at run time). The provider here is a
// stand-in that replays a bundled stream. Needs `npm install esbuild miniflare`.
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

const here = dirname(new URL(import.meta.url).pathname);
const wasm = new Map(); // module name -> file
const { outputFiles } = await build({
  entryPoints: [resolve(here, 'router-worker.js')],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  outfile: 'worker.js',
  plugins: [{
    name: 'wasm-modules',
    setup(b) {
      b.onResolve({ filter: /\.wasm$/ }, (args) => {
        const file = resolve(args.resolveDir, args.path);
        const name = `${basename(dirname(file))}.wasm`; // one per entry of the package
        wasm.set(name, file);
        return { path: `./${name}`, external: true };
      });
    },
  }],
});

const mf = new Miniflare({
  modules: [
    { type: 'ESModule', path: 'worker.js', contents: outputFiles[0].text },
    ...[...wasm].map(([path, file]) => ({ type: 'CompiledWasm', path, contents: readFileSync(file) })),
  ],
  compatibilityDate: '2025-01-01',
  bindings: { PROVIDER_URL: 'https://provider.test/v1/chat/completions', API_KEY: 'test', MODEL: 'test' },
  // The stand-in provider: every fetch of the worker gets a recorded-style OpenAI stream.
  outboundService: () => new Response(readFileSync(resolve(here, 'streams/openai-chat-tools.sse')), {
    headers: { 'content-type': 'text/event-stream' },
  }),
});
const response = await mf.dispatchFetch('http://localhost/chat', {
  method: 'POST',
  body: JSON.stringify({ messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }] }),
});
process.stdout.write(await response.text());
await mf.dispose();
