// Declarations of plan.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

/** The requirements schema of the planning pipeline (what `validateRequirements` returns). */
export interface Requirements {
  metrics: string[];
  group_by: string[];
  /** `null` when the question names no time; `typed`: the column is already a datetime. */
  time: { column: string | null; grain: string; typed: boolean } | null;
  analysis: string[];
  outputs: string[];
  constraints: unknown[];
}

/** Requirements as an extraction step emits them: every field optional. */
export interface RequirementsInput {
  metrics?: string[] | null;
  group_by?: string[] | null;
  time?: { column?: string | null; grain?: string | null; typed?: boolean } | null;
  analysis?: string[] | null;
  outputs?: string[] | null;
  constraints?: unknown[] | null;
}

/** The closed label sets (`validateRequirements` extends the defaults with these). */
export interface RequirementLabels {
  analysis?: string[];
  outputs?: string[];
  grain?: string[];
}

/** One problem of `requirements_invalid` (`error.errors`). */
export interface RequirementIssue {
  /** `"analysis[2]"`, `"time.grain"`, `"metrics"`; `""` for the whole value. */
  path: string;
  /** The label outside its set (null for shape problems). */
  label: string | null;
  /** The allowed labels (label problems). */
  allowed: string[];
  message: string;
}

/** A tool of the catalog (compact metadata). */
export interface Tool {
  name: string;
  description?: string;
  capabilities?: string[];
  inputs?: string[];
  params?: string[] | Record<string, unknown>;
  outputs?: string[];
  /** The precomputed embedding of the tool document. */
  embedding?: number[] | Float32Array;
  [key: string]: unknown;
}

/** A catalog: an array of tools or `{ tools }`. */
export type Catalog = Tool[] | { tools: Tool[] };

/** The model behind a set of embeddings. */
export interface EmbeddingModel {
  model_id: string;
  dim: number;
  pooling: string;
}

/** Options of `new ToolIndex(catalog, options)`. */
export interface ToolIndexOptions {
  model_id?: string;
  dim?: number;
  /** Default `"mean"`. */
  pooling?: string;
  /** All embeddings, contiguous (`tools × dim`, catalog order); else each tool's `embedding`. */
  embeddings?: Float32Array | number[];
}

/** One search result. */
export interface SearchHit {
  name: string;
  /** Position in the catalog. */
  index: number;
  /** Cosine, BM25 or fused score (by method). */
  score: number;
}

export type RetrievalMethod = 'cosine' | 'bm25' | 'hybrid' | 'given';

/** Query vectors: one `Float32Array` (one or more vectors, concatenated), several, or with their model. */
export type QueryVectors =
  | Float32Array
  | Float32Array[]
  | number[][]
  | { model_id?: string; dim?: number; pooling?: string; vectors: Float32Array | Float32Array[] | number[][] };

/** What `ToolIndex.retrieve` takes. */
export interface RetrieveOptions {
  vectors?: QueryVectors;
  /** Query texts for BM25 (and hybrid). */
  texts?: string[];
  text?: string;
  /** Default `"auto"`: cosine when the vectors fit the index, else BM25. */
  mode?: 'auto' | 'cosine' | 'bm25' | 'hybrid';
  /** Default 8. */
  n?: number;
}

export interface Retrieval {
  method: RetrievalMethod;
  /** Why the asked-for method was not used (`null` when it was). */
  fallback: string | null;
  hits: SearchHit[];
}

/** Options of `narrowTools` / `ToolIndex.narrow`. */
export interface NarrowOptions {
  requirements: RequirementsInput;
  /** Embeddings of `retrievalQueries(requirements)` (or of `queries`). */
  queryVectors?: QueryVectors;
  /** Template-curated tools (always in). */
  template?: string[] | { tools: string[] };
  /** Default `["aggregate", "plot_line", "compute_summary_stats"]`. */
  safetySet?: string[];
  /** Default 8. */
  cap?: number;
  /** The index to search (`narrowTools` only; or `catalog`). */
  index?: ToolIndex;
  catalog?: Catalog;
  /** Tools scored by a retrieval elsewhere, in any order (ranked here by score, best first; equal scores keep their order): skips the search. */
  retrieved?: { name: string; score: number }[];
  /** Retrieval depth N (default: the cap). */
  n?: number;
  /** Retrieval tools scoring below this are left out. */
  minScore?: number;
  mode?: 'auto' | 'cosine' | 'bm25' | 'hybrid';
  /** Query texts (default `retrievalQueries(requirements)`). */
  queries?: string[];
}

export interface NarrowedTool {
  name: string;
  reason: 'template' | 'retrieval' | 'safety';
  /** Retrieval score and 1-based rank, when retrieval ranked the tool. */
  score: number | null;
  rank: number | null;
}

export interface NarrowResult {
  tools: NarrowedTool[];
  /** Just the names, in order. */
  names: string[];
  /** The safety set: `added` false when the tool was already present. */
  safety: { name: string; added: boolean }[];
  /** Retrieval tools the cap left out, best first. */
  dropped: { name: string; score: number }[];
  method: RetrievalMethod;
  fallback: string | null;
  queries: string[];
  cap: number;
  warnings: string[];
}

/** A plan step of the coverage check (not the planner's `CoverageStep`): the tool, its params and the requirement references it satisfies. */
export interface CoverageStep {
  tool: string;
  params?: Record<string, unknown>;
  /** `"analysis.<label>"`, `"outputs.<label>"`, `"metrics"`, `"group_by"`, `"time"`, `"constraints"`. */
  satisfies?: string[] | string;
  [key: string]: unknown;
}

export interface Plan {
  steps: CoverageStep[];
  [key: string]: unknown;
}

export interface CoverageReport {
  ok: boolean;
  /** Requirement references not covered. */
  missing: string[];
  /** Tool names of the steps to remove. */
  unjustified: string[];
  /** Their positions in the plan. */
  unjustified_steps: number[];
  /** `Missing coverage: …` / `Remove unjustified steps: …` ("" when ok). */
  message: string;
  /** One line per requirement: `analysis.total -> aggregate (OK)`. */
  lines: string[];
  /** Labels without a rule in the map (unknown-requirement policy). */
  unknown: string[];
  /** Re-extract with the allowed labels. */
  reextract: boolean;
  warnings: string[];
  steps: { index: number; tool: string; valid: string[]; invalid: string[] }[];
}

/** The JSON form of a capability map. */
export interface CapabilityMapJson {
  version: string | number;
  requirements?: Record<string, string[] | CapabilityClause | (string[] | CapabilityClause)[]>;
  aliases?: Record<string, string>;
  plot?: string[];
}

export interface CapabilityClause {
  any_of: string[];
  grouping?: boolean;
  group_by_columns?: boolean;
  before_plot?: boolean;
  unless_typed?: boolean;
}

/**
 * The versioned requirement → capability registry.
 */
export class CapabilityMap extends Handled {
  /**
   * For CI: labels (default sets extended by `labels`) without a rule, and capabilities of
   * `catalog` that no rule, alias or plot pattern mentions.
   */
  audit(catalog: Catalog | ToolIndex, labels?: RequirementLabels): { unmapped: string[]; unknown_capabilities: string[] };
  /**
   * The canonical name of a capability (aliases followed).
   */
  canonical(capability: string): string;
  /**
   * Loads a map from its JSON form (object or text); without one, the design's default
   * mapping. Core rules a map lacks come from the default (see `warnings`). Throws
   * `invalid_input` for a map without `version` or with a malformed rule.
   */
  constructor(json?: CapabilityMapJson | string);
  /**
   * The clauses for a requirement reference (`"analysis.total"`, `"group_by"`, …), or null.
   */
  rule(reference: string): CapabilityClause[] | null;
  /**
   * The JSON form (loadable again).
   */
  toJSON(): CapabilityMapJson;
  /**
   * The map's version.
   */
  readonly version: string;
  /**
   * Core rules filled in from the default map.
   */
  readonly warnings: string[];
}

/**
 * The tool catalog with its embeddings (one contiguous buffer, L2-normalised, tagged with
 * the model) and a BM25 index: exact top-N cosine search, BM25, hybrid, narrowing.
 */
export class ToolIndex extends Handled {
  /**
   * `narrowTools` over this index.
   */
  narrow(options: NarrowOptions): NarrowResult;
  /**
   * Builds the index from a catalog. Embeddings come from `options.embeddings` (contiguous
   * `Float32Array`, `tools × dim`) or from each tool's `embedding`, tagged with
   * `options.model_id` / `dim` / `pooling`; without them the index answers with BM25 only.
   * Throws `invalid_input` for a malformed catalog, duplicate names or bad embeddings.
   */
  constructor(catalog: Catalog, options?: ToolIndexOptions);
  /**
   * Retrieval with the fallback rules: cosine (or hybrid) when the query vectors fit the
   * index's model and dimension, BM25 over `texts` otherwise.
   */
  retrieve(options: RetrieveOptions): Retrieval;
  /**
   * Top-`n` (default 8) BM25 search over name, description and capabilities.
   */
  searchText(text: string, n?: number | null): SearchHit[];
  /**
   * Exact top-`n` (default 8) cosine search for one query vector: FAISS `IndexFlatIP` over
   * normalised vectors, ties broken by tool name. Throws `invalid_input` without
   * embeddings or for a query of another dimension.
   */
  search(query: Float32Array, n?: number | null): SearchHit[];
  /**
   * The catalog (without embeddings): what `JSON.stringify(index)` gives, so an index can be
   * passed wherever a catalog is expected.
   */
  toJSON(): Tool[];
  /**
   * A copy of the normalised embeddings (`size × dim`, catalog order; empty without a model).
   */
  readonly embeddings: Float32Array;
  /**
   * The model tag, or null without embeddings.
   */
  readonly model: EmbeddingModel | null;
  /**
   * Number of tools.
   */
  readonly size: number;
}

// The functions of this module's entries (exported by the wasm glue).

/**
 * Validates extracted requirements against the closed label sets (the defaults, extended by
 * `labels`). Returns them normalised (every field present, labels lowercased). Throws
 * `StreamrouteError` `requirements_invalid` whose `errors` list every problem with its path.
 */
export function validateRequirements(value: RequirementsInput | string, labels?: RequirementLabels): Requirements;

/**
 * The corrective prompt for a failed extraction, from `error.errors` of
 * `requirements_invalid` (or the error itself).
 */
export function reextractionMessage(errors: RequirementIssue[] | { errors: RequirementIssue[] }): string;

/**
 * The default closed label sets.
 */
export function defaultLabels(): Required<RequirementLabels>;

/**
 * The retrieval queries narrowing builds from requirements (one per requirement, then the
 * combined one): embed these for `queryVectors`.
 */
export function retrievalQueries(requirements: RequirementsInput): string[];

/**
 * Narrows the tool list with the design's precedence: template tools always, retrieval tools
 * until the cap, the safety set appended when missing (even past the cap), lowest-scoring
 * retrieval tools dropped first. Searches `options.index` (a `ToolIndex`), or
 * `options.catalog`, or takes `options.retrieved` as the ranking.
 */
export function narrowTools(options: NarrowOptions): NarrowResult;

/**
 * The deterministic coverage check: every requirement met by a step, every step citing a
 * requirement it can meet, grouping before plotting, time-aware steps for time. `map`
 * defaults to the design's mapping; `catalog` is a catalog or a `ToolIndex`.
 */
export function checkCoverage(
  requirements: RequirementsInput,
  plan: Plan | CoverageStep[],
  map: CapabilityMap | CapabilityMapJson | null | undefined,
  catalog: Catalog | ToolIndex,
): CoverageReport;

/**
 * The plan without the steps `report` calls unjustified (by position, else by tool name);
 * every other field is kept.
 */
export function applyRemovals(plan: Plan | CoverageStep[], report: Pick<CoverageReport, 'unjustified'> & Partial<CoverageReport>): Plan;

/**
 * `"safe"` (missing df, column casing, default params) or `"semantic"` (tool, grouping,
 * metric, time grain or another intent-carrying param changed: reject and re-plan).
 * `options.semanticParams` replaces the list of intent-carrying params.
 */
export function classifyRepair(
  before: CoverageStep | Record<string, unknown>,
  after: CoverageStep | Record<string, unknown>,
  options?: { semanticParams?: string[] },
): 'safe' | 'semantic';

/**
 * The auto time grain: `"day"` below 90 days of span or above 60 points, `"week"` up to 365
 * days, `"month"` beyond. Throws `invalid_input` for negative or non-finite numbers.
 */
export function autoTimeGrain(spanDays: number, points: number): 'day' | 'week' | 'month';
