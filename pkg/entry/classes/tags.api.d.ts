// Declarations of tags.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

/**
 * Streams the blocks of a nonce-tagged response: block text as soon as it cannot be part of
 * a marker; never a marker, a partial marker or text outside blocks.
 *
 * `feed`: reads a chunk; returns the deltas that became certain (adjacent text of one block
 * comes as one delta). Throws `buffer_limit_exceeded` past the cap (the deltas before it are on
 * `error.deltas`), `invalid_state` after `finish()`.
 * `finish`: ends the response: `{ ok, parse_ok, blocks, violations, deltas }` (`deltas`: text
 * that was held and turned out not to be a marker). Throws `invalid_state` when called twice.
 */
export class TagFilter extends StreamMachine<TagDelta[], TagResult> {
  /**
   * `new TagFilter(nonce, { blocks?, maxBufferBytes? })`. Throws `invalid_option` for a
   * nonce that is not 1–128 of `[A-Za-z0-9_-]`, bad or repeated block names, or a cap
   * below the longest marker + 3.
   */
  constructor(nonce: string, options?: TagFilterInit);
  /**
   * Bytes held back right now (a possible marker prefix plus an incomplete UTF-8
   * sequence); never more than `maxBufferedBytes`.
   */
  readonly bufferedBytes: number;
  /** The bound on `bufferedBytes`: the longest marker − 1 + 3. */
  readonly maxBufferedBytes: number;
  /** The delta type of each block, in contract order (`["artifact_delta", "user_delta"]`). */
  readonly deltaTypes: string[];
}

/**
 * One model turn under the tag contract: exactly one automatic retry after a broken
 * response, then `done { ok: false, parse_ok: false }` keeping the last good state; a valid
 * response becomes the draft (memory only), final only on `confirm()`.
 *
 * `feed`: streams a chunk of the current response; returns its deltas.
 * `finish`: ends the current response: `{ type: "retry", corrective, result }` after a first
 * failure, else `{ type: "done", ok, parse_ok, result }`.
 */
export class TaggedTurn extends StreamMachine<TagDelta[], TurnStep> {
  /** `new TaggedTurn({ nonce?, blocks?, maxBufferBytes? })`. */
  constructor(options?: TaggedTurnInit);
  /** The nonce of the current turn. */
  readonly nonce: string;
  /** 1 for the first response, 2 for the retry. */
  readonly attempt: number;
  /** The contract text for the system prompt (`descriptions`: what each block holds). */
  contract(descriptions?: Record<string, string>): string;
  /** The blocks of the last valid response (memory only), or `null`. */
  readonly draft: Record<string, string> | null;
  /** The confirmed blocks, or `null`. */
  readonly final: Record<string, string> | null;
  /** Makes the draft final and returns it; throws `invalid_state` when there is none. */
  confirm(): Record<string, string>;
  /**
   * Starts the next turn (a fresh nonce, `makeNonce()` when omitted), keeping the draft
   * and the final blocks.
   */
  nextTurn(nonce?: string | null): void;
}

/**
 * Turns deltas into the SSE events of the design (`artifact_delta {text}`,
 * `user_delta {text}`, `done {ok, parse_ok}`, `ping {}`) with monotonic `id:` and an
 * optional `retry:` on the first event, through `SseEncoder`.
 */
export class TagEventWriter extends Handled {
  /**
   * One event per delta (`event: artifact_delta`, `data: {"text":…}`).
   */
  deltas(deltas: TagDelta[]): string;
  /**
   * The `done` event: `data: {"ok":…,"parse_ok":…}` (pass the `TagResult` or a turn's
   * `done` step).
   */
  done(result: DoneInit): string;
  /**
   * `new TagEventWriter({ firstId?, retry? })`.
   */
  constructor(options?: TagEventWriterInit);
  /**
   * The heartbeat event `event: ping`, `data: {}`.
   */
  ping(): string;
  /**
   * The id the next event will carry.
   */
  readonly nextId: number;
}

/**
 * One contract violation: its code and UTF-8 byte offset in the response.
 */
export interface TagViolation {
  /**
   * `text_outside_blocks`, `missing_block`, `duplicate_block`, `wrong_order`,
   * `unclosed_block`, `nested_marker` or `nonce_in_text`.
   */
  code: string;
  /**
   * UTF-8 byte offset in the response.
   */
  offset?: number;
}

/**
 * Text that became certain for one block: `type` is `"<lowercase block name>_delta"`.
 */
export interface TagDelta {
  /**
   * `"artifact_delta"`, `"user_delta"`, or `"<name>_delta"` for custom blocks.
   */
  type: 'artifact_delta' | 'user_delta' | `${string}_delta`;
  /**
   * The text (never holds a marker).
   */
  text: string;
}

/**
 * The verdict of `finish()` / `checkTagged()`.
 */
export interface TagResult {
  /**
   * The response was read to its end (`false` after `buffer_limit_exceeded`).
   */
  ok: boolean;
  /**
   * The response met the contract.
   */
  parse_ok: boolean;
  /**
   * Block texts by lowercase name (`""` for a missing block).
   */
  blocks: { artifact: string; user: string; [name: string]: string };
  /**
   * The violations in the order found.
   */
  violations: TagViolation[];
  /**
   * Deltas that became certain at `finish()` (a held tail that was text after all).
   */
  deltas: TagDelta[];
}

/**
 * What `TaggedTurn.finish()` says to do next.
 */
export type TurnStep =
  | { type: 'retry'; corrective: string; result: TagResult }
  | { type: 'done'; ok: boolean; parse_ok: boolean; result: TagResult };

// The functions of this module's entries (exported by the wasm glue).

/**
 * The strict final parser: the blocks by lowercase name (`{ artifact, user }`), or throws
 * `StreamrouteError` `tag_contract_violation` with `error.violations` (`[{ code, offset }]`,
 * byte offsets) and `error.offset` of the first. Agrees with `TagFilter` on every input.
 */
export function parseTagged(
  text: string,
  nonce: string,
  options_value?: TagFilterInit,
): { artifact: string; user: string; [name: string]: string };

/**
 * Judges a complete response without throwing on violations: the `TagResult` that
 * `TagFilter.finish()` gives for the same text (with `deltas: []`).
 */
export function checkTagged(text: string, nonce: string, options_value?: TagFilterInit): TagResult;

/**
 * Neutralises every sequence of untrusted text (user input, documents, tool output) that
 * could be read as a block marker for any nonce, including look-alike brackets and colons,
 * invisible characters and a fragment at the end: the opening bracket becomes `(` and the
 * bracket closing the token `)`. Ordinary brackets stay. Idempotent.
 */
export function sanitizeUntrusted(text: string): string;

/**
 * The strict prompt contract for the system prompt: exactly one block of each name in
 * order, nothing outside them, markers copied exactly.
 */
export function tagContract(nonce: string, options_value?: TagContractOptions): string;

/**
 * The short format-only corrective message for the single retry; `violations` (from
 * `finish()` or codes) say what went wrong.
 */
export function correctiveMessage(nonce: string, violations?: Array<TagViolation | string>, options_value?: TagFilterInit): string;

/**
 * 32 lowercase hex characters (128 bits) from the platform's cryptographic RNG.
 */
export function makeNonce(): string;

/** The `done` event's data. */
export interface DoneInit {
  /** The stream completed. */
  ok: boolean;
  /** The response met the contract. */
  parse_ok: boolean;
}
