// What every entry of the package declares alike: the one error class (shared by every entry
// at run time too) and `init`.
import type { BufferSource, WebAssembly } from './web.js';

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
  /** Every problem of a `payload_invalid` error, with its path (e.g. `sources[0].title`). */
  readonly problems?: { path: string; message: string }[];
  /** `tag_contract_violation` (`parseTagged`): every violation, byte offsets. */
  readonly violations?: { code: string; offset: number }[];
  /** `TagFilter.feed`: the deltas produced before the failure. */
  readonly deltas?: { type: string; text: string }[];
  /** `requirements_invalid`: every problem with its path (see `reextractionMessage`). */
  readonly errors?: import('../dist/planning/streamroute.js').RequirementIssue[];
}

/** Options of `init`. */
export interface InitOptions {
  /**
   * The most wasm memory this entry may grow to, in bytes (at least 65536; whole 64 KiB pages).
   * Past it, calls fail as when memory cannot grow: `memory_limit_exceeded`, or
   * `instance_lost` for the objects of an instance lost to a trap (docs/errors.md).
   */
  maxMemoryBytes?: number;
}

/**
 * Loads the WebAssembly module. Idempotent: resolves at once where the module is already
 * loaded (Node, workers). In browsers, `input` may say where the `.wasm` comes from.
 * `options.maxMemoryBytes` caps the entry's wasm memory; throws `invalid_option` at once when
 * it is not a number of at least 65536.
 */
export declare function init(
  input?: string | URL | Request | Response | BufferSource | WebAssembly.Module,
  options?: InitOptions,
): Promise<void>;
export declare function init(options: InitOptions): Promise<void>;
