// A Cloudflare Worker: a provider's streaming Response in, UI events out, as the AI SDK's UI
// message stream (what `useChat` reads).
import { routeResponse, toSse } from 'streamroute';

export default {
  async fetch(request, env) {
    const { messages } = await request.json();
    const upstream = await fetch(env.PROVIDER_URL, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: env.MODEL, stream: true, messages }),
    });
    const events = routeResponse(upstream, { provider: 'auto' }); // any provider's stream
    return new Response(events.pipeThrough(toSse('ai-sdk')), {
      headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' },
    });
  },
};
