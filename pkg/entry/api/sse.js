// What 'streamroute/sse' adds to its wasm exports: connectSse without the router, and the
// resumable log (SseLog, its in-memory and Durable Object stores, the Durable Object class).
import { connector } from './connect.js';

/** `connectSse` of the SSE entry: `SseEvent`s only (`router` or `profile` is `invalid_input`). */
export const connectSse = connector({});
export { MemorySseStore, SseLog } from './log.js';
export { DurableObjectSseStore, SseLogDurableObject } from './log-do.js';
