// Wasm memory used up (tests/js/helpers/memory.mjs) in Node and in workerd: the call that cannot
// get memory throws memory_limit_exceeded and the other objects go on; where the engine still
// traps, the instance is replaced (objects of the lost one throw instance_lost) and new objects
// and calls work; init({ maxMemoryBytes }) caps the memory. Its own process (and its own
// workerd): the cap holds for the whole entry. Run after ./setup-consumer.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import * as streamroute from 'streamroute';
import { EXPECTED, memoryReport } from './helpers/memory.mjs';
import { JS_DIR, bundleWorker } from './helpers/runtimes.mjs';

const omitN = ({ n, ...trap }) => trap;

function check(report) {
  assert.ok(report.trap.n > 0, `a trapping call was found: ${JSON.stringify(report.trap)}`);
  assert.deepEqual({ ...report, trap: omitN(report.trap) }, EXPECTED);
}

test('Node: memory used up under maxMemoryBytes; then traps, each a fresh instance', { timeout: 300_000 }, async (t) => {
  const report = await memoryReport(streamroute);
  t.diagnostic(`trapping repairJsonWithLog at ${report.trap.n} members`);
  check(report);
});

test('workerd: the same inside a worker', { timeout: 300_000 }, async () => {
  const root = join(JS_DIR, '.tmp', 'memory-worker-bundle');
  const bundle = await bundleWorker(join(JS_DIR, 'worker', 'memory-worker.js'), root);
  const mf = new Miniflare({ modulesRoot: root, modules: bundle.modules, compatibilityDate: '2025-01-01' });
  try {
    const res = await mf.dispatchFetch('http://localhost/');
    check(await res.json());
  } finally {
    await mf.dispose();
  }
});
