// What 'streamroute/sse' adds to its wasm exports: connectSse without the router.
import { connector } from './connect.js';

/** `connectSse` of the SSE entry: `SseEvent`s only (`router` or `profile` is `invalid_input`). */
export const connectSse = connector({});
