// The bundled sample streams (examples/streams/manifest.json) and the comparison the router
// tests use: adjacent text deltas of the same kind (and argument text of the same call) may
// be cut differently for different chunkings, so they are merged before comparing.
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STREAMS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'streams');

const manifest = JSON.parse(readFileSync(join(STREAMS_DIR, 'manifest.json'), 'utf8'));
export const NONCE = manifest.nonce;

/** [{ file, provider, content, bytes, text }] */
export const SAMPLES = manifest.streams.map((s) => {
  const bytes = new Uint8Array(readFileSync(join(STREAMS_DIR, s.file)));
  return { ...s, bytes, text: new TextDecoder().decode(bytes) };
});

export function coalesce(events) {
  const out = [];
  for (const e of events) {
    const last = out.at(-1);
    const textual = ['answer_delta', 'artifact_delta', 'user_delta', 'thinking_delta'];
    if (last && last.type === e.type && textual.includes(e.type) && last.source === e.source) {
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
  events.filter((e) => e.type === type && (source === undefined || e.source === source)).map((e) => e.text).join('');
