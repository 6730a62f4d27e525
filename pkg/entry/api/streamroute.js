// What the main entry ('streamroute') adds to its wasm exports: the web adapters of the
// stream router, the client half (the same modules 'streamroute/client' exports), the next
// turn's assistant message (`assistantTurn`) and the resumable log (SseLog and its stores, as
// in 'streamroute/sse').
export { connectSse, routeResponse, toSse } from './web.js';
export { fromSse } from './client/wire.js';
export { assistantTurn } from './client/turn.js';
export { StreamState } from './client/state.js';
export { StreamMux } from './client/mux.js';
export { MemorySseStore, SseLog } from './log.js';
export { DurableObjectSseStore, SseLogDurableObject } from './log-do.js';
