// SseDecoder: decodes `text/event-stream` bytes or text into events, exactly as the WHATWG
// standard interprets an event stream. The wasm half is `SseDecoderHandle` (src/wasm/sse.rs).
// SseEncoder is in encoder.js (the client entry only decodes).
import { SseDecoderHandle } from '../streamroute.js';
import { headerText, INPUT, Machine, NodeBuffer, READ, SETTLE, stringError, u32, views } from '../boundary.js';
import { forward } from '../handled.js';
import { NOT_UNITS, OPS, SSE_RANGE, SSE_SAME } from '../abi.js';

// A long string chunk in Node goes in as UTF-16 (`Buffer#write`) and wasm reads its skeleton:
// an event whose data is one line of the chunk comes back as a range that is sliced from the
// string (no copy, no decoding). Below this length the per-call cost of that route outweighs
// what slicing saves.
const UNITS_MIN = 256;
// Whether this entry's build has that route (the client entry's does not: see src/wasm/sse.rs).
const HAS_UNITS = typeof SseDecoderHandle.prototype.feedUnits === 'function';

export class SseDecoder extends Machine {
  constructor(options) {
    super(new SseDecoderHandle(options));
  }

  feed(chunk) {
    if (NodeBuffer === null || !HAS_UNITS || typeof chunk !== 'string' || chunk.length < UNITS_MIN) return super.feed(chunk);
    try {
      const i = this[INPUT];
      const h = i.handle();
      const str = i.take(chunk);
      const n = h.feedUnits(i.writeUnits(str));
      // Declined (a lone surrogate, a byte order mark begun by bytes): as UTF-8.
      if (n === NOT_UNITS) return this[SETTLE](h.feed(i.writeUtf8(str)));
      return this[SETTLE](n);
    } catch (e) {
      throw stringError(e);
    }
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
