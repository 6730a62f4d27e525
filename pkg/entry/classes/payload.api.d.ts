// Declarations of payload.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

/**
 * Collects artifact fields from full tool observations, by tool name.
 */
export class ArtifactCollector extends Handled {
  /**
   * Everything collected: tool name to `{ field: value }` (a copy).
   */
  all(): Record<string, Record<string, unknown>>;
  /**
   * Forgets every artifact and warning.
   */
  clear(): void;
  /**
   * `collectAndRedact` on JSON text in and out.
   */
  collectAndRedactJson(nodeName: string, schema: Record<string, unknown> | boolean | string, observationJson: string): string;
  /**
   * `collect` and `redactArtifacts` in one walk: collects, then returns the redacted
   * observation (a JSON-text string observation comes back as text, as `redactArtifacts`).
   */
  collectAndRedact(nodeName: string, schema: Record<string, unknown> | boolean | string, observation: unknown): unknown;
  /**
   * `collect` with the observation as JSON text (a JSON string literal holding a JSON
   * object or array is collected from, as `collect` does with such a string).
   */
  collectJson(nodeName: string, schema: Record<string, unknown> | boolean | string, observationJson: string): void;
  /**
   * Collects the artifact-marked fields of `observation` under `nodeName`. Call it with
   * the full observation, before any truncation. A string holding a JSON object or array is
   * read as JSON text; other primitives hold no artifacts.
   */
  collect(nodeName: string, schema: Record<string, unknown> | boolean | string, observation: unknown): void;
  /**
   * A collector. `maxInlineBytes` (default 1 MiB): larger artifacts are handed to `store`
   * and replaced by `{ artifact_ref, type, size_bytes }`; an `artifact_large` warning is
   * recorded either way. Throws `invalid_option` for a bad option.
   */
  constructor(options?: ArtifactCollectorOptions);
  /**
   * The size above which artifacts go to the store.
   */
  readonly maxInlineBytes: number;
  /**
   * The `artifact_large` warnings recorded so far.
   */
  readonly warnings: string[];
}

/**
 * Numbers artifact chunks per `stream_id` and makes `artifact_chunk` events of them.
 */
export class ArtifactStream extends Handled {
  /**
   * The next chunk of `streamId` as an `artifact_chunk` event (`seq` from 0 per stream).
   * `artifactType` defaults to the chunk's type name. Throws `invalid_state` after the
   * stream's `done` chunk, `invalid_input` for an empty id or a chunk that is not JSON.
   */
  emit(streamId: string, chunk: unknown, done?: boolean | null, artifactType?: string | null): ArtifactChunkEvent;
  /**
   * The `done` event that ends the run, carrying the payload (validated: throws
   * `payload_invalid`).
   */
  finish(payload: FinalPayload): FinalPayloadDoneEvent;
  /**
   * A stream set with no streams yet.
   */
  constructor();
  /**
   * Ids of streams that have not sent their `done` chunk.
   */
  openStreams(): string[];
  /**
   * Forgets every stream (numbering starts again at 0).
   */
  reset(): void;
}

/**
 * One step of a parallel plan (`next_node: "plan"`).
 */
export interface PlanStep {
  /**
   * The tool to call.
   */
  node: string;
  /**
   * Its arguments.
   */
  args: Record<string, unknown>;
}
/**
 * How the results of a parallel plan are joined.
 */
export interface PlanJoin {
  /**
   * The aggregation tool, or `null` to let the model combine the results.
   */
  node?: string | null;
  /**
   * Arguments of the aggregation tool.
   */
  args?: Record<string, unknown>;
  /**
   * Argument name to data source (`"$results"`, `"$branches"`, `"$failures"`, ...).
   */
  inject?: Record<string, string>;
}
/**
 * The args of a `plan` action.
 */
export interface PlanArgs {
  /**
   * The tool calls to run in parallel.
   */
  steps: PlanStep[];
  /**
   * How to join their results.
   */
  join?: PlanJoin;
}
/**
 * The args of a `task` action (a background task); every field is optional.
 */
export interface TaskArgs {
  /**
   * Display name.
   */
  name?: string;
  /**
   * `"subagent"` (a background agent runs `query`) or `"job"` (one tool call).
   */
  mode?: 'subagent' | 'job';
  /**
   * The query of a subagent task.
   */
  query?: string;
  /**
   * The tool of a job task.
   */
  tool?: string;
  /**
   * The tool's arguments.
   */
  tool_args?: Record<string, unknown>;
  /**
   * How the task's result is merged.
   */
  merge_strategy?: 'HUMAN_GATED' | 'APPEND' | 'REPLACE';
  /**
   * Display name of a group to create or join in this turn.
   */
  group?: string;
  /**
   * Stable id of an existing group to join.
   */
  group_id?: string;
  /**
   * Seal the group after spawning this task.
   */
  group_sealed?: boolean;
  /**
   * How the group reports.
   */
  group_report?: 'all' | 'any' | 'none';
  /**
   * How the group's combined result is merged.
   */
  group_merge_strategy?: 'HUMAN_GATED' | 'APPEND' | 'REPLACE';
  /**
   * Wait for the group to complete before yielding the turn.
   */
  retain_turn?: boolean;
}
/**
 * The args of a `final_response` action; every field is optional.
 */
export interface FinalResponseArgs {
  /**
   * The response text (streamed to the user).
   */
  answer?: string;
  /**
   * Heavy outputs collected during execution.
   */
  artifacts?: Record<string, unknown>;
  /**
   * Citations.
   */
  sources?: Record<string, unknown>[];
  /**
   * Follow-up suggestions.
   */
  suggested_actions?: Record<string, unknown>[];
  /**
   * Confidence score.
   */
  confidence?: number;
  /**
   * ISO 639-1 language code.
   */
  language?: string;
}
/**
 * A large artifact replaced by a reference (what `store` returned).
 */
export interface ArtifactRef {
  /**
   * The reference the store returned.
   */
  artifact_ref: string;
  /**
   * The value's type name (`"dict"`, `"list"`, `"str"`, ...).
   */
  type: string;
  /**
   * Size of its compact JSON in bytes.
   */
  size_bytes: number;
}
/**
 * Options of `new ArtifactCollector(options)`.
 */
export interface ArtifactCollectorOptions {
  /**
   * Artifacts whose compact JSON is larger go to `store` (default 1 MiB = 1048576).
   */
  maxInlineBytes?: number;
  /**
   * Keeps a large artifact somewhere else and returns its reference (synchronously).
   */
  store?: (node: string, field: string, value: unknown) => string;
}
/**
 * The `done` event that ends a run.
 */
export interface FinalPayloadDoneEvent {
  /**
   * Always `"done"`.
   */
  type: 'done';
  /**
   * The final payload.
   */
  payload: FinalPayload;
}

/**
 * The observation as the model may see it: every value the schema marks `"artifact": true`
 * (nested ones too) replaced by a placeholder such as `<artifact:dict size=42KB>`,
 * `<artifact:list size=847 items>` or `<artifact:dict stream=sales_chart>`. Primitives come
 * back as they are. A string holding a JSON object or array (a tool's raw JSON output) is
 * redacted as JSON text and comes back as compact JSON text (unchanged when it holds no
 * artifact or is not JSON after all). Throws `invalid_input` for a schema that is not an
 * object or boolean.
 */
export function redactArtifacts(observation: unknown, schema: Record<string, unknown> | boolean | string): unknown;

/**
 * Checks a value against the `FinalPayload` contract and returns it with every default
 * filled. Throws `payload_invalid` listing every problem with its path (also as
 * `error.problems`).
 */
export function validateFinalPayload(value: unknown): FinalPayload;

/**
 * Builds the `FinalPayload` of a finished run from a final action's args (or a whole
 * `PlannerAction`, or the answer text) and what the run collected. Never throws for what the
 * model wrote: invalid fields are dropped and listed in `warnings`. Throws `invalid_input`
 * for a malformed `context`.
 */
export function buildFinalPayload(
  args: FinalResponseArgs | PlannerAction | Record<string, unknown> | string | null,
  context?: FinalPayloadContext,
): BuiltFinalPayload;

// The functions of this module's entries (exported by the wasm glue).

/**
 * `redactArtifacts` on JSON text: takes the observation as JSON and returns JSON (the cheap
 * way across the wasm boundary for big observations). The result is always the JSON text of
 * what `redactArtifacts` returns for the parsed value: a JSON string literal holding a JSON
 * object or array is redacted inside, like such a string given to `redactArtifacts`.
 */
export function redactArtifactsJson(observation_json: string, schema: Record<string, unknown> | boolean | string): string;

/**
 * The sources of a run: objects of observations whose schema declares
 * `"produces_sources": true`, mapped through `source_field` (or the names `title`, `url`,
 * `snippet`, `relevance_score`), deduplicated on (title, url, snippet).
 */
export function collectSources(steps: ToolStepInput[]): Source[];
