#!/usr/bin/env node
// The streamroute command line: reads a raw stream from a file or stdin and prints what
// the package makes of it: SSE events (`sse`) or routed model output (`route`).
import { createReadStream } from 'node:fs';
import { SseDecoder, StreamRouter, version, StreamrouteError } from '../dist/streamroute/node.js';

// Every provider format `StreamRouter` reads (tests/js/cli.test.mjs checks the list against it).
const PROVIDERS = ['auto', 'openai-chat', 'openai-responses', 'anthropic', 'gemini', 'gemini-interactions', 'ollama', 'bedrock', 'cohere', 'text'];

const USAGE = `usage: streamroute <command> [FILE|-]

commands:
  sse [FILE|-]   decode a text/event-stream; print one JSON line per event
                 ({"event","data","id"}). Options: --flush (dispatch an
                 unterminated last event at the end)

  route [FILE|-] route a raw model stream (a provider's streaming response body, or
                 plain text) and print the routed events live, readably. Options:
                   --provider ${PROVIDERS.join('|')}
                                   (default auto: detected from the stream)
                   --content text|action-json|tagged   (default text)
                   --nonce N       the tag nonce (--content tagged)
                   --json          one JSON line per RoutedEvent instead

  --version      print the version
  --help         print this help (also after a command: route --help)

FILE '-' or no FILE reads standard input.`;

function fail(message, code = 2) {
  process.stderr.write(`streamroute: ${message}\n`);
  process.exit(code);
}

async function* chunksOf(file) {
  const stream = !file || file === '-' ? process.stdin : createReadStream(file);
  for await (const chunk of stream) yield chunk;
}

function print(items) {
  if (items.length === 0) return;
  let out = '';
  for (const item of items) out += JSON.stringify(item) + '\n';
  process.stdout.write(out);
}

async function sse(args) {
  const flushOnFinish = args.includes('--flush');
  const files = args.filter((a) => a === '-' || !a.startsWith('--'));
  if (files.length > 1) fail('sse takes at most one FILE');
  const decoder = new SseDecoder({ flushOnFinish });
  for await (const chunk of chunksOf(files[0])) print(decoder.feed(chunk));
  print(decoder.finish());
}

function option(args, name, fallback) {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) fail(`${name} needs a value`);
  args.splice(i, 2);
  return v;
}

/** Prints routed events for a person: text streams on under a heading per kind. */
function humanPrinter(out) {
  let current = null; // the kind of text being streamed under the last heading
  let bol = true; // at the beginning of a line
  const write = (s) => {
    if (!s) return;
    out.write(s);
    bol = s.endsWith('\n');
  };
  const head = (key, title) => {
    if (current === key) return;
    if (!bol) write('\n');
    write(`── ${title}\n`);
    current = key;
  };
  const line = (title) => {
    if (!bol) write('\n');
    write(`── ${title}\n`);
    current = null;
  };
  const n = (v) => (v === null || v === undefined ? '–' : v);
  return (events) => {
    for (const e of events) {
      switch (e.type) {
        case 'answer_delta': head('answer', 'answer'); write(e.text); break;
        case 'thinking_delta': head(`thinking ${e.source}`, `thinking (${e.source})`); write(e.text); break;
        case 'artifact_delta': head('artifact', 'artifact'); write(e.text); break;
        case 'user_delta': head('user', 'user'); write(e.text); break;
        case 'tool_call_start': head(`tool ${e.index}`, `tool call ${e.index}: ${e.name} (${e.id}), arguments`); break;
        case 'tool_call_delta': head(`tool ${e.index}`, `tool call ${e.index} arguments`); write(e.arguments); break;
        case 'tool_call':
          line(`tool call ${e.index} complete: ${e.name}(${JSON.stringify(e.arguments)})${e.repaired ? ' [repaired]' : ''}`);
          break;
        case 'action': line(`action: ${JSON.stringify(e.action)}`); break;
        case 'usage':
          line(`usage: input ${n(e.input_tokens)} · output ${n(e.output_tokens)} · total ${n(e.total_tokens)}` +
            ` · reasoning ${n(e.reasoning_tokens)} · cached ${n(e.cached_input_tokens)}`);
          break;
        case 'error': line(`error ${e.code}: ${e.message}`); break;
        case 'done':
          line(`done: ${e.ok ? 'ok' : 'NOT ok'} · parse_ok ${e.parse_ok} · finish_reason ${n(e.finish_reason)}`);
          break;
        default: line(JSON.stringify(e));
      }
    }
  };
}

async function route(args) {
  const json = args.includes('--json');
  args = args.filter((a) => a !== '--json');
  const provider = option(args, '--provider', 'auto');
  const content = option(args, '--content', 'text');
  const nonce = option(args, '--nonce', undefined);
  const unknown = args.filter((a) => a.startsWith('--'));
  if (unknown.length) fail(`unknown option ${unknown[0]}`);
  if (args.length > 1) fail('route takes at most one FILE');
  const router = new StreamRouter({ provider, content, nonce });
  const show = json ? print : humanPrinter(process.stdout);
  try {
    for await (const chunk of chunksOf(args[0])) show(router.feed(chunk));
    show(router.finish());
  } catch (err) {
    if (Array.isArray(err?.events)) show(err.events);
    delete err.events;
    throw err;
  }
  if (!json) process.stdout.write(`   (provider: ${router.provider}, content: ${content})\n`);
}

async function main(argv) {
  const [command, ...rest] = argv;
  const help = (a) => a === '--help' || a === '-h';
  if (!command || help(command) || rest.some(help)) return console.log(USAGE);
  if (command === '--version') return console.log(version());
  if (command === 'sse') return sse(rest);
  if (command === 'route') return route(rest);
  fail(`unknown command '${command}'\n${USAGE}`);
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof StreamrouteError) {
    if (Array.isArray(err.events)) print(err.events);
    const at = err.offset === undefined ? '' : ` (at byte ${err.offset})`;
    fail(`${err.code}: ${err.message}${at}`, 1);
  }
  if (err && err.code === 'ENOENT') fail(`cannot read ${err.path}`, 1);
  fail(err?.stack ?? String(err), 1);
});
