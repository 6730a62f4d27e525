// What the main entry ('streamroute') adds to its wasm exports: the web adapters of the
// stream router and the client half (the same modules 'streamroute/client' exports).
export { connectSse, routeResponse, toSse } from './web.js';
export { fromSse } from './client/wire.js';
export { StreamState } from './client/state.js';
export { StreamMux } from './client/mux.js';
