// @ts-nocheck
// The wire profiles and `fromSse`: each profile module has its writer (`toSse`) and its reader
// (`fromSse`); this module picks one by name and reads frames with it.
import { SseDecoder } from '../classes/sse.js';
import { StreamrouteError } from '../runtime.js';
import { invalid, isObject } from './common.js';
import { reader as planner } from './planner.js';
import { reader as tagged } from './tagged.js';
import { reader as aiSdk } from './ai-sdk.js';

/** The reader of every profile by name (writers: web.js, so a page that only reads has none). */
const READERS = { planner, tagged, 'ai-sdk': aiSdk };

/** `profile` when it names a profile, else `invalid_option`. */
export function profileName(profile) {
  if (typeof profile !== 'string' || !Object.hasOwn(READERS, profile)) {
    const got = typeof profile === 'string' ? JSON.stringify(profile) : `a ${typeof profile}`;
    throw new StreamrouteError('invalid_option', `profile must be "planner", "tagged" or "ai-sdk", got ${got}`);
  }
  return profile;
}

/**
 * The reader of one profile: `frame(sseEvent)` gives the events of one decoded SSE frame. A
 * frame it cannot read gives an `error {code: "wire_invalid"}` and reading goes on.
 * `connectSse` and `fromSse` share it.
 */
export function wireReader(profile) {
  const r = READERS[profileName(profile)]();
  return {
    frame(f) {
      const name = f.event;
      if (name === 'ping' || (!r.named && f.data === '[DONE]')) return [];
      if (r.named && name === 'message') return [];
      let data;
      try {
        data = JSON.parse(f.data);
      } catch {
        return [invalid(`${name} frame: data is not JSON`, f)];
      }
      if (!isObject(data)) return [invalid(`${name} frame: data is not a JSON object`, f)];
      try {
        return r.read(name, data);
      } catch (err) {
        return [invalid(`${r.named ? name : data.type} frame: ${err?.message ?? err}`, f)];
      }
    },
  };
}

const utf8 = new TextEncoder();

// The UTF-8 length of a string (the decoder's offsets count UTF-8 bytes).
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2; // a surrogate pair is 4 bytes
  }
  return n;
}

// The index just past the first line end (CR or LF) at or after `from`, or -1.
function pastLineEnd(bytes, from) {
  for (let i = Math.max(0, from); i < bytes.length; i++) {
    if (bytes[i] === 0x0a) return i + 1;
    if (bytes[i] === 0x0d) return i + 1 < bytes.length && bytes[i + 1] === 0x0a ? i + 2 : i + 1;
  }
  return -1;
}

/**
 * A TransformStream<Uint8Array | string, WireEvent>: the inverse of `toSse(profile)`. Gives
 * routed events, artifact chunks and a `done` carrying `payload`; a frame it cannot read is an
 * `error {code: "wire_invalid"}` and reading goes on. `options.maxEventBytes` caps one frame
 * (default 8 MiB): a longer one is reported and skipped to the end of the line that broke the
 * cap, where a fresh decoder takes over.
 */
export function fromSse(profile, options) {
  const reader = wireReader(profile);
  const decoderOptions = options?.maxEventBytes === undefined ? undefined : { maxEventBytes: options.maxEventBytes };
  let decoder = new SseDecoder(decoderOptions);
  let offset = 0; // UTF-8 bytes the current decoder has been fed
  let skipping = false; // dropping input up to the next line end
  const read = (frames, controller) => {
    for (const f of frames) for (const e of reader.frame(f)) controller.enqueue(e);
  };
  const feed = (chunk, controller) => {
    if (skipping) {
      const bytes = typeof chunk === 'string' ? utf8.encode(chunk) : chunk;
      const at = pastLineEnd(bytes, 0);
      if (at < 0) return;
      skipping = false;
      chunk = bytes.subarray(at);
    }
    const start = offset;
    offset += typeof chunk === 'string' ? utf8Length(chunk) : chunk.byteLength;
    try {
      read(decoder.feed(chunk), controller);
    } catch (err) {
      // Only a frame over the cap is the wire's fault; a chunk that is neither text nor bytes
      // is the caller's (`invalid_input`) and errors the stream.
      if (!(err instanceof StreamrouteError) || err.code !== 'sse_event_too_large') throw err;
      read(err.events ?? [], controller);
      controller.enqueue({ type: 'error', code: 'wire_invalid', message: `${err.code}: ${err.message}` });
      decoder.free();
      decoder = new SseDecoder(decoderOptions);
      offset = 0;
      // Go on after the line the decoder stopped at (it starts at `err.offset`).
      const bytes = typeof chunk === 'string' ? utf8.encode(chunk) : chunk;
      const at = pastLineEnd(bytes, (err.offset ?? start) - start);
      if (at < 0) skipping = true;
      else if (at < bytes.length) feed(bytes.subarray(at), controller);
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      feed(chunk, controller);
    },
    flush(controller) {
      if (!skipping) read(decoder.finish(), controller);
      decoder.free();
    },
  });
}
