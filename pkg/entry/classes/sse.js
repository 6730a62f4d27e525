// SseDecoder: decodes `text/event-stream` bytes or text into events, exactly as the WHATWG
// standard interprets an event stream. The wasm half is `SseDecoderHandle` (src/wasm/sse.rs).
// SseEncoder is in encoder.js (the client entry only decodes).
import { SseDecoderHandle } from '../streamroute.js';
import { headerText, Machine, READ, u32, views } from '../boundary.js';
import { forward } from '../handled.js';
import { OPS, SSE_RANGE, SSE_SAME } from '../abi.js';

// A long string chunk in Node goes in as UTF-16 (`Buffer#write`) and wasm reads its skeleton;
// an all-ASCII one goes in as UTF-8 that wasm reads as the string's own units. Either way an
// event whose data is one line of the chunk comes back as a range that is sliced from the
// string (no copy, no decoding). Below this length the per-call cost of the UTF-16 route
// outweighs what slicing saves.
const UNITS_MIN = 256;

export class SseDecoder extends Machine {
  constructor(options) {
    super(new SseDecoderHandle(options), UNITS_MIN);
  }

  // Per event `[event, data, id]` (abi.rs): UTF-16 lengths of fields that follow one another in
  // the text, each followed by CR; SSE_SAME repeats the previous event's string; SSE_RANGE
  // is `str.slice(from, to)` of the string chunk just fed, with `from` and `to` after it.
  [READ](input, count) {
    views();
    const h = input.header;
    const text = headerText(h);
    const str = input.str;
    const out = new Array(count);
    let p = 0;
    let event = '';
    let id = '';
    for (let k = 0, j = u32[h + OPS] >>> 2; k < count; k++) {
      let n = u32[j++];
      if (n !== SSE_SAME) {
        event = text.slice(p, p + n);
        p += n + 1;
      }
      n = u32[j++];
      let data;
      if (n === SSE_RANGE) {
        data = str.slice(u32[j], u32[j + 1]);
        j += 2;
      } else {
        data = text.slice(p, p + n);
        p += n + 1;
      }
      n = u32[j++];
      if (n !== SSE_SAME) {
        id = text.slice(p, p + n);
        p += n + 1;
      }
      out[k] = { event, data, id };
    }
    return out;
  }
}
forward(SseDecoder, [], ['lastEventId', 'pendingId', 'retry']);
