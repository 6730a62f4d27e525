// The bases every class declaration extends (Handled, StreamMachine), appended by scripts/build
// to the declarations of every entry (dist/<entry>/streamroute.d.ts), where the types they name live.

// The web types the glue's `init` declarations name, for programs without the DOM lib.
import type { BufferSource, RequestInfo, WebAssembly } from '../../types/web.js';

/**
 * A JS object over wasm memory: `free()` (or the end of a `using` block) gives the memory back
 * now; a freed object throws `invalid_state`. Without either, the memory goes back when the
 * object is garbage-collected.
 */
declare class Handled {
  /** Frees the wasm memory now (`using` does it at the end of the block); later calls throw `invalid_state`. */
  free(): void;
}

/**
 * `[Symbol.dispose]()` (the same as `free`), declared where the TypeScript lib has
 * `Symbol.dispose` (`esnext.disposable`, `@types/node`): without it the declarations still
 * compile, and `using` is not offered.
 */
declare interface Handled extends Record<SymbolConstructor extends { readonly dispose: infer K extends symbol } ? K : never, () => void> {}

/**
 * What every streaming class has: `feed` a chunk (a string, a `Uint8Array` or any other
 * `ArrayBuffer` view or `ArrayBuffer`), then `finish` the input.
 */
declare class StreamMachine<Result, Final = Result> extends Handled {
  /** Reads a chunk; returns the results it completed (see the class). */
  feed(chunk: string | Uint8Array): Result;
  /** Ends the input; returns the last results (see the class). */
  finish(): Final;
}

/** What this build is: the npm entry it is, its cargo features, its version and the default limits of its machines. */
export interface BuildInfo {
  /** The npm entry this build is loaded by (`"streamroute"`, `"streamroute/sse"`, ...). */
  entry: string;
  /** The cargo features it was built with (`["sse"]`, `["sse", "json", "tags", "router"]`). */
  features: string[];
  /** The package version (one for every entry). */
  version: string;
  /** Default caps in bytes, by name (`sseMaxLineBytes`, `sseMaxEventBytes` where the build has the SSE decoder). */
  limits: Record<string, number>;
}

/** The entry, features, version and default limits of this build. */
export function buildInfo(): BuildInfo;
