// The part of boundary.js the TypeScript modules of pkg/entry import. For `tsc` only.
import type { StreamrouteError } from './runtime.js';

/** A chunk's bytes as a Uint8Array, read with the built-in getters only; `null` if it is not an ArrayBuffer view or buffer. */
export function chunkView(chunk: unknown): Uint8Array | null;
/** The `invalid_input` error of a chunk that is neither text nor bytes. */
export function badChunk(): StreamrouteError;
