// A JS port of the Python reference's streaming extractors (penguiflow, streaming.py), written
// from the behaviour in ../shared/spec/reference-behaviour.md §3. It is the baseline for
// json.mjs: what a planner runtime does today to stream `args.answer` and `thought`. The bugs
// are kept on purpose (B12 quadratic search, B13 escape decoding, B16 structure-blind
// matching). Do not use this for anything but measuring.
//
// Both extractors keep a text buffer, append every delta to it, and search the whole buffer
// again with a regex on every feed until their stage latches. Once inside the string they
// decode it one character at a time and return the characters as an array; the caller joins
// each feed's array into one event text.
//
//   const args = new StreamingArgsExtractor();
//   const thought = new StreamingThoughtExtractor();
//   for (const delta of deltas) {
//     const t = thought.feed(delta); if (t.length) showThinking(t.join(''));
//     const a = args.feed(delta); if (a.length) showAnswer(a.join(''));
//   }
//
// Where JS and Python differ: the port walks UTF-16 code units, Python walks code points. The
// joined text is the same (a surrogate pair is pushed as two units and joined back), only
// `emittedCount` counts units. `\uXXXX` is decoded with the rules of Python's int(s, 16)
// (surrounding whitespace, a sign, a `0x` prefix and `_` between digits are accepted) and
// surrogates come out one by one, never combined (in JS joining two halves happens to
// rebuild the character; Python's output would carry two lone surrogates).

const NEXT_NODE = /"next_node"\s*:\s*(null|"[^"]*")/;
const ARGS_KEY = /"args"\s*:/;
const ANSWER_KEY = /"(?:answer|raw_answer)"\s*:/;
const THOUGHT_KEY = /"thought"\s*:\s*"/;
const PY_HEX = /^\s*([+-]?)(?:0[xX]_?)?([0-9a-fA-F]+(?:_[0-9a-fA-F]+)*)\s*$/;

/** Python's chr(int(s, 16)) for a 4-character slice, or undefined where Python raises. */
function pyHexChar(s) {
  const m = PY_HEX.exec(s);
  if (!m) return undefined;
  const v = parseInt(m[2].replaceAll('_', ''), 16);
  if (m[1] === '-' && v !== 0) return undefined; // chr(negative) raises ValueError
  return String.fromCharCode(v); // at most 0xFFFF: a lone surrogate stays one
}

/** The string decoder both extractors share (reference: `_JsonStringBufferExtractor`). */
class JsonStringBufferExtractor {
  constructor() {
    this.buffer = '';
    this.escapeNext = false;
  }

  // Decodes from the start of the buffer until an unescaped `"` (which clears
  // this[inStringFlag] and leaves what follows it in the buffer) or the end of the buffer
  // (which empties it). A `\` at the end of a chunk is remembered in escapeNext.
  extractStringContent(inStringFlag) {
    const result = [];
    const buf = this.buffer;
    let i = 0;
    while (i < buf.length) {
      const ch = buf[i];
      if (this.escapeNext) {
        this.escapeNext = false;
        if (ch === 'n') result.push('\n');
        else if (ch === 't') result.push('\t');
        else if (ch === 'r') result.push('\r');
        else if (ch === '"') result.push('"');
        else if (ch === '\\') result.push('\\');
        else if (ch === 'u' && i + 4 < buf.length) {
          // Only when all four digits are already buffered; else the letter `u` goes out and
          // the digits follow as text (B13).
          const c = pyHexChar(buf.slice(i + 1, i + 5));
          if (c === undefined) result.push(ch);
          else {
            result.push(c);
            i += 4;
          }
        } else result.push(ch); // `\/` -> `/`, but also `\b` -> `b`, `\f` -> `f`, `\u` -> `u`
        i++;
        continue;
      }
      if (ch === '\\') {
        this.escapeNext = true;
        i++;
        continue;
      }
      if (ch === '"') {
        this[inStringFlag] = false;
        this.buffer = buf.slice(i + 1);
        return result;
      }
      result.push(ch);
      i++;
    }
    this.buffer = buf.slice(i);
    return result;
  }
}

/**
 * `_StreamingArgsExtractor`: decides whether the action is a finish (`next_node` null or
 * "final_response"), then streams the one string at args.answer / args.raw_answer (any
 * depth), string args, or the first element of array args.
 */
export class StreamingArgsExtractor extends JsonStringBufferExtractor {
  constructor() {
    super();
    this.isFinishAction = false;
    this.nextNodeSeen = false;
    this.nextNodeIsNonNull = false;
    this.inArgsString = false;
    this.emittedCount = 0;
    this.foundArgsKey = false; // S1: "args":
    this.argsMode = null; // S2: 'object' | 'array' | 'string' once the first non-blank char is {, [ or "
    this.foundAnswerKey = false; // S3 (object mode): "answer": / "raw_answer":
  }

  /** Returns the characters of the streamed string decoded by this chunk. */
  feed(chunk) {
    this.buffer += chunk;

    if (!this.nextNodeSeen) {
      // Searched in the whole buffer on every feed until found.
      const m = NEXT_NODE.exec(this.buffer);
      if (m) {
        this.nextNodeSeen = true;
        const token = m[1];
        if (token === 'null' || token.replace(/^"+|"+$/g, '') === 'final_response') this.isFinishAction = true;
        else this.nextNodeIsNonNull = true;
      }
    }

    if (!this.nextNodeIsNonNull && !this.inArgsString) {
      // S1: the first "args": anywhere in the buffer (prose included); the buffer is cut.
      if (!this.foundArgsKey) {
        const m = ARGS_KEY.exec(this.buffer);
        if (m) {
          this.foundArgsKey = true;
          this.buffer = this.buffer.slice(m.index + m[0].length);
        }
      }
      // S2: the first non-blank character after it.
      if (this.foundArgsKey && this.argsMode === null) {
        const stripped = this.buffer.trimStart();
        if (stripped.startsWith('{')) {
          this.argsMode = 'object';
          this.buffer = stripped.slice(1);
        } else if (stripped.startsWith('[')) {
          this.argsMode = 'array';
          this.buffer = stripped.slice(1);
        } else if (stripped.startsWith('"')) {
          this.argsMode = 'string'; // string args: streamed by S4 below
        }
      }
      // S3: the first "answer": or "raw_answer": at any depth inside args; the buffer is cut.
      if (this.argsMode === 'object' && !this.foundAnswerKey) {
        const m = ANSWER_KEY.exec(this.buffer);
        if (m) {
          this.foundAnswerKey = true;
          this.buffer = this.buffer.slice(m.index + m[0].length);
        }
      }
      // S4: a value that starts with `"` is streamed. Checked again on every later feed; after
      // the one string has ended the buffer starts with `,` `}` or `]`, so nothing more is.
      if (this.foundAnswerKey || this.argsMode === 'array' || this.argsMode === 'string') {
        const stripped = this.buffer.trimStart();
        if (stripped.startsWith('"')) {
          this.inArgsString = true;
          this.buffer = stripped.slice(1);
        }
      }
    }

    if (this.inArgsString) {
      const out = this.extractStringContent('inArgsString');
      this.emittedCount += out.length;
      return out;
    }
    return [];
  }
}

/**
 * `_StreamingThoughtExtractor`: the first "thought" key followed by a string, at any depth.
 * Until it appears (with the unified schema: never) the whole buffer is searched again on
 * every feed (B12).
 */
export class StreamingThoughtExtractor extends JsonStringBufferExtractor {
  constructor() {
    super();
    this.inThoughtString = false;
    this.emittedCount = 0;
    this.started = false;
  }

  feed(chunk) {
    this.buffer += chunk;
    if (!this.started && !this.inThoughtString) {
      const m = THOUGHT_KEY.exec(this.buffer);
      if (m) {
        this.started = true;
        this.inThoughtString = true;
        this.buffer = this.buffer.slice(m.index + m[0].length);
      }
    }
    if (this.inThoughtString) {
      const out = this.extractStringContent('inThoughtString');
      this.emittedCount += out.length;
      return out;
    }
    return [];
  }
}
