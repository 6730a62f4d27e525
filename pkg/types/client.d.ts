// Public types of 'streamroute/client': the client half of the wire (fromSse, StreamState,
// StreamMux, connectSse with a profile) over SseDecoder and PartialJson.
export * from '../dist/client/streamroute.js';
export * from './common.js';
export type {
  ArtifactSnapshot, ConnectSseOptions, ContinuationSnapshot, FromSseOptions, Source, SseProfile, StreamMuxChange, StreamMuxOptions, StreamSnapshot,
  StreamStateEvent, StreamStateOptions, SubscribeOptions, ToolCallSnapshot, WireEvent,
} from './streamroute.js';
export { StreamMux, StreamState, fromSse } from './streamroute.js';

import type { SseEvent } from '../dist/client/streamroute.js';
import type { ConnectSseOptions, SseProfile, WireEvent } from './streamroute.js';

/**
 * A fetch-based event-stream client (POST bodies, headers, `init.signal`) that reconnects
 * with `Last-Event-ID` after a dropped connection. Yields `SseEvent`s, or with `profile` the
 * events `fromSse(profile)` reads. Routing (`router`) is the main entry's: passing it here is
 * `invalid_input`.
 */
export declare function connectSse(url: string | URL, init?: RequestInit, options?: ConnectSseOptions & { profile?: undefined }): AsyncIterable<SseEvent>;
export declare function connectSse(url: string | URL, init: RequestInit | undefined, options: ConnectSseOptions & { profile: SseProfile }): AsyncIterable<WireEvent>;
