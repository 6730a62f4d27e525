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
