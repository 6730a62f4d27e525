// Declarations of json.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

/**
 * Streams the elements of the array at a path (`$.items`, `$` for a top-level array), or
 * every top-level value (`$*`: NDJSON, concatenated JSON), each as a complete value as soon
 * as it closes. Everything else is checked but never built.
 *
 * `feed`: reads a chunk and returns the items it completed. Throws like `PartialJson.feed`
 * (`buffer_limit_exceeded` for an item past `maxItemBytes`), with the items completed before
 * the error as `error.events`.
 * `finish`: ends the input: returns the last items (a top-level number in `$*` mode). Throws
 * `json_invalid` with `offset` when the input ended inside a value.
 */
export class JsonItemStream extends StreamMachine<unknown[]> {
  /**
   * `new JsonItemStream(path, { strict?, maxDepth?, maxItemBytes? })`: `path` is `$`,
   * `$.a.b`, `$['key']`, `$.a[2].b` or `$*`. Throws `invalid_option` for another path.
   */
  constructor(path: string, options?: JsonItemStreamOptions);
}

/**
 * `normalizeAction` with its diagnostics.
 */
export interface NormalizedAction {
  /**
   * The action.
   */
  action: PlannerAction;
  /**
   * Where it came from.
   */
  diagnostics: ActionDiagnostics;
}
/**
 * What `repairJsonWithLog` returns.
 */
export interface RepairResult {
  /**
   * The repaired, compact JSON text.
   */
  json: string;
  /**
   * The repairs applied, in input order (empty for valid JSON).
   */
  repairs: RepairEntry[];
}
