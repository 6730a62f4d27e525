// AnswerExtractor: streams the user-facing answer out of a planner action as the model writes
// it. The wasm half is `AnswerExtractorHandle` (src/wasm/extractor.rs).
import { AnswerExtractorHandle } from '../streamroute.js';
import { headerText, INPUT, Machine, NONE, PARTIAL, READ } from '../boundary.js';

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
    this[INPUT].handle().reset();
    this[INPUT].forget();
  }

  /** The top-level `thought` text decoded since the last call. */
  takeThought() {
    return this[INPUT].handle().takeThought();
  }

  /** `true` for a finish action, `false` for any other, `undefined` until decided. */
  get isFinishAction() {
    return this[INPUT].handle().isFinishAction;
  }

  /** The trimmed `next_node`, once read. */
  get nextNode() {
    return this[INPUT].handle().nextNode;
  }

  /** Unicode scalar values emitted so far. */
  get emittedCount() {
    return this[INPUT].handle().emittedCount;
  }

  // The answer text is the header's text (abi.rs).
  [READ](input) {
    return headerText(input.header);
  }
}
