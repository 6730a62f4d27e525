#!/usr/bin/env node
// Writes the Amazon Bedrock ConverseStream sample streams (examples/streams/bedrock-*.bin) in
// the binary application/vnd.amazon.eventstream framing, from the event lists below (written
// from the ConverseStream API reference). `node scripts/make-bedrock-fixtures.mjs --check`
// exits 1 when a committed file differs from what this script writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'streams');

const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => {
  let c = 0xffffffff;
  for (const b of bytes) c = TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/** One message: string headers (type 7), a JSON payload. */
function message(headers, payload) {
  const enc = new TextEncoder();
  const parts = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = enc.encode(name);
    const v = enc.encode(value);
    parts.push(Uint8Array.of(n.length), n, Uint8Array.of(7, v.length >> 8, v.length & 0xff), v);
  }
  const h = Buffer.concat(parts);
  const p = enc.encode(JSON.stringify(payload));
  const total = 12 + h.length + p.length + 4;
  const m = Buffer.alloc(total);
  m.writeUInt32BE(total, 0);
  m.writeUInt32BE(h.length, 4);
  m.writeUInt32BE(crc32(m.subarray(0, 8)), 8);
  h.copy(m, 12);
  Buffer.from(p).copy(m, 12 + h.length);
  m.writeUInt32BE(crc32(m.subarray(0, total - 4)), total - 4);
  return m;
}

const event = (type, payload) => message({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, payload);
const exception = (type, text) =>
  message({ ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }, { message: text });

const STREAMS = {
  'bedrock-text.bin': [
    event('messageStart', { role: 'assistant', p: 'abcdefgh' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'A short greeting ' } }, p: 'abcd' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'will do.' } }, p: 'ab' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'RXhhbXBsZVNpZ25hdHVyZQ==' } }, p: 'a' }),
    event('contentBlockStop', { contentBlockIndex: 0, p: 'abc' }),
    event('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Hello from ' }, p: 'abcdef' }),
    event('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Bedrock — naïve café 😀' }, p: 'abcdefghij' }),
    event('contentBlockStop', { contentBlockIndex: 1, p: 'abcdefg' }),
    event('messageStop', { stopReason: 'end_turn', p: 'abcd' }),
    event('metadata', {
      usage: { inputTokens: 21, outputTokens: 14, totalTokens: 35, cacheReadInputTokens: 4, cacheWriteInputTokens: 0 },
      metrics: { latencyMs: 612 },
      p: 'abc',
    }),
  ],
  'bedrock-tools.bin': [
    event('messageStart', { role: 'assistant' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Checking the weather.' } }),
    event('contentBlockStop', { contentBlockIndex: 0 }),
    event('contentBlockStart', {
      contentBlockIndex: 1,
      start: { toolUse: { toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather' } },
    }),
    event('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city": "Lis' } } }),
    event('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: 'boa", "unit": "celsius"}' } } }),
    event('contentBlockStop', { contentBlockIndex: 1 }),
    event('contentBlockStart', {
      contentBlockIndex: 2,
      start: { toolUse: { toolUseId: 'tooluse_Q2lkZXJ0YWcxMjM0NTY3', name: 'get_time' } },
    }),
    event('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"timezone": "Europe/Lisbon"}' } } }),
    event('contentBlockStop', { contentBlockIndex: 2 }),
    event('messageStop', { stopReason: 'tool_use' }),
    event('metadata', { usage: { inputTokens: 310, outputTokens: 58, totalTokens: 368 }, metrics: { latencyMs: 1480 } }),
  ],
  'bedrock-error.bin': [
    event('messageStart', { role: 'assistant' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Partial answer' } }),
    exception('throttlingException', 'Too many requests, please wait before trying again.'),
  ],
  'bedrock-reasoning.bin': [
    event('messageStart', { role: 'assistant' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Two trains close at 150 km/h; ' } } }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: '300 km takes two hours.' } } }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'RXhhbXBsZVNpZ25h' } } }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'dHVyZVBhcnRUd28=' } } }),
    event('contentBlockStop', { contentBlockIndex: 0 }),
    event('contentBlockDelta', {
      contentBlockIndex: 1,
      delta: { reasoningContent: { redactedContent: 'UmVkYWN0ZWRSZWFzb25pbmdCbG9iMDE=' } },
    }),
    event('contentBlockStop', { contentBlockIndex: 1 }),
    event('contentBlockDelta', { contentBlockIndex: 2, delta: { text: 'They meet after 2 hours.' } }),
    event('contentBlockStop', { contentBlockIndex: 2 }),
    event('messageStop', { stopReason: 'end_turn' }),
    event('metadata', { usage: { inputTokens: 64, outputTokens: 41, totalTokens: 105 }, metrics: { latencyMs: 930 } }),
  ],
};

const check = process.argv.includes('--check');
let stale = 0;
for (const [file, messages] of Object.entries(STREAMS)) {
  const bytes = Buffer.concat(messages);
  if (check) {
    let old = null;
    try {
      old = readFileSync(join(OUT, file));
    } catch {}
    if (!old?.equals(bytes)) {
      console.error(`${file} differs from scripts/make-bedrock-fixtures.mjs`);
      stale++;
    }
  } else {
    writeFileSync(join(OUT, file), bytes);
  }
}
process.exit(stale ? 1 : 0);
