// Node: decode SSE bytes as they arrive (split anywhere) and re-encode them for a browser.
import { init, SseDecoder, SseEncoder } from 'streamroute';

await init(); // resolves at once in Node
const bytes = new TextEncoder().encode('event: note\ndata: café\n\ndata: bye\n\n');
const chunks = [bytes.subarray(0, 22), bytes.subarray(22)]; // split inside "é"
const decoder = new SseDecoder();
const events = chunks.flatMap((c) => decoder.feed(c)).concat(decoder.finish());
const encoder = new SseEncoder({ autoId: true });
console.log(events.map(({ event, data }) => encoder.encode({ event, data })).join(''));
