// An edge worker (Cloudflare Workers / workerd): proxy an upstream SSE stream, re-encoded.
import { init, SseDecoder, SseEncoder } from 'streamroute/sse';

export default {
  async fetch(request, env) {
    await init(); // the .wasm is imported as a compiled module: nothing to wait for
    const upstream = await fetch(env.UPSTREAM_URL);
    const decoder = new SseDecoder();
    const encoder = new SseEncoder({ autoId: true });
    const encode = (events, out) =>
      events.forEach(({ event, data }) => out.enqueue(encoder.encode({ event, data })));
    const body = upstream.body
      .pipeThrough(new TransformStream({
        transform: (chunk, out) => encode(decoder.feed(chunk), out),
        flush: (out) => encode(decoder.finish(), out),
      }))
      .pipeThrough(new TextEncoderStream());
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  },
};
