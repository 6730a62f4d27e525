// Declarations of extractor.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

/**
 * Streams the user-facing answer out of a planner action as the model writes it.
 *
 * `feed`: reads a chunk; returns the newly decoded answer text (`""` when none).
 * `finish`: ends the stream; returns the last answer text (usually `""`).
 */
export class AnswerExtractor extends StreamMachine<string> {
  /** `new AnswerExtractor({ maxBufferBytes? })`. */
  constructor(options?: AnswerExtractorInit);
  /** Back to the initial state, for a retry. */
  reset(): void;
  /** The top-level `thought` text decoded since the last call. */
  takeThought(): string;
  /** `true` for a finish action, `false` for any other, `undefined` until decided. */
  readonly isFinishAction: boolean | undefined;
  /** The trimmed `next_node`, once read. */
  readonly nextNode: string | undefined;
  /** Unicode scalar values emitted so far. */
  readonly emittedCount: number;
}

/**
 * Turns an action stream into `llm_stream_chunk` objects: answer text as
 * `{phase: "answer", channel: "answer"}`, the legacy `thought` as
 * `{phase: "observation", channel: "thinking"}`, and a closing `{text: "", done: true}` only
 * for a finish action.
 *
 * `feed`: reads a chunk; returns the chunks to send (thought first, then answer).
 * `finish`: ends the stream; the closing `done` chunk comes only for a finish action.
 */
export class LlmStreamChunker extends StreamMachine<LlmStreamChunk[]> {
  /** `new LlmStreamChunker({ actionSeq?, maxBufferBytes? })`. */
  constructor(options?: LlmStreamChunkerInit);
  /** Back to the initial state, for a retry (same `actionSeq`). */
  reset(): void;
  /** The underlying extractor's decision (see `AnswerExtractor.isFinishAction`). */
  readonly isFinishAction: boolean | undefined;
}

/**
 * Options of `new AnswerExtractor(options)`.
 */
export interface AnswerExtractorInit {
  /**
   * Most bytes of answer text held back while `next_node` is undecided (default 8 MiB).
   */
  maxBufferBytes?: number;
}

// The functions of this module's entries (exported by the wasm glue).

/**
 * Finds and normalises the planner action in model output (or an object).
 * Throws `action_payload_unparseable` or `action_missing_next_node`.
 */
export function normalizeAction(raw: string | object): PlannerAction;

/**
 * `normalizeAction` plus where the action came from, the repairs applied, the ignored
 * prefix/suffix and the other candidates.
 */
export function normalizeActionWithDiagnostics(raw: string | object): NormalizedAction;

/**
 * The legacy `{thought, next_node, args, plan, join}` shape of a (normalised) action.
 */
export function actionToLegacy(action: PlannerAction | string): Record<string, unknown>;

/**
 * Repairs broken JSON (fences, prose, comments, quotes, Python and JS literals, commas,
 * truncation, …) into valid compact JSON text. Throws `StreamrouteError`
 * `json_unrepairable` when there is no value in `text`, `json_too_deep` past 512 levels.
 */
export function repairJson(text: string): string;

/**
 * `repairJson`, with the repairs applied: `{ json, repairs: [{ kind, offset }] }`, offsets
 * in UTF-16 code units of `text`.
 */
export function repairJsonWithLog(text: string): RepairResult;

/**
 * Parses JSON text into a JS value: strictly (RFC 8259; `json_invalid` with the UTF-16
 * `offset` of the problem), or with `{ repair: true }` after repairing it.
 */
export function parseJson(text: string, options?: ParseJsonOptions): unknown;

/** One `llm_stream_chunk` of the planner's SSE contract. */
export interface LlmStreamChunk {
  /** The new text (`""` for the closing chunk). */
  text: string;
  /** `true` only on the closing chunk of a finish action. */
  done: boolean;
  /** `"answer"` for answer text, `"observation"` for the streamed thought. */
  phase: string;
  /** `"answer"` or `"thinking"`. */
  channel: string;
  /** The action sequence number given to the chunker, or `null`. */
  action_seq: number | null;
}
