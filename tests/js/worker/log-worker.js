// A worker whose event streams are logged in a Durable Object: SseLogDurableObject, exported
// from the package, owns each stream (one object per stream id, `env.LOG`), so a reader on any
// machine resumes through the object that holds the stream. tests/js/sse-log-workerd.test.mjs
// bundles it the way wrangler does and runs it in workerd through miniflare.
import { SseLogDurableObject, init } from 'streamroute';

export { SseLogDurableObject };

export default {
  async fetch(request, env) {
    await init();
    const stream = new URL(request.url).searchParams.get('stream');
    if (!stream) return new Response('no stream', { status: 400 });
    // POST (the writer), GET (a reader, Last-Event-ID resumes) and DELETE (stop) go to the
    // object that owns the stream.
    return env.LOG.get(env.LOG.idFromName(stream)).fetch(request);
  },
};
