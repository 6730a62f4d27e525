// Types of partial.js for the TypeScript modules of pkg/entry (tsc only; the public declaration
// is partial.api.d.ts).
export type JsonPath = readonly (string | number)[];
/** One event of `PartialJson.feed`. */
export type JsonEvent =
  | { type: 'begin'; path: JsonPath; kind: 'object' | 'array' | 'string' }
  | { type: 'append'; path: JsonPath; text: string }
  | { type: 'set'; path: JsonPath; value: string | number | boolean | null }
  | { type: 'end'; path: JsonPath };
export class PartialJson {
  constructor(options?: { strict?: boolean; maxDepth?: number; maxBufferBytes?: number });
  feed(chunk: string | Uint8Array): JsonEvent[];
  finish(): unknown;
  readonly value: unknown;
  free(): void;
}
