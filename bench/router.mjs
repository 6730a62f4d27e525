// The stream router end to end: raw provider bytes in, the answer text out, against what apps
// do today, in one process and one run, over the ~5 MB OpenAI Chat Completions stream of
// gen.mjs (1-6 character deltas), in Uint8Array chunks of 64 B and 4 KiB.
//
//   content "text":
//     (a) streamroute  new StreamRouter({ provider: 'openai-chat' }).feed(Uint8Array), the
//         answer_delta texts concatenated
//     (b) TextDecoder.decode(chunk, {stream: true}) + eventsource-parser + JSON.parse of every
//         event + concatenation of choices[0].delta.content
//   content "action-json" (the same deltas, written as the answer of a planner action, so the
//   stream's text is `{"thought": ..., "next_node": "final_response", "args": {"answer": "<text>"}}`):
//     (c) streamroute  new StreamRouter({ provider: 'openai-chat', content: 'action-json' })
//     (d) (b) + the JS port of the reference's regex extractors (regex-extractor.mjs) fed each
//         delta, their output joined
//
// A measurement, not a test: nothing asserts a speed. The one check is correctness: every run
// of every variant must produce exactly the generator's answer text, else this prints an
// ERROR and exits 1.
//
//   node router.mjs [--iterations N] [--warmup-ms MS] [--sizes 64,4096] [--json FILE]
//   node router.mjs --dump DIR   writes the two streams (DIR/text.sse, DIR/action-json.sse:
//                                exactly the bytes fed) and the answer text each must give
//                                (DIR/<content>.answer.txt, UTF-8), then exits: the input of
//                                the native bench (native.rs, run by native.mjs)

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { createParser } from 'eventsource-parser';
import { generateStream, mulberry32 } from './gen.mjs';
import { StreamingArgsExtractor, StreamingThoughtExtractor } from './regex-extractor.mjs';
import { fullGc, median } from './timing.mjs';

const ENTRY = process.env.STREAMROUTE_ENTRY
  ? new URL(process.env.STREAMROUTE_ENTRY, `file://${process.cwd()}/`).href
  : new URL('../pkg/dist/streamroute/node.js', import.meta.url).href;
const { StreamRouter } = await import(ENTRY);

function parseArgs(argv) {
  const o = { iterations: 15, warmupMs: 1500, sizes: [64, 4096], json: null, dump: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--iterations') o.iterations = Number(argv[++i]);
    else if (a === '--warmup-ms') o.warmupMs = Number(argv[++i]);
    else if (a === '--sizes') o.sizes = argv[++i].split(',').map(Number);
    else if (a === '--json') o.json = argv[++i];
    else if (a === '--dump') o.dump = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

/** The action-json stream: the plain stream's answer text as `args.answer` of an action. */
function actionStream(plain, answer) {
  const rand = mulberry32(0xac7);
  const action = JSON.stringify({ thought: 'Answer the user directly.', next_node: 'final_response', args: { answer } });
  const head = plain.text.slice(0, plain.text.indexOf('"delta":') + '"delta":'.length);
  const parts = [];
  // 1-6 code points per delta (a surrogate pair is never cut, as providers send characters).
  const cps = [...action];
  for (let i = 0; i < cps.length; ) {
    const n = 1 + Math.floor(rand() * 6);
    const piece = cps.slice(i, i + n).join('');
    i += n;
    parts.push(`${head}{"content":${JSON.stringify(piece)}},"finish_reason":null}]}\n\n`);
  }
  parts.push(`${head}{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`);
  const text = parts.join('');
  return { text, bytes: new TextEncoder().encode(text) };
}

function byteChunks(bytes, size) {
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

// Each variant routes the whole stream once and returns the answer text.

function routerRun(content) {
  return (chunks) => {
    const r = new StreamRouter({ provider: 'openai-chat', content });
    let answer = '';
    for (let i = 0; i < chunks.length; i++) {
      const evs = r.feed(chunks[i]);
      for (let k = 0; k < evs.length; k++) if (evs[k].type === 'answer_delta') answer += evs[k].text;
    }
    const evs = r.finish();
    for (let k = 0; k < evs.length; k++) if (evs[k].type === 'answer_delta') answer += evs[k].text;
    r.free();
    return answer;
  };
}

/** What apps do today: decode, parse SSE, JSON.parse each event, route by hand. */
function jsRun(extract) {
  return (chunks) => {
    let answer = '';
    const args = extract ? new StreamingArgsExtractor() : null;
    const thought = extract ? new StreamingThoughtExtractor() : null;
    // biome-ignore lint/correctness/noUnusedVariables: the thought is extracted as the router extracts it; only the answer is compared
    let thinking = '';
    const p = createParser({
      onEvent(ev) {
        if (ev.data === '[DONE]') return;
        const obj = JSON.parse(ev.data);
        const delta = obj.choices?.[0]?.delta?.content;
        if (typeof delta !== 'string' || delta === '') return;
        if (!extract) {
          answer += delta;
          return;
        }
        const t = thought.feed(delta);
        if (t.length) thinking += t.join('');
        const a = args.feed(delta);
        if (a.length) answer += a.join('');
      },
    });
    const td = new TextDecoder('utf-8');
    for (let i = 0; i < chunks.length; i++) p.feed(td.decode(chunks[i], { stream: true }));
    const rest = td.decode();
    if (rest) p.feed(rest);
    return answer;
  };
}

/** The streams measured, by content mode, and the answer text both must give. */
function routerStreams() {
  const plain = generateStream();
  // The answer the generator wrote: every delta's content, concatenated (parsed once here).
  let answer = '';
  for (const line of plain.text.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    answer += JSON.parse(line.slice(6)).choices[0].delta.content ?? '';
  }
  const action = actionStream(plain, answer);
  return { plain, action, answer, streams: { text: plain, 'action-json': action } };
}

/**
 * Writes the measured streams into `dir` (`<content>.sse`, the bytes fed) with the answer
 * each must give (`<content>.answer.txt`); returns the stream files' paths.
 */
export function dumpRouterStreams(dir) {
  const { answer, streams } = routerStreams();
  mkdirSync(dir, { recursive: true });
  return Object.entries(streams).map(([content, s]) => {
    const file = join(dir, `${content}.sse`);
    writeFileSync(file, s.bytes);
    writeFileSync(join(dir, `${content}.answer.txt`), answer);
    return file;
  });
}

/**
 * Runs the router comparison and prints a markdown table (with `--dump DIR`, only writes
 * the streams: `dumpRouterStreams`).
 * @returns {Promise<{ ok: boolean, results: object[] }>}
 */
export async function runRouterBench(argv = []) {
  const opts = parseArgs(argv);
  if (opts.dump) {
    for (const file of dumpRouterStreams(opts.dump)) console.log(`wrote ${file} and its answer`);
    return { ok: true, results: [] };
  }
  const gc = fullGc();
  const { plain, action, answer, streams } = routerStreams();
  console.log(
    `streams: text ${plain.bytes.length} bytes (${plain.deltas} deltas), action-json ${action.bytes.length} bytes; ` +
      `answer ${answer.length} UTF-16 units; warm-up >= ${opts.warmupMs} ms per variant, median of ${opts.iterations} runs`,
  );
  const VARIANTS = [
    { key: 'a', content: 'text', label: 'streamroute StreamRouter', fn: routerRun('text') },
    { key: 'b', content: 'text', label: 'TextDecoder + eventsource-parser + JSON.parse + concat', fn: jsRun(false) },
    { key: 'c', content: 'action-json', label: 'streamroute StreamRouter (action-json)', fn: routerRun('action-json') },
    { key: 'd', content: 'action-json', label: '(b) + regex extractor port', fn: jsRun(true) },
  ];
  const load0 = loadavg()[0];
  const results = [];
  let ok = true;
  for (const size of opts.sizes) {
    const chunksOf = Object.fromEntries(Object.entries(streams).map(([k, s]) => [k, byteChunks(s.bytes, size)]));
    const times = new Map(VARIANTS.map((v) => [v.key, []]));
    const check = (v, got) => {
      if (got === answer || !ok) return;
      let i = 0;
      while (i < got.length && got[i] === answer[i]) i++;
      console.error(
        `ERROR: ${v.label} at ${size} B chunks: answer differs at UTF-16 unit ${i} ` +
          `(got ${got.length} units, want ${answer.length}): ${JSON.stringify(got.slice(i, i + 40))} vs ${JSON.stringify(answer.slice(i, i + 40))}`,
      );
      ok = false;
    };
    for (const v of VARIANTS) {
      const t0 = performance.now();
      for (let i = 0; i < 3 || performance.now() - t0 < opts.warmupMs; i++) check(v, v.fn(chunksOf[v.content]));
    }
    for (let r = 0; r < opts.iterations; r++) {
      for (const v of VARIANTS) {
        const chunks = chunksOf[v.content];
        gc({ type: 'minor' });
        const t0 = process.hrtime.bigint();
        const got = v.fn(chunks);
        const t1 = process.hrtime.bigint();
        times.get(v.key).push(Number(t1 - t0) / 1e9);
        check(v, got);
      }
    }
    for (const v of VARIANTS) {
      const MB = streams[v.content].bytes.length / 1e6;
      const t = times.get(v.key);
      const sec = median(t);
      results.push({
        size,
        feeds: chunksOf[v.content].length,
        variant: v.key,
        label: v.label,
        content: v.content,
        seconds: sec,
        mbps: MB / sec,
        minMbps: MB / Math.max(...t),
        maxMbps: MB / Math.min(...t),
      });
    }
  }
  printTable(results, opts);
  const load1 = loadavg()[0];
  console.log(
    `1-min load average: ${load0.toFixed(2)} before, ${load1.toFixed(2)} after` +
      (Math.max(load0, load1) > 1.2 ? ' (other work was running: expect wide ranges)' : ''),
  );
  if (opts.json) {
    writeFileSync(opts.json, JSON.stringify({ date: new Date().toISOString(), node: process.version, entry: ENTRY, results }, null, 2));
  }
  return { ok, results };
}

function printTable(results, opts) {
  const get = (size, key) => results.find((r) => r.size === size && r.variant === key);
  const fmt = (x) => x.toFixed(1);
  const sizeLabel = (s) => (s >= 1024 && s % 1024 === 0 ? `${s / 1024} KiB` : `${s} B`);
  console.log('');
  console.log('| chunk | content | feeds | streamroute MB/s | JS pipeline | JS MB/s | streamroute / JS |');
  console.log('|---|---|--:|--:|---|--:|--:|');
  for (const size of opts.sizes) {
    for (const [sr, js] of [
      ['a', 'b'],
      ['c', 'd'],
    ]) {
      const a = get(size, sr);
      const b = get(size, js);
      console.log(
        `| ${sizeLabel(size)} | ${a.content} | ${a.feeds} | ${fmt(a.mbps)} (${fmt(a.minMbps)}–${fmt(a.maxMbps)}) | ` +
          `${b.label} | ${fmt(b.mbps)} (${fmt(b.minMbps)}–${fmt(b.maxMbps)}) | **${(a.mbps / b.mbps).toFixed(2)}×** |`,
      );
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ok } = await runRouterBench(process.argv.slice(2));
  if (!ok) process.exit(1);
}
