// A Cloudflare Worker: a turn's model call, routed and written as AG-UI events into a Durable
// Object log, so the page reads it whole however often it reloads or loses its connection.
// wrangler.toml: [[durable_objects.bindings]] name = "LOG", class_name = "SseLogDurableObject"
import { init, SseLogDurableObject, StreamRouter, toSse } from 'streamroute';

export { SseLogDurableObject };

export default {
  async fetch(request, env, ctx) {
    await init();
    const id = new URL(request.url).searchParams.get('turn'); // the page names its turn
    const log = env.LOG.get(env.LOG.idFromName(id)); // the one object that owns this stream
    const at = `https://log/?stream=${encodeURIComponent(id)}`;
    if (request.method === 'POST') {
      // Start the turn: the provider's stream, routed, as AG-UI frames, into the log. The
      // log's request lasts as long as the model writes, whoever reads.
      const upstream = await fetch(env.UPSTREAM_URL, { method: 'POST', body: await request.text() });
      const frames = upstream.body
        .pipeThrough(new StreamRouter({ content: 'text' }).transform())
        .pipeThrough(toSse('ag-ui', { threadId: 'chat', runId: id }));
      ctx.waitUntil(log.fetch(at, { method: 'POST', body: frames }));
      return new Response(null, { status: 202 });
    }
    // A reader (the page, again after a reload): every frame from the first, or after its
    // Last-Event-ID when connectSse resumes a dropped connection, then the live ones.
    return log.fetch(at, { headers: { 'last-event-id': request.headers.get('last-event-id') ?? '' } });
  },
};
