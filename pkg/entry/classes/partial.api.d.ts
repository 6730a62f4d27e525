// Declarations of partial.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

/**
 * The incremental parser for one JSON document arriving in pieces (tool-call arguments,
 * structured output): `feed` returns what changed as `JsonEvent`s; `value` is the partial
 * value at any time.
 *
 * `feed`: reads a chunk and returns the events it caused (one `append` per string per call).
 * Throws `StreamrouteError` `json_invalid` (strict mode), `json_too_deep` or
 * `buffer_limit_exceeded` with `offset`; the events before the error are on it as
 * `error.events`. After an error every call throws it again.
 * `finish`: ends the document and returns its value. Throws `json_invalid` with `offset` when
 * the input ended inside the value (the partial value stays readable on `value`), and
 * `invalid_state` when called again.
 */
export class PartialJson extends StreamMachine<JsonEvent[], unknown> {
  /** `new PartialJson({ strict?, maxDepth?, maxBufferBytes? })`. */
  constructor(options?: PartialJsonOptions);
  /**
   * The value so far, built on each read: strings as read so far, containers with the
   * members read so far; keys without a value and unfinished numbers left out.
   * `undefined` before a value begins.
   */
  readonly value: unknown;
}
