// Deterministic generator of an OpenAI Chat Completions style SSE stream (~5 MB).
//
// Every event is one `data:` line of a `chat.completion.chunk` whose `delta.content` is 1-6
// characters (code points) drawn from a mix of ASCII word pieces, characters that JSON
// escapes (`\n`, `"`, `\`), `é` written as the escape `\u00e9` (as ensure_ascii JSON writers
// such as Python's json.dumps send it), raw 2-byte Latin, 3-byte CJK and 4-byte emoji (a
// UTF-16 surrogate pair). The stream starts with the usual role chunk and ends with a
// `finish_reason: "stop"` chunk and `data: [DONE]`. The PRNG is seeded (mulberry32): the same
// seed and size always give the same bytes. No Math.random.
//
//   import { generateStream } from './gen.mjs';
//   const { text, bytes, events } = generateStream();   // string, Uint8Array, event count
//
// `node gen.mjs [bytes] > stream.txt` writes the stream to stdout.

export const DEFAULT_SEED = 0x5eed_2024;
export const DEFAULT_TARGET_BYTES = 5_000_000;

/** mulberry32: a small, fast, deterministic 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  ' the',
  ' a',
  ' of',
  ' and',
  ' to',
  ' in',
  ' is',
  ' it',
  ' you',
  ' that',
  ' for',
  ' on',
  ' with',
  ' as',
  ' are',
  ' this',
  ' be',
  ' at',
  ' or',
  ' from',
  ' Hello',
  ' world',
  'Sure',
  '!',
  ',',
  '.',
  ':',
  ';',
  '?',
  ' stream',
  ' token',
  ' model',
  ' data',
  ' JSON',
  ' Rust',
  ' wasm',
  ' byte',
  ' chunk',
  ' parse',
  'ing',
  'ed',
  'er',
  's',
  ' 42',
  ' 2024',
  '```',
  ' `x`',
  ' (',
  ')',
  ' -',
  ' *',
  '#',
  ' I',
  "'m",
  "'s",
  ' can',
  ' help',
  ' here',
  ' code',
  ' fn',
];
// Characters JSON.stringify escapes: newline, quote, backslash (and a tab now and then).
const ESCAPED = ['\n', '\n', '"', '\\', '\t'];
const LATIN = ['è', 'ü', 'ñ', 'ç', 'ß', 'ø', 'å', 'ö', 'à'];
const CJK = [
  ...'的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明',
];
const EMOJI = ['😀', '🚀', '✨', '🎉', '👍', '🔥', '💡', '🤖', '📦', '🧪', '❤️', '👩‍💻'];

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

function randomId(rand, n) {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < n; i++) s += abc[Math.floor(rand() * abc.length)];
  return s;
}

/** One content delta: 1-6 code points. */
function delta(rand) {
  const want = 1 + Math.floor(rand() * 6);
  const r = rand();
  let cps;
  if (r < 0.6) {
    // ASCII word pieces, concatenated until `want` characters, then cut.
    let s = '';
    while (s.length < want) s += pick(rand, WORDS);
    cps = [...s.slice(0, want)];
  } else {
    const pool = r < 0.7 ? ESCAPED.concat(['é', 'é']) : r < 0.77 ? LATIN : r < 0.9 ? CJK : EMOJI;
    cps = [];
    while (cps.length < want) {
      // Mostly from the chosen pool, with some ASCII mixed in.
      cps.push(...(rand() < 0.75 ? [...pick(rand, pool)] : [...pick(rand, WORDS)].slice(0, 1)));
    }
    cps.length = want;
  }
  return cps.join('');
}

/**
 * Generates the stream.
 * @param {{ seed?: number, targetBytes?: number }} [options]
 * @returns {{ text: string, bytes: Uint8Array, events: number, dataUnits: number, deltas: number }}
 *   `events` counts every SSE event, `[DONE]` included; `dataUnits` is the sum of the UTF-16
 *   lengths of their `data` (what a correct decoder must deliver).
 */
export function generateStream({ seed = DEFAULT_SEED, targetBytes = DEFAULT_TARGET_BYTES } = {}) {
  const rand = mulberry32(seed);
  const id = `chatcmpl-${randomId(rand, 29)}`;
  const created = 1_717_000_000 + Math.floor(rand() * 10_000_000);
  const head = `data: {"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"gpt-4o","choices":[{"index":0,"delta":`;
  const chunk = (deltaJson, finish) => `${head}${deltaJson},"finish_reason":${finish}}]}\n\n`;
  const enc = new TextEncoder();

  const parts = [chunk('{"role":"assistant","content":""}', 'null')];
  let size = enc.encode(parts[0]).length;
  const tail = chunk('{}', '"stop"') + 'data: [DONE]\n\n';
  const tailSize = enc.encode(tail).length;
  let deltas = 0;
  while (size + tailSize < targetBytes) {
    // JSON.stringify escapes `\n`, `"`, `\` (and `\t`); `é` is sent as `\u00e9`.
    const content = JSON.stringify(delta(rand)).replaceAll('é', '\\u00e9');
    const ev = chunk(`{"content":${content}}`, 'null');
    parts.push(ev);
    size += enc.encode(ev).length;
    deltas++;
  }
  parts.push(tail);
  const text = parts.join('');
  const bytes = enc.encode(text);
  const events = parts.length + 1; // the tail holds two events
  // Every event is `data: ` + data + `\n\n`.
  const dataUnits = text.length - events * 'data: \n\n'.length;
  return { text, bytes, events, dataUnits, deltas };
}

/**
 * Cuts the stream into chunks of `size` bytes at exact byte offsets (multi-byte characters
 * are split), each chunk its own Uint8Array as a socket would deliver it, plus the string
 * chunks at the matching character offsets: string chunk k holds the characters completed
 * within byte chunks 0..k, exactly what a streaming TextDecoder yields for byte chunk k.
 * @returns {{ byteChunks: Uint8Array[], stringChunks: string[] }}
 */
export function chunkStream({ text, bytes }, size) {
  const byteChunks = [];
  for (let i = 0; i < bytes.length; i += size) byteChunks.push(bytes.slice(i, i + size));

  // UTF-16 index reached after each complete character ending at or before a byte offset.
  const stringChunks = [];
  let bytePos = 0; // bytes of the characters consumed so far
  let u16 = 0; // UTF-16 index of those characters
  let start = 0;
  let boundary = size;
  while (u16 < text.length) {
    const c = text.codePointAt(u16);
    const nb = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    // Emit every chunk boundary this character does not fit into.
    while (bytePos + nb > boundary) {
      stringChunks.push(text.slice(start, u16));
      start = u16;
      boundary += size;
    }
    bytePos += nb;
    u16 += c >= 0x10000 ? 2 : 1;
  }
  stringChunks.push(text.slice(start));
  if (stringChunks.length !== byteChunks.length) {
    throw new Error(`chunking mismatch: ${stringChunks.length} string vs ${byteChunks.length} byte chunks`);
  }
  return { byteChunks, stringChunks };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv[2] ? Number(process.argv[2]) : DEFAULT_TARGET_BYTES;
  process.stdout.write(generateStream({ targetBytes: target }).text);
}
