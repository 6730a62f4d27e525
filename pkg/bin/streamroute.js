#!/usr/bin/env node
// The streamroute command line: reads a raw stream from a file or stdin and prints what
// the package makes of it, one JSON line per item.
import { createReadStream } from 'node:fs';
import { SseDecoder, version, StreamrouteError } from '../entry/node.js';

const USAGE = `usage: streamroute <command> [FILE|-]

commands:
  sse [FILE|-]   decode a text/event-stream; print one JSON line per event
                 ({"event","data","id"}). Options: --flush (dispatch an
                 unterminated last event at the end)

  --version      print the version
  --help         print this help

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

async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') return console.log(USAGE);
  if (command === '--version') return console.log(version());
  if (command === 'sse') return sse(rest);
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
