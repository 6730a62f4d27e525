// The streamroute bin over every bundled sample stream: `streamroute route FILE --provider auto
// --content C [--nonce N] --json` prints the events the package's StreamRouter gives (the
// Bedrock samples are binary files read as bytes; the NDJSON ones are Ollama's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StreamRouter } from 'streamroute';
import { feedAll } from './helpers/chunking.mjs';
import { NONCE, SAMPLES, STREAMS_DIR, coalesce } from './helpers/streams.mjs';

const consumer = join(dirname(fileURLToPath(import.meta.url)), '.tmp', 'consumer');
const bin = join(consumer, 'node_modules', '.bin', 'streamroute');

test('the CLI routes every bundled sample stream as the package does', () => {
  for (const s of SAMPLES) {
    const args = ['route', join(STREAMS_DIR, s.file), '--provider', 'auto', '--content', s.content, '--json'];
    if (s.content === 'tagged') args.push('--nonce', NONCE);
    const lines = execFileSync(bin, args, { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const want = coalesce(feedAll(new StreamRouter({ content: s.content, nonce: NONCE }), [s.bytes]));
    assert.deepEqual(coalesce(lines), want, s.file);
    // And the readable form names the provider that auto detected.
    const human = execFileSync(
      bin,
      args.filter((a) => a !== '--json'),
      { encoding: 'utf8' },
    );
    assert.match(human, new RegExp(`\\(provider: ${s.provider}, content: ${s.content}\\)\\n$`), s.file);
  }
});

test('streamroute route --help names every provider StreamRouter reads', () => {
  const help = execFileSync(bin, ['route', '--help'], { encoding: 'utf8' });
  // The router's own list, from its error for a provider it does not know.
  let accepted;
  try {
    new StreamRouter({ provider: 'no-such-provider' });
  } catch (e) {
    accepted = /one of ([^;]+);/.exec(e.message)[1].split(', ');
  }
  assert.ok(accepted.length >= 8, accepted);
  const line = /--provider (\S+)/.exec(help)[1].split('|');
  assert.deepEqual(line.sort(), [...accepted].sort());
});
