// Types of partial.js for the TypeScript modules of pkg/entry (tsc only; the public declaration
// is partial.api.d.ts).
import type { JsonEvent } from './partial.types.js';

export type { JsonEvent, JsonPath } from './partial.types.js';
export const EVENTS_ONLY: unique symbol;
export class PartialJson {
  constructor(options?: { strict?: boolean; maxDepth?: number; maxBufferBytes?: number });
  feed(chunk: string | Uint8Array): JsonEvent[];
  finish(): unknown;
  readonly value: unknown;
  free(): void;
  [EVENTS_ONLY](): this;
}
