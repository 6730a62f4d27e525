// A worker whose event streams are logged in a Durable Object: SseLogDurableObject, exported
// from the package, owns each stream (one object per stream id, `env.LOG`), so a reader on any
// machine resumes through the object that holds the stream. tests/js/sse-log-workerd.test.mjs
// bundles it the way wrangler does and runs it in workerd through miniflare.
import { SseLogDurableObject, init } from 'streamroute';

export { SseLogDurableObject };

export default {
  async fetch(request, env, ctx) {
    await init();
    const url = new URL(request.url);
    const stream = url.searchParams.get('stream');
    if (!stream) return new Response('no stream', { status: 400 });
    const upstream = url.searchParams.get('upstream');
    if (upstream) {
      // The writer inside the worker, as a provider call is: the upstream's body into the log.
      const body = (await fetch(upstream)).body;
      url.searchParams.delete('upstream');
      ctx.waitUntil(env.LOG.get(env.LOG.idFromName(stream)).fetch(url, { method: 'POST', body }));
      return new Response(null, { status: 202 });
    }
    // POST (the writer), GET (a reader, Last-Event-ID resumes) and DELETE (stop) go to the
    // object that owns the stream.
    return env.LOG.get(env.LOG.idFromName(stream)).fetch(request);
  },
};
