// Connections that drop: a fetch for connectSse whose every response body errors after a random
// number of whole frames (1 to 7) and, half the time, a random number of bytes into the next
// one, delivered in random pieces. What the SseLog tests in Node and workerd resume through.
import { rng } from './chunking.mjs';

const BLANK = [0x0a, 0x0a];

/** The end of the first frame (`\n\n`) in `bytes` from `from`, or -1. */
function frameEnd(bytes, from) {
  for (let i = from; i + 1 < bytes.length; i++) if (bytes[i] === BLANK[0] && bytes[i + 1] === BLANK[1]) return i + 2;
  return -1;
}

/**
 * A body that gives `body`'s bytes in random pieces and errors (a dropped connection) after
 * `frames` whole frames and `extra` bytes of the next; `extra` past what arrived cuts where it
 * stops. Cancels `body` when it drops.
 */
export function dropping(body, frames, extra, next) {
  const reader = body.getReader();
  let seen = 0;
  let left = -1; // bytes still to pass once the frames are seen (-1: still counting frames)
  const give = (controller, bytes) => {
    for (let i = 0; i < bytes.length; ) {
      const j = Math.min(bytes.length, i + 1 + next(16));
      controller.enqueue(bytes.slice(i, j));
      i = j;
    }
  };
  let cut = false;
  const drop = (controller) => {
    reader.cancel().catch(() => {});
    controller.error(new TypeError('connection dropped'));
  };
  // A pull runs only when a read waits on an empty queue (highWaterMark 0), and each one
  // enqueues, closes or errors: a pull that gave nothing would leave that read waiting forever.
  return new ReadableStream(
    {
      async pull(controller) {
        // The drop comes after what was given before it is read (an error discards queued chunks).
        if (cut) return drop(controller);
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          if (value.length === 0) continue;
          let at = 0;
          let end = 0;
          while (left < 0 && (end = frameEnd(value, at)) >= 0) {
            at = end;
            if (++seen === frames) left = extra;
          }
          if (left < 0 || at + left >= value.length) {
            // The cut is not in this chunk: it all passes (a cut past the end of the stream never comes).
            if (left >= 0) left -= value.length - at;
            return give(controller, value);
          }
          // A cut at the very start of this chunk drops the connection now.
          if (at + left === 0) return drop(controller);
          give(controller, value.subarray(0, at + left));
          cut = true;
          return;
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A fetch for connectSse over `serve(lastEventId)` (a Response, or its promise) whose bodies
 * drop at random points. `log` gets each connection's Last-Event-ID. Seeded by `seed`.
 */
export function droppingFetch(serve, seed, log = []) {
  const next = rng(seed);
  return async (_url, init) => {
    const lastId = new Headers(init?.headers).get('last-event-id');
    log.push(lastId);
    const res = await serve(lastId, init);
    const frames = 1 + next(7);
    const extra = next(2) ? 1 + next(40) : 0;
    return new Response(dropping(res.body, frames, extra, next), { status: res.status, headers: res.headers });
  };
}
