// Declarations of sse.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

/**
 * Decodes `text/event-stream` bytes or text into events, exactly as the WHATWG standard
 * interprets an event stream.
 *
 * `feed`: decodes a chunk and returns the events it completed (possibly none). Throws
 * `StreamrouteError` `sse_event_too_large` when a cap is hit; the events completed before that
 * point are on the error as `error.events`.
 * `finish`: ends the stream: returns the last events (an unterminated event only with
 * `flushOnFinish`). The decoder may then be fed a new stream.
 */
export class SseDecoder extends StreamMachine<SseEvent[]> {
  /** `new SseDecoder({ flushOnFinish?, maxLineBytes?, maxEventBytes? })`. */
  constructor(options?: SseDecoderOptions);
  /** The last event ID string (`""` when none). */
  readonly lastEventId: string;
  /**
   * The id the frame being read gave, which takes effect at its blank line (`undefined`:
   * none). After `sse_event_too_large` it is the id the frame over the cap gave before the
   * line that broke the cap: a reader that skips that frame through its blank line applies it.
   */
  readonly pendingId: string | undefined;
  /** The last valid reconnection time in ms, `undefined` before any. */
  readonly retry: number | undefined;
}
