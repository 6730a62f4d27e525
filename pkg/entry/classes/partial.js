// PartialJson: the incremental parser for one JSON document arriving in pieces. Its wasm half
// is `PartialJsonHandle` (src/wasm/json.rs).
import { PartialJsonHandle } from '../streamroute.js';
import { FINISHED, headerText, INPUT, Machine, READ, u32, views } from '../boundary.js';
import { forward } from '../handled.js';
import * as op from '../abi.js';

export class PartialJson extends Machine {
  // The path of the events: only its changed tail crosses the boundary. `segs` is the current
  // path, `path` a frozen copy shared by consecutive events at the same path (across calls).
  #segs = [];
  #path = Object.freeze([]);

  constructor(options) {
    super(new PartialJsonHandle(options));
  }

  /**
   * The value so far: strings as read so far, containers with the members read so far; keys
   * without a value and unfinished numbers left out. `undefined` before a value begins.
   */

  // `finish()` returns the document's value, not events.
  [FINISHED]() {
    return this[INPUT].h.takeValue();
  }

  // JSON_ op words (abi.rs); lengths are UTF-16 units of strings that follow one another in
  // the text.
  [READ](input) {
    const h = input.header;
    const text = headerText(h);
    views();
    const out = [];
    const segs = this.#segs;
    let path = this.#path;
    let p = 0;
    const take = (len) => text.slice(p, (p += len));
    for (let i = u32[h + op.OPS] >>> 2, end = i + u32[h + op.OPS_LEN]; i < end; ) {
      const code = u32[i++];
      if (code >= op.JSON_TRUNCATE) {
        if (code === op.JSON_TRUNCATE) segs.length = u32[i++];
        else if (code === op.JSON_KEY) segs.push(take(u32[i++]));
        else segs.push(u32[i++]);
        path = null;
        continue;
      }
      if (path === null) path = Object.freeze(segs.slice());
      switch (code) {
        case op.JSON_BEGIN_OBJECT:
          out.push({ type: 'begin', path, kind: 'object' });
          break;
        case op.JSON_BEGIN_ARRAY:
          out.push({ type: 'begin', path, kind: 'array' });
          break;
        case op.JSON_BEGIN_STRING:
          out.push({ type: 'begin', path, kind: 'string' });
          break;
        case op.JSON_APPEND:
          out.push({ type: 'append', path, text: take(u32[i++]) });
          break;
        case op.JSON_SET_STRING:
          out.push({ type: 'set', path, value: take(u32[i++]) });
          break;
        case op.JSON_SET_NUMBER:
          out.push({ type: 'set', path, value: Number(take(u32[i++])) });
          break;
        case op.JSON_SET_TRUE:
          out.push({ type: 'set', path, value: true });
          break;
        case op.JSON_SET_FALSE:
          out.push({ type: 'set', path, value: false });
          break;
        case op.JSON_SET_NULL:
          out.push({ type: 'set', path, value: null });
          break;
        default:
          out.push({ type: 'end', path });
      }
    }
    this.#path = path === null ? Object.freeze(segs.slice()) : path;
    return out;
  }
}
forward(PartialJson, [], ['value']);
