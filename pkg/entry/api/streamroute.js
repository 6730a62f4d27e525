// What the main entry ('streamroute') adds to its wasm exports: the web adapters of the
// stream router and the client helpers.
export { connectSse, routeResponse, toSse } from './web.js';
export { StreamMux, StreamState, fromSse } from './client.js';
