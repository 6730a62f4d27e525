// Declarations of router.js's public API, appended by scripts/build to the declarations of
// every entry that exports it (dist/<entry>/streamroute.d.ts), where the types they name live.

// `RoutedEventType` is the TypeScript declaration of `crate::RoutedEvent` (src/router/route.rs);
// `continuation` and `container` carry the provider's own fields besides it.

/** What `StreamRouter.feed` / `finish` return. */
export type RoutedEvent =
  | Exclude<RoutedEventType, { type: 'tool_result' | 'continuation' | 'container' }>
  | (Extract<RoutedEventType, { type: 'tool_result' }> & { provider_executed: true })
  | (Extract<RoutedEventType, { type: 'continuation' | 'container' }> & { [field: string]: unknown });

/**
 * Turns a raw provider stream into routed events, in one pass.
 *
 * `feed`: routes a chunk; returns the events it completed. Throws `StreamrouteError`
 * (`sse_event_too_large`, `buffer_limit_exceeded`, `invalid_state`) with the events completed
 * before the failure on `error.events`.
 * `finish`: ends the stream: the last events, then `done`.
 */
export class StreamRouter extends StreamMachine<RoutedEvent[]> {
  /** `new StreamRouter({ provider?, content?, nonce?, maxEventBytes?, maxBufferBytes? })`. */
  constructor(options?: StreamRouterInit);
  /**
   * The provider format in force: the configured one, or what `"auto"` detected
   * (`"auto"` until an event showed it).
   */
  readonly provider:
    | 'auto'
    | 'openai-chat'
    | 'openai-responses'
    | 'anthropic'
    | 'gemini'
    | 'gemini-interactions'
    | 'ollama'
    | 'bedrock'
    | 'cohere'
    | 'text';
  /** A TransformStream<Uint8Array | string, RoutedEvent> over this router (the main entry). */
  transform(): TransformStream<Uint8Array | string, RoutedEvent>;
}

// The functions of this module's entries (exported by the wasm glue).

/**
 * The request body that asks `provider` for output matching `options.schema`, in the
 * strongest way it supports (forced tool call, JSON-schema response format, JSON mode, or
 * prompt-only; see `structuredModes`). Throws `invalid_option` (a value out of range or of
 * the wrong type), `invalid_input` (a key that is not an option, a value `JSON.stringify`
 * cannot encode), `input_too_large` (`messages` or `schema` past 64 MiB of JSON text) or
 * `json_too_deep`.
 */
export function structuredRequest(
  provider: 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'gemini-interactions' | 'ollama' | 'bedrock' | 'cohere' | 'text',
  options: StructuredRequestInit,
): Record<string, unknown>;

/**
 * The structured-output modes `provider` supports, strongest first (the capability table).
 */
export function structuredModes(provider: string): ('tool' | 'json_schema' | 'json_object' | 'prompt')[];
