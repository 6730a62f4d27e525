// The whole benchmark: the SSE decoding comparison (sse.mjs), the streaming JSON comparison
// (json.mjs: AnswerExtractor and PartialJson against the reference's regex extractor and the
// npm parsers), the repair comparison (repair.mjs: repairJson against jsonrepair,
// normalizeAction against strip-fence + JSON.parse), artifact redaction and collection of a
// 5 MB observation (payload.mjs: against a JS implementation of the same walk), the planning
// tool search (planning.mjs: ToolIndex.search against JS loops), the stream router (router.mjs:
// StreamRouter against TextDecoder + eventsource-parser + JSON.parse, with and without the regex
// extractor), nonce-tag streaming (tags.mjs: TagFilter against a JS indexOf filter), the client
// fold (client.mjs: StreamState over many small deltas), then the size of the shipped .wasm (scripts/size.mjs). Arguments go to sse.mjs
// (see there); the other sections run with their defaults. Exits 1 only when a variant decoded something
// wrongly; speed is reported, never asserted.
//
//   node run.mjs [--iterations N] [--warmup-ms MS] [--sizes 64,4096] [--json FILE]

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runSseBench } from './sse.mjs';
import { runJsonBench } from './json.mjs';
import { runRepairBench } from './repair.mjs';
import { runPayloadBench } from './payload.mjs';
import { runPlanningBench } from './planning.mjs';
import { runRouterBench } from './router.mjs';
import { runTagsBench } from './tags.mjs';
import { runClientBench } from './client.mjs';

const cpu = cpus();
console.log(`# streamroute bench, ${new Date().toISOString()}`);
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpu.length} cores ` +
    `(${cpu[0]?.model.trim() ?? 'unknown CPU'}), load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
);
if (process.env.STREAMROUTE_ENTRY) console.log(`streamroute entry: ${process.env.STREAMROUTE_ENTRY}`);
console.log('');
console.log('## SSE decoding');
console.log('');

const { ok: sseOk } = await runSseBench(process.argv.slice(2));

console.log('');
console.log('## Streaming JSON: answer extraction and partial parsing');
console.log('');

const { ok: jsonOk } = await runJsonBench([]);

console.log('');
console.log('## JSON repair and action normalisation');
console.log('');

const { ok: repairOk } = await runRepairBench([]);

console.log('');
console.log('## Artifact redaction and collection (FinalPayload)');
console.log('');

const { ok: payloadOk } = await runPayloadBench([]);

console.log('');
console.log('## Planning: exact top-8 tool search');
console.log('');

const { ok: planningOk } = await runPlanningBench([]);

console.log('');
console.log('## Stream router: provider bytes to answer text');
console.log('');

const { ok: routerOk } = await runRouterBench([]);

console.log('');
console.log('## Nonce-tag streaming: TagFilter');
console.log('');

const { ok: tagsOk } = await runTagsBench([]);

console.log('');
console.log('## Client: StreamState folding small deltas');
console.log('');

const { ok: clientOk } = await runClientBench([]);
const ok = sseOk && jsonOk && repairOk && payloadOk && planningOk && routerOk && tagsOk && clientOk;

console.log('');
console.log('## Size');
console.log('');
const sizeScript = fileURLToPath(new URL('../scripts/size.mjs', import.meta.url));
// Every entry of the built package (pkg/dist), or with STREAMROUTE_ENTRY the .wasm next to
// the entry that was measured.
if (!process.env.STREAMROUTE_ENTRY) {
  execFileSync(process.execPath, [sizeScript], { stdio: 'inherit' });
} else {
  const entry = new URL(process.env.STREAMROUTE_ENTRY, `file://${process.cwd()}/`);
  const wasm = [new URL('./streamroute_bg.wasm', entry), new URL('../dist/streamroute_bg.wasm', entry)]
    .map((u) => fileURLToPath(u))
    .find((f) => existsSync(f));
  if (!wasm) {
    console.log(`(no .wasm next to ${fileURLToPath(entry)}: build the package with scripts/build)`);
  } else {
    execFileSync(process.execPath, [sizeScript, wasm], { stdio: 'inherit' });
  }
}

if (!ok) {
  console.error('\nFAILED: some variant did not decode its input correctly (see ERROR above).');
  process.exit(1);
}
