// Public types of 'streamroute/sse': SseDecoder, SseEncoder, connectSse and SseLog (log.d.ts).
export * from '../dist/sse/streamroute.js';
export * from './common.js';
export * from './log.js';

import type { SseEvent } from '../dist/sse/streamroute.js';
import type { ConnectSseOptions } from './streamroute.js';

/**
 * A fetch-based event-stream client (POST bodies, headers, `init.signal`) that reconnects
 * with `Last-Event-ID` after a dropped connection; yields `SseEvent`s. Routing (`router`) and
 * the wire profiles (`profile`) are the main entry's: passing either here is `invalid_input`.
 */
export declare function connectSse(url: string | URL, init?: RequestInit, options?: Omit<ConnectSseOptions, 'profile'>): AsyncIterable<SseEvent>;
