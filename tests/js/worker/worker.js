// A module worker using the packed `streamroute` package. tests/js/workerd.test.mjs bundles it
// with esbuild the way wrangler does: `streamroute` resolves through its `workerd` export
// condition (dist/<entry>/workerd.js) and each entry's .wasm import stays a separate
// CompiledWasm module.
import {
  SseDecoder,
  SseEncoder,
  StreamRouter,
  StreamrouteError,
  TagEventWriter,
  TagFilter,
  init,
  makeNonce,
  toSse,
  version,
} from 'streamroute';
import { ToolIndex, narrowTools, checkCoverage, applyRemovals, validateRequirements, reextractionMessage } from 'streamroute/planning';
import * as streamroute from 'streamroute';
import { misuseCodes } from '../helpers/misuse.mjs';
import { QUICK, casesOf, roundTrips } from '../helpers/client-roundtrip.mjs';

/** Re-encodes an SSE request body event by event, with automatic ids. */
function reencode(body, options) {
  const decoder = new SseDecoder(options);
  const encoder = new SseEncoder({ autoId: true });
  const utf8 = new TextEncoder();
  let chunks = 0;
  // Only event and data: the incoming ids are replaced by the encoder's counter.
  const encode = (e) => encoder.encode({ event: e.event, data: e.data });
  const transform = new TransformStream({
    transform(chunk, controller) {
      chunks++;
      // Request bodies arrive as Uint8Array chunks; feed them as they are.
      for (const e of decoder.feed(chunk)) controller.enqueue(utf8.encode(encode(e)));
    },
    flush(controller) {
      for (const e of decoder.finish()) controller.enqueue(utf8.encode(encode(e)));
      controller.enqueue(utf8.encode(encoder.comment(`chunks ${chunks}`)));
      decoder.free();
      encoder.free();
    },
  });
  return body.pipeThrough(transform);
}

/** Streams the blocks of a nonce-tagged request body as SSE events (never a tag). */
function tagged(body, nonce) {
  const filter = new TagFilter(nonce);
  const sse = new TagEventWriter();
  const utf8 = new TextEncoder();
  return body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        controller.enqueue(utf8.encode(sse.deltas(filter.feed(chunk))));
      },
      flush(controller) {
        const result = filter.finish();
        controller.enqueue(utf8.encode(sse.deltas(result.deltas) + sse.done(result)));
      },
    }),
  );
}

export default {
  async fetch(request) {
    await init();
    await init();
    const url = new URL(request.url);

    if (url.pathname === '/client-roundtrip' && request.method === 'POST') {
      // The wire round trip (toSse → fromSse → StreamState) of the samples in the body.
      const { samples, nonce, seed } = await request.json();
      return Response.json(await roundTrips(streamroute, casesOf(streamroute, samples, nonce), { seed, pick: QUICK }));
    }
    if (url.pathname === '/reencode' && request.method === 'POST') {
      return new Response(reencode(request.body), {
        headers: { 'content-type': 'text/event-stream' },
      });
    }

    // The edge proxy of the README: a provider stream from upstream, routed and re-encoded
    // for the browser as an AI SDK UI message stream.
    if (url.pathname === '/route') {
      const upstream = await fetch(url.searchParams.get('upstream'));
      const router = new StreamRouter({
        content: url.searchParams.get('content') ?? 'text',
        nonce: url.searchParams.get('nonce') ?? undefined,
      });
      const body = upstream.body.pipeThrough(router.transform()).pipeThrough(toSse('ai-sdk', { retry: 1000 }));
      return new Response(body, {
        headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1', 'x-provider': 'pending' },
      });
    }

    if (url.pathname === '/tags' && request.method === 'POST') {
      return new Response(tagged(request.body, url.searchParams.get('nonce')), {
        headers: { 'content-type': 'text/event-stream' },
      });
    }

    if (url.pathname === '/info') {
      const nonces = [makeNonce(), makeNonce()];
      let error = null;
      try {
        new SseDecoder({ maxEventBytes: 8 }).feed('data: ok\n\ndata: far too long for the cap\n\n');
      } catch (err) {
        error = {
          code: err.code,
          name: err.name,
          message: err.message,
          isStreamrouteError: err instanceof StreamrouteError,
          isError: err instanceof Error,
          events: err.events,
        };
      }
      let invalid = null;
      try {
        new SseEncoder({}).encode({ event: 'bad\nname', data: 'x' });
      } catch (err) {
        invalid = { code: err.code, isStreamrouteError: err instanceof StreamrouteError };
      }
      // Wrong-typed arguments and a freed object are StreamrouteErrors in workerd too.
      const misuse = misuseCodes({ SseDecoder, SseEncoder, TagFilter, StreamrouteError });
      return Response.json({ version: version(), nonces, error, invalid, misuse });
    }

    // An error escaping a feed() inside the stream: the client sees it as a failed body.
    if (url.pathname === '/reencode-capped' && request.method === 'POST') {
      const out = reencode(request.body, { maxEventBytes: 8 });
      const reader = out.getReader();
      let text = '';
      const dec = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += dec.decode(value, { stream: true });
        }
        return Response.json({ text, code: null });
      } catch (err) {
        // The events completed before the cap was hit ride on the error.
        return Response.json({
          text,
          code: err.code ?? null,
          isStreamrouteError: err instanceof StreamrouteError,
          events: err.events,
        });
      }
    }

    // Planning at the edge: validate the extracted requirements, narrow the catalog with query
    // vectors (as Workers AI would embed them), gate the plan, drop unjustified steps.
    if (url.pathname === '/plan' && request.method === 'POST') {
      const body = await request.json();
      let requirements;
      try {
        requirements = validateRequirements(body.requirements);
      } catch (err) {
        return Response.json(
          {
            code: err.code,
            isStreamrouteError: err instanceof StreamrouteError,
            paths: err.errors.map((e) => e.path),
            retry: reextractionMessage(err),
          },
          { status: 422 },
        );
      }
      const index = new ToolIndex(body.catalog, { model_id: body.model_id, dim: body.dim, embeddings: Float32Array.from(body.embeddings) });
      const narrowed = narrowTools({
        index,
        requirements,
        template: body.template,
        cap: 8,
        queryVectors: { model_id: body.model_id, vectors: body.queryVectors.map((v) => Float32Array.from(v)) },
      });
      const report = checkCoverage(requirements, body.plan, null, index);
      const fixed = applyRemovals(body.plan, report);
      const after = checkCoverage(requirements, fixed, null, index);
      index.free();
      return Response.json({
        tools: narrowed.tools.map((t) => [t.name, t.reason]),
        method: narrowed.method,
        report: { ok: report.ok, missing: report.missing, unjustified: report.unjustified, message: report.message },
        fixed: fixed.steps.map((s) => s.tool),
        after: { ok: after.ok, lines: after.lines },
      });
    }

    return new Response('not found', { status: 404 });
  },
};
