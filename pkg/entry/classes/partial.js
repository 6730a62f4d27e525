// PartialJson: the incremental parser for one JSON document arriving in pieces. Its wasm half
// is `PartialJsonHandle` (src/wasm/json.rs).
import { PartialJsonHandle } from '../streamroute.js';
import { FINISHED, headerText, INPUT, Machine, READ, u32, views } from '../boundary.js';
import { put } from '../handled.js';
import * as op from '../abi.js';

// Where the value comes from. The `.wasm` of the entries with `json` keeps the value tree and
// builds the value (its handle's `value` getter); the client entry's keeps none (2.3 KB less
// of `.wasm`), and the value is folded here from the events, which describe it completely.
// scripts/build defines `globalThis.__streamrouteFoldValue` for each entry from its `.wasm`,
// so an entry's bundle holds one of the two ways.
const FOLD = globalThis.__streamrouteFoldValue ?? !('value' in PartialJsonHandle.prototype);

// The value folded from the events, where the `.wasm` keeps no tree (null elsewhere, so that
// the other bundles drop it): the root, and the containers on the path of the last event
// (`open[i]` is the container at its first i segments).
const Fold = FOLD
  ? class {
      root = undefined;
      open = [];

      apply(e) {
        if (e.type === 'end') return;
        const path = e.path;
        const n = path.length;
        const parent = n === 0 ? null : this.open[n - 1];
        let v;
        if (e.type === 'begin') {
          v = e.kind === 'object' ? {} : e.kind === 'array' ? [] : '';
          if (e.kind !== 'string') this.open[n] = v;
        } else if (e.type === 'append') {
          v = (parent === null ? this.root : parent[path[n - 1]]) + e.text;
        } else {
          v = e.value;
        }
        if (parent === null) this.root = v;
        else put(parent, path[n - 1], v);
      }

      // A fresh plain copy, as the handle's getter gives (each read its own objects).
      value() {
        return copy(this.root);
      }
    }
  : null;

const copy = (v) => {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copy);
  const o = {};
  for (const k of Object.keys(v)) put(o, k, copy(v[k]));
  return o;
};

/** `pj[EVENTS_ONLY]()`: for StreamState, which folds the events itself; the parser then keeps no value. */
export const EVENTS_ONLY = Symbol('events only');

export class PartialJson extends Machine {
  // The path of the events: only its changed tail crosses the boundary. `segs` is the current
  // path, `path` a frozen copy shared by consecutive events at the same path (across calls).
  #segs = [];
  #path = Object.freeze([]);
  #fold = Fold && new Fold();

  constructor(options) {
    super(new PartialJsonHandle(options));
  }

  /**
   * The value so far: strings as read so far, containers with the members read so far; keys
   * without a value and unfinished numbers left out. `undefined` before a value begins.
   */
  get value() {
    const h = this[INPUT].handle(); // `invalid_state` once freed
    return Fold ? this.#fold?.value() : h.value;
  }

  [EVENTS_ONLY]() {
    this.#fold = null;
    return this;
  }

  // `finish()` returns the document's value, not events.
  [FINISHED]() {
    return Fold ? this.#fold?.value() : this[INPUT].h.value;
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
    const fold = this.#fold;
    if (fold) for (const e of out) fold.apply(e);
    return out;
  }
}
