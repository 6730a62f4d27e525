// The part of connect.js the TypeScript modules of pkg/entry import. For `tsc` only.

/**
 * The SseDecoder caps for frames of up to `maxEventBytes` data bytes (default 8 MiB): that
 * event cap and a line cap just above it, so such a frame is read whole whatever its line
 * length. A value that is not a positive integer is passed on for the decoder to reject.
 */
export function decoderCaps(maxEventBytes: unknown): { maxEventBytes?: number; maxLineBytes?: number };

/**
 * A plain copy of the `allowed` keys of an options object, each read once (`null`: every key);
 * another key, or a getter that throws, is `invalid_input`. `undefined` and `null` are `{}`.
 */
export function optionsIn(options: unknown, allowed: readonly string[] | null): { [key: string]: unknown };
