// TagFilter streams the blocks of a nonce-tagged response, never a marker, a partial marker
// or text outside blocks; TaggedTurn runs one model turn under the tag contract. Their wasm
// halves are `TagFilterHandle` (which keeps no block text: the blocks of `finish()` are
// assembled here from the deltas) and `TaggedTurnHandle` (src/wasm/tags.rs).
import { TagEventWriterHandle, TagFilterHandle, TaggedTurnHandle } from '../streamroute.js';
import { FINISHED, INPUT, Machine, PARTIAL, READ, readText, readText16, u32, views } from '../boundary.js';
import { forward, Handled } from '../handled.js';
import { OPS, TAG_SLICE, TAG_UNITS } from '../abi.js';

// Strings at least this long go in as UTF-16 where the runtime has Node's Buffer (boundary.js
// `Input`): Node writes a string as UTF-16 several times faster than as UTF-8 when it has
// characters beyond Latin-1, and wasm reads its skeleton.
const UNITS_MIN = 64;

export class TagFilter extends Machine {
  // The delta type of each block, and each block's text so far.
  #types;
  #blocks;

  constructor(nonce, options) {
    super(new TagFilterHandle(nonce, options), UNITS_MIN);
    this.#types = this[INPUT].h.deltaTypes;
    this.#blocks = this.#types.map(() => '');
  }

  static [PARTIAL] = 'deltas';

  /**
   * Bytes held back right now (a possible marker prefix plus an incomplete UTF-8 sequence);
   * never more than `maxBufferedBytes`.
   */

  /** The delta type of each block, in contract order (`["artifact_delta", "user_delta"]`). */
  get deltaTypes() {
    this[INPUT].handle();
    return this.#types.slice();
  }

  // `{ ok, parse_ok, blocks, violations, deltas }`: the blocks by lowercase name, as own
  // properties (`__proto__` too), in contract order.
  [FINISHED](deltas) {
    const r = this[INPUT].h.takeResult();
    r.deltas = deltas;
    r.blocks = Object.fromEntries(this.#types.map((type, k) => [type.slice(0, -'_delta'.length), this.#blocks[k]]));
    return r;
  }

  [READ](input, count) {
    return readPieces(input, count, this.#types, this.#blocks);
  }
}
forward(TagFilter, [], ['bufferedBytes', 'maxBufferedBytes']);

export class TaggedTurn extends Machine {
  #types;

  constructor(options) {
    super(new TaggedTurnHandle(options));
    this.#types = this[INPUT].h.deltaTypes;
  }

  static [PARTIAL] = 'deltas';

  /** Starts the next turn (a fresh nonce, `makeNonce()` when omitted), keeping the draft and the final blocks. */
  nextTurn(nonce) {
    const h = this[INPUT].handle();
    this[INPUT].forget();
    h.nextTurn(nonce);
  }

  // `{ type: "retry", corrective, result }` or `{ type: "done", ok, parse_ok, result }`.
  [FINISHED](deltas) {
    const step = this[INPUT].h.takeStep();
    step.result.deltas = deltas;
    return step;
  }

  [READ](input, count) {
    return readPieces(input, count, this.#types, null);
  }
}
forward(TaggedTurn, ['confirm', 'contract'], ['attempt', 'draft', 'final', 'nonce']);

// The deltas of `count` pieces `[block, kind, a, b]` (abi.rs TAG_ kinds): adjacent pieces of
// one block are one delta. With `blocks`, every piece is added to its block's text too.
function readPieces(input, count, types, blocks) {
  const out = [];
  const str = input.str;
  views();
  let last = -1;
  // readText never grows the memory, so `u32` stays valid for the whole loop.
  for (let k = u32[input.header + OPS] >>> 2, end = k + 4 * count; k < end; k += 4) {
    const block = u32[k];
    const kind = u32[k + 1];
    const a = u32[k + 2];
    const b = u32[k + 3];
    const text =
      kind === TAG_SLICE
        ? a === 0 && b === str.length
          ? str
          : str.slice(a, b)
        : kind === TAG_UNITS
          ? readText16(a, (b - a) >>> 1)
          : readText(a, b - a);
    if (blocks !== null) blocks[block] += text;
    if (block === last) out[out.length - 1].text += text;
    else out.push({ type: types[block], text });
    last = block;
  }
  return out;
}

export class TagEventWriter extends Handled {
  constructor(options) {
    super(new TagEventWriterHandle(options));
  }
}
forward(TagEventWriter, ['deltas', 'done', 'ping'], ['nextId']);
