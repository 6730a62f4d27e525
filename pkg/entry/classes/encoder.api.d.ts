// Declarations of encoder.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

/**
 * Encodes events as `text/event-stream` text.
 */
export class SseEncoder extends Handled {
  /**
   * A comment block (`: text`), ignored by readers.
   */
  comment(text: string): string;
  /**
   * The wire form of one event, ending with the blank line that dispatches it.
   * Throws `sse_invalid_field` for CR/LF in `event` or `id`.
   */
  encode(message: SseMessageInit): string;
  /**
   * `new SseEncoder({ autoId?, firstId? })`.
   */
  constructor(options?: SseEncoderOptions);
  /**
   * The heartbeat comment `: ping`.
   */
  ping(): string;
}

/** An event to encode. */
export interface SseMessageInit {
  /** The event type; omitted or `""` for an unnamed (`"message"`) event. */
  event?: string;
  /** The data; line breaks become several `data:` lines. */
  data: string;
  /** An explicit id (overrides the automatic one): a string, or a number written as JS writes it. */
  id?: string | number;
  /** A reconnection time in milliseconds. */
  retry?: number;
}
