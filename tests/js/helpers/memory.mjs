// Wasm memory used up under a small cap (`init({ maxMemoryBytes })`), in any runtime: run in
// Node by memory.test.mjs and in workerd by worker/memory-worker.js. Returns what happened as
// plain data (the tests compare it with EXPECTED); it never throws on a wrong outcome itself.
//
// Routers each holding an unfinished event (within their caps) until memory is used up; then
// constructors until one is refused; a one-shot call; a bystander router that held its own
// memory all along; everything freed. Then the calls that still trap (an allocation that
// cannot fail gracefully meets used-up memory), a one-shot function and a router's feed: the
// call, objects of the lost instance, and new objects and calls after it, a few hundred times
// over.
const MiB = 1 << 20;
export const CAP = 24 * MiB;
export const TRAPS = 300;

const ev = (type, fields = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const messageStart = ev('message_start', {
  message: { id: 'm', type: 'message', role: 'assistant', content: [], model: 'x', usage: { input_tokens: 1, output_tokens: 1 } },
});
const toolStart = ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_0', name: 'f', input: {} } });
const argsDelta = (text) => ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: text } });
const SMALL = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n';

export const EXPECTED = {
  badCap: 'invalid_option',
  hogCodes: ['memory_limit_exceeded'],
  withinCap: true,
  refusedConstructor: 'memory_limit_exceeded',
  refusedOneShot: 'memory_limit_exceeded',
  bystander: { q: 'cats' },
  afterFree: { router: 'hi', repair: '{"a":1}' },
  trap: { call: 'memory_limit_exceeded', old: 'instance_lost', oldFree: 'ok', fresh: 'hi' },
  feedTrap: { call: 'memory_limit_exceeded', old: 'instance_lost', fresh: 'hi' },
  traps: { codes: ['memory_limit_exceeded'], after: { router: 'hi', repair: '{"a":1}' } },
};

const codeOf = (e) => e?.code ?? `${e?.constructor?.name}: ${e?.message}`;

function attempt(f) {
  try {
    f();
    return 'ok';
  } catch (e) {
    return codeOf(e);
  }
}

/** A new router's answer to a small stream and `repairJson` of a cut object. */
function works({ StreamRouter, repairJson }) {
  const out = {};
  try {
    const r = new StreamRouter({ provider: 'openai-chat' });
    out.router = r
      .feed(SMALL)
      .map((e) => e.text)
      .join('');
    r.free();
  } catch (e) {
    out.router = codeOf(e);
  }
  try {
    out.repair = repairJson('{"a":1');
  } catch (e) {
    out.repair = codeOf(e);
  }
  return out;
}

/** `repairJsonWithLog` of `n` single-quoted members: one log entry each, kept infallibly. */
const manyRepairs = (n) => `{'a':${"'x',".repeat(n)}`;

export async function memoryReport(sr) {
  const { init, StreamRouter, repairJsonWithLog, __sr_memory } = sr;
  const report = {};
  report.badCap = attempt(() => init({ maxMemoryBytes: 1 }));
  await init({ maxMemoryBytes: CAP });

  const bystander = new StreamRouter({ provider: 'anthropic' });
  bystander.feed(messageStart + toolStart + argsDelta('{"q":'));

  // Routers each holding an unfinished SSE event of up to 4 MiB (their cap is 8 MiB).
  const chunk = 'x'.repeat(256 * 1024);
  const hogs = [];
  const hogCodes = new Set();
  for (let n = 0; n < 64; n++) {
    let fed = 0;
    try {
      const r = new StreamRouter({ provider: 'openai-chat' });
      hogs.push(r);
      r.feed('data: ');
      for (; fed < 16; fed++) r.feed(chunk);
    } catch (e) {
      hogCodes.add(codeOf(e));
      if (fed === 0) break; // memory is used up: this one failed at once
    }
  }
  report.hogCodes = [...hogCodes];
  report.withinCap = __sr_memory().buffer.byteLength <= CAP;

  // New routers until one is refused; then a one-shot call.
  const extra = [];
  report.refusedConstructor = 'never';
  for (let n = 0; n < 100_000; n++) {
    try {
      extra.push(new StreamRouter());
    } catch (e) {
      report.refusedConstructor = codeOf(e);
      break;
    }
  }
  report.refusedOneShot = attempt(() => sr.repairJson('{"a":1'));

  // The router that held its memory all along goes on.
  try {
    const events = bystander.feed(argsDelta('"cats"}') + ev('content_block_stop', { index: 0 }));
    report.bystander = events.find((e) => e.type === 'tool_call')?.arguments;
  } catch (e) {
    report.bystander = codeOf(e);
  }
  for (const r of [...hogs, ...extra, bystander]) r.free();
  report.afterFree = works(sr);

  // A call that traps: the first size whose log cannot be kept.
  const old = new StreamRouter({ provider: 'openai-chat' });
  report.trap = { call: 'no trap' };
  for (let n = 1 << 14; n <= 1 << 24; n *= 2) {
    const call = attempt(() => repairJsonWithLog(manyRepairs(n)));
    const oldCode = attempt(() => old.feed(SMALL));
    if (oldCode !== 'ok') {
      report.trap = { call, old: oldCode, oldFree: attempt(() => old.free()), fresh: works(sr).router, n };
      break;
    }
  }

  // A trap in a streaming machine's feed path (which calls wasm without the glue's wrapper): a
  // router reading one huge planner action.
  const action = (n) =>
    `data: ${JSON.stringify({ choices: [{ delta: { content: `{"next_node":"a","args":[${'{"a":1},'.repeat(n)}1]}` } }] })}\n\n`;
  const before = new StreamRouter({ provider: 'openai-chat' });
  report.feedTrap = { call: 'no trap' };
  for (let n = 1 << 12; n <= 1 << 22; n *= 2) {
    const call = attempt(() => {
      const r = new StreamRouter({ provider: 'openai-chat', content: 'action-json' });
      try {
        r.feed(action(n));
        r.finish();
      } finally {
        r.free();
      }
    });
    const oldCode = attempt(() => before.feed(SMALL));
    if (oldCode !== 'ok') {
      report.feedTrap = { call, old: oldCode, fresh: works(sr).router };
      break;
    }
  }

  // Many traps in a row: each is that call's memory_limit_exceeded, and the entry goes on.
  const codes = new Set();
  for (let k = 0; k < TRAPS && report.trap.n; k++) codes.add(attempt(() => repairJsonWithLog(manyRepairs(report.trap.n))));
  report.traps = { codes: [...codes], after: works(sr) };
  return report;
}
