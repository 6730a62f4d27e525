// The stream router natively and through the JS API, on the same bytes, in one command:
//
//   cd bench && node native.mjs [--iterations N] [--warmup-ms MS] [--sizes 64,4096] [--json FILE]
//
// 1. `router.mjs --dump` writes the two streams router.mjs measures (text and action-json,
//    ~5 MB each) and their answers into a temporary directory;
// 2. `cargo bench --bench native` (native.rs, the release profile) routes them with the Rust
//    `StreamRouter`, checks every answer and writes its medians;
// 3. router.mjs runs as it does alone (its streamroute rows are the wasm-through-JS numbers;
//    its JS pipeline rows are run too, so the conditions are those of bench/README "Stream
//    router");
// then one table: case, chunk, native MB/s, wasm-through-JS MB/s, native / wasm; and, from
// the smallest and the largest chunk size, each side's time split into a cost per feed and a
// cost per byte (a two-point fit of seconds = feeds × c + bytes / rate).
//
// A measurement, not a test: nothing asserts a speed; a wrong answer on either side exits 1.
// Needs `scripts/build` (pkg/dist/streamroute) and bench's `npm ci`, as router.mjs does.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function parseArgs(argv) {
  const o = { iterations: 15, warmupMs: 1500, sizes: '64,4096', json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--iterations') o.iterations = Number(argv[++i]);
    else if (a === '--warmup-ms') o.warmupMs = Number(argv[++i]);
    else if (a === '--sizes') o.sizes = argv[++i];
    else if (a === '--json') o.json = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

const load = () => loadavg()[0].toFixed(2);
const sizeLabel = (s) => (s >= 1024 && s % 1024 === 0 ? `${s / 1024} KiB` : `${s} B`);
const range = (r) => `${r.mbps.toFixed(1)} (${r.minMbps.toFixed(1)}–${r.maxMbps.toFixed(1)})`;

function version(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : `${cmd}: not found`;
}

const opts = parseArgs(process.argv.slice(2));
const common = ['--iterations', String(opts.iterations), '--warmup-ms', String(opts.warmupMs), '--sizes', opts.sizes];
if (!existsSync(join(ROOT, 'pkg/dist/streamroute/node.js')) && !process.env.STREAMROUTE_ENTRY) {
  console.error('ERROR: pkg/dist/streamroute is missing: run scripts/build first (bench/run does)');
  process.exit(1);
}
const { dumpRouterStreams, runRouterBench } = await import('./router.mjs');

console.log(`${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; node ${process.version}; ${version('rustc', ['--version'])}`);
/**
 * Per case, each side's median time at the smallest and the largest chunk size fitted to
 * seconds = feeds × c + bytes / rate: `c` (ns per feed) is what a call costs whatever it
 * carries, `rate` (MB/s) the speed of the code on the bytes themselves. Two points, so it is
 * a reading of the medians, not a model checked against a third size.
 */
function splitCosts(rows) {
  const out = [];
  for (const content of new Set(rows.map((r) => r.content))) {
    const own = rows.filter((r) => r.content === content).sort((a, b) => a.size - b.size);
    if (own.length < 2 || own[0].size === own.at(-1).size) continue;
    const [lo, hi] = [own[0], own.at(-1)];
    const fit = (side) => {
      const c = (lo[side].seconds - hi[side].seconds) / (lo[side].feeds - hi[side].feeds);
      const byteSeconds = hi[side].seconds - hi[side].feeds * c;
      // The same stream on both sides; router.mjs rows do not carry its length.
      return { nsPerFeed: c * 1e9, mbps: hi.native.bytes / 1e6 / byteSeconds };
    };
    out.push({ content, native: fit('native'), wasm: fit('wasm') });
  }
  return out;
}

/** Runs both sides on the streams in `dir`; returns the exit status. */
async function main(dir) {
  const files = dumpRouterStreams(dir);
  const nativeJson = join(dir, 'native.json');

  // Built before anything is timed, so the compile's load is over when the runs start.
  console.log('\n== native: cargo bench --bench native');
  const build = spawnSync('cargo', ['bench', '--bench', 'native', '--no-run'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) return 1;
  const loads = { nativeBefore: load() };
  const run = spawnSync('cargo', ['bench', '--bench', 'native', '--', ...common, '--json', nativeJson, ...files], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) return 1;
  loads.nativeAfter = load();
  const native = JSON.parse(readFileSync(nativeJson, 'utf8')).results;

  console.log('\n== wasm through the JS API: router.mjs');
  loads.wasmBefore = load();
  const { ok, results } = await runRouterBench(common);
  if (!ok) return 1;
  loads.wasmAfter = load();
  // router.mjs's streamroute variants: (a) text, (c) action-json.
  const wasm = results.filter((r) => r.variant === 'a' || r.variant === 'c');

  const rows = native.map((n) => {
    const w = wasm.find((r) => r.size === n.size && r.content === n.content);
    return { content: n.content, size: n.size, native: n, wasm: w, ratio: n.mbps / w.mbps };
  });
  console.log('\n| case | chunk | native MB/s | wasm-through-JS MB/s | native / wasm |');
  console.log('|---|---|--:|--:|--:|');
  for (const r of rows) {
    console.log(`| ${r.content} | ${sizeLabel(r.size)} | ${range(r.native)} | ${range(r.wasm)} | **${r.ratio.toFixed(2)}×** |`);
  }
  const split = splitCosts(rows);
  if (split.length) {
    console.log(
      '\n| case | ns per feed, native | ns per feed, wasm-through-JS | MB/s on the bytes, native | MB/s on the bytes, wasm-through-JS | native / wasm on the bytes |',
    );
    console.log('|---|--:|--:|--:|--:|--:|');
    for (const r of split) {
      console.log(
        `| ${r.content} | ${r.native.nsPerFeed.toFixed(0)} | ${r.wasm.nsPerFeed.toFixed(0)} | ` +
          `${r.native.mbps.toFixed(0)} | ${r.wasm.mbps.toFixed(0)} | **${(r.native.mbps / r.wasm.mbps).toFixed(2)}×** |`,
      );
    }
  }
  console.log(`1-min load average: native ${loads.nativeBefore} → ${loads.nativeAfter}, wasm ${loads.wasmBefore} → ${loads.wasmAfter}`);
  if (opts.json) {
    writeFileSync(opts.json, JSON.stringify({ date: new Date().toISOString(), node: process.version, loads, rows, split }, null, 2));
  }
  return 0;
}

const dir = mkdtempSync(join(tmpdir(), 'streamroute-native-'));
let status = 1;
try {
  status = await main(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
