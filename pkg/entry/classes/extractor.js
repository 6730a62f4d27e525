// AnswerExtractor streams the user-facing answer out of a planner action as the model writes
// it; LlmStreamChunker turns the same stream into `llm_stream_chunk` objects. Their wasm
// halves are `AnswerExtractorHandle` and `LlmStreamChunkerHandle` (src/wasm/extractor.rs).
import { AnswerExtractorHandle, LlmStreamChunkerHandle } from '../streamroute.js';
import { headerText, INPUT, Machine, NONE, PARTIAL, READ, u32, views } from '../boundary.js';
import { forward } from '../handled.js';
import { CHUNK_ANSWER, CHUNK_DONE, OPS } from '../abi.js';

export class AnswerExtractor extends Machine {
  constructor(options) {
    super(new AnswerExtractorHandle(options));
  }

  // The errors carry no partial result: a failed call emitted nothing.
  static [PARTIAL] = null;

  static [NONE]() {
    return '';
  }

  /** Back to the initial state, for a retry. */
  reset() {
    this[INPUT].reset();
  }

  // The answer text is the header's text (abi.rs).
  [READ](input) {
    return headerText(input.header);
  }
}
forward(AnswerExtractor, ['takeThought'], ['emittedCount', 'isFinishAction', 'nextNode']);

export class LlmStreamChunker extends Machine {
  #seq;

  constructor(options) {
    super(new LlmStreamChunkerHandle(options));
    this.#seq = this[INPUT].h.actionSeq;
  }

  // The errors carry no partial result: a failed call emitted nothing.
  static [PARTIAL] = null;

  /** Back to the initial state, for a retry (same `actionSeq`). */
  reset() {
    this[INPUT].reset();
  }

  // Per chunk a CHUNK_ opcode (abi.rs) and, for text, its UTF-16 length.
  [READ](input, count) {
    const h = input.header;
    const text = headerText(h);
    views();
    const out = new Array(count);
    const action_seq = this.#seq;
    let p = 0;
    for (let k = 0, i = u32[h + OPS] >>> 2; k < count; k++) {
      const code = u32[i++];
      if (code === CHUNK_DONE) {
        out[k] = { text: '', done: true, phase: 'answer', channel: 'answer', action_seq };
        continue;
      }
      const t = text.slice(p, (p += u32[i++]));
      out[k] =
        code === CHUNK_ANSWER
          ? { text: t, done: false, phase: 'answer', channel: 'answer', action_seq }
          : { text: t, done: false, phase: 'observation', channel: 'thinking', action_seq };
    }
    return out;
  }
}
forward(LlmStreamChunker, [], ['isFinishAction']);
