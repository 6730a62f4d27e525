// A Node server: a provider's streaming reply routed to the browser as SSE. When the browser
// goes away, the routing, the provider's stream and the heartbeat timer all stop.
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { routeResponse, toSse } from 'streamroute';

/** A server whose every request streams what `callProvider(request, signal)` answers. */
export function serve(callProvider) {
  return createServer(async (req, res) => {
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const upstream = await callProvider(req, gone.signal);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const sse = routeResponse(upstream, { signal: gone.signal }).pipeThrough(toSse('planner', { heartbeatMs: 10_000 }));
    Readable.fromWeb(sse).on('error', () => res.destroy()).pipe(res);
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const openai = (req, signal) => fetch('https://api.openai.com/v1/chat/completions', {
    method: 'POST',
    signal,
    headers: { authorization: `Bearer ${process.env.OPENAI_API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  serve(openai).listen(8787, () => console.log('http://localhost:8787'));
}
