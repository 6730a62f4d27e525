// What 'streamroute/client' adds to its wasm exports (SseDecoder and PartialJson): the client
// half of the wire, for a page that only reads what `toSse` writes.
import { connector } from './connect.js';
import { wireStream } from './client/wire.js';

export { fromSse } from './client/wire.js';
export { StreamState } from './client/state.js';
export { StreamMux } from './client/mux.js';

/** `connectSse` of the client entry: `SseEvent`s, or with `profile` the events `fromSse` reads (`router` needs the main entry). */
export const connectSse = connector({ profile: wireStream });
