// Public types of the `streamroute` package. Data types and classes come from the generated
// declarations (tsify + wasm-bindgen); this file adds what the entries define by hand.
export * from './dist/streamroute.js';

/** Every error streamroute throws: a stable `code`, a `message`, and `offset` where known. */
export declare class StreamrouteError extends Error {
  constructor(code: string, message: string, offset?: number);
  readonly name: 'StreamrouteError';
  /** Stable machine-readable code, e.g. `"sse_event_too_large"`. */
  readonly code: string;
  /** Byte offset in the input where the problem was found, when there is one. */
  readonly offset?: number;
  /** Results produced before the failure by the call that threw (e.g. SSE events). */
  readonly events?: unknown[];
  /** `requirements_invalid`: every problem with its path (see `reextractionMessage`). */
  readonly errors?: import('./dist/streamroute.js').RequirementIssue[];
}

/**
 * Loads the WebAssembly module. Idempotent: resolves at once where the module is already
 * loaded (Node, workers). In browsers, `input` may say where the `.wasm` comes from.
 */
export declare function init(
  input?: string | URL | Request | Response | BufferSource | WebAssembly.Module,
): Promise<void>;
