// The bundled sample streams (examples/streams/manifest.json) and the comparison the router
// tests use: adjacent text deltas of the same kind (and argument text of the same call) may
// be cut differently for different chunkings, so they are merged before comparing.
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STREAMS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'streams');

const manifest = JSON.parse(readFileSync(join(STREAMS_DIR, 'manifest.json'), 'utf8'));
export const NONCE = manifest.nonce;

/**
 * [{ file, provider, content, bytes, text, binary }]: `binary` streams (Bedrock's event-stream
 * framing) are fed as bytes only; their `text` is a lossy decoding, not a chunk to feed.
 */
export const SAMPLES = manifest.streams.map((s) => {
  const bytes = new Uint8Array(readFileSync(join(STREAMS_DIR, s.file)));
  return { ...s, bytes, text: new TextDecoder().decode(bytes), binary: s.provider === 'bedrock' };
});

export function coalesce(events) {
  const out = [];
  for (const e of events) {
    const last = out.at(-1);
    const textual = ['answer_delta', 'artifact_delta', 'user_delta', 'thinking_delta', 'refusal_delta', 'compaction'];
    if (last && last.type === e.type && textual.includes(e.type) && last.source === e.source && last.phase === e.phase) {
      out[out.length - 1] = { ...last, text: last.text + e.text };
    } else if (last && last.type === 'tool_call_delta' && e.type === 'tool_call_delta' && last.index === e.index) {
      out[out.length - 1] = { ...last, arguments: last.arguments + e.arguments };
    } else {
      out.push(e);
    }
  }
  return out;
}

/** The concatenated text of one event kind. */
export const textOf = (events, type, source) =>
  events
    .filter((e) => e.type === type && (source === undefined || e.source === source))
    .map((e) => e.text)
    .join('');

/**
 * The parts of an AI SDK UI message stream (`toSse("ai-sdk")` output), as `[id, part]`, with
 * adjacent deltas of the same part merged (their cut follows the chunking); `[DONE]` is the
 * string '[DONE]'.
 */
export function aiSdkParts(events) {
  const out = [];
  for (const { id, data } of events) {
    const part = data === '[DONE]' ? data : JSON.parse(data);
    const last = out.at(-1)?.[1];
    const key = { 'text-delta': 'delta', 'reasoning-delta': 'delta', 'tool-input-delta': 'inputTextDelta' }[part.type];
    if (key && last?.type === part.type && (last.id ?? last.toolCallId) === (part.id ?? part.toolCallId)) {
      out[out.length - 1] = [out.at(-1)[0], { ...last, [key]: last[key] + part[key] }];
    } else {
      out.push([id, part]);
    }
  }
  return out;
}

/** Serves `bytes` as text/event-stream in `size`-byte writes, `delayMs` apart. */
export function replay(res, bytes, size = 37, delayMs = 1) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  let i = 0;
  const next = () => {
    if (i >= bytes.length) return res.end();
    res.write(bytes.subarray(i, i + size));
    i += size;
    setTimeout(next, delayMs);
  };
  next();
}
