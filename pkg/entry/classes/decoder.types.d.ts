// The types of decoder.js (the client entry's SseDecoder in JavaScript) that the other entries'
// declarations get from the Rust types (src/sse/decoder.rs `SseEvent`, src/wasm/sse.rs
// `SseDecoderOptions`): scripts/build appends this file before sse.api.d.ts for an entry whose
// SseDecoder is decoder.js.

/**
 * One dispatched event.
 */
export interface SseEvent {
  /**
   * The event type; `"message"` when the stream did not name one.
   */
  event: string;
  /**
   * The data lines joined with `\n`.
   */
  data: string;
  /**
   * The last event ID in force when this event was dispatched (`""` when none).
   */
  id: string;
}

/**
 * Options of `new SseDecoder(options)`.
 */
export interface SseDecoderOptions {
  /**
   * The longest accepted line in bytes (default 1 MiB).
   */
  maxLineBytes?: number;
  /**
   * The most data bytes one event may accumulate (default 8 MiB).
   */
  maxEventBytes?: number;
  /**
   * Dispatch an unterminated last event at `finish()` instead of discarding it.
   */
  flushOnFinish?: boolean;
}
