// What the SseLog tests in Node and workerd share: the routed events of a bundled sample, the
// text toSse writes for them, and the frames of an event stream text.
import { SseDecoder, StreamRouter, toSse } from 'streamroute';
import { NONCE } from './streams.mjs';
import { AG_UI_RUN, streamOf } from './client-roundtrip.mjs';

/** The routed events of a bundled sample. */
export function routed(sample) {
  const router = new StreamRouter({ content: sample.content, nonce: NONCE });
  const events = [...router.feed(sample.bytes), ...router.finish()];
  router.free();
  return events;
}

/** The text toSse(profile) writes for `events`. */
export async function wire(events, profile) {
  const run = profile === 'ag-ui' ? AG_UI_RUN : {};
  return new TextDecoder().decode(
    new Uint8Array(await new Response(streamOf(events).pipeThrough(toSse(profile, { heartbeatMs: 0, ...run }))).arrayBuffer()),
  );
}

/** The frames of an event stream text: [{ event, data }] (comments and pings aside). */
export function framesOf(text) {
  const d = new SseDecoder();
  const out = [...d.feed(text), ...d.finish()].filter((e) => e.event !== 'ping').map(({ event, data }) => ({ event, data }));
  d.free();
  return out;
}
