// Random event streams for the SseDecoder tests: every field form, every line ending,
// comments, NUL, partial and whole BOMs, multi-byte characters, and what only bytes (invalid
// UTF-8, truncated sequences) or only strings (lone surrogates) can hold.

export const PIECES = [
  'data',
  'data:',
  'data: ',
  'event:',
  'event: ',
  'id:',
  'id: ',
  'retry:',
  'retry: ',
  ':',
  ': comment',
  ' ',
  '  ',
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  '\r\r',
  'x',
  'hello',
  '12',
  '0',
  '7a',
  '\0',
  '\u00e9',
  '\u4e16',
  '\u{1F600}',
  '\uFEFF',
  'Data:',
  'dat',
  'a:',
  'ping',
  'message',
];
// Bytes only a byte stream can hold: invalid UTF-8, truncated sequences, a partial BOM, an
// encoded surrogate.
const BAD_BYTES = [[0xf0, 0x9f], [0x80], [0xff], [0xef, 0xbb], [0xef], [0xed, 0xa0, 0x80]];
// What only a string can hold: lone surrogates (they reach the decoder as U+FFFD).
const LONE = ['\uD83D', '\uDE00'];

/**
 * A random stream from `next` (helpers/chunking.mjs `rng`): bytes with invalid UTF-8
 * (`withBadBytes`), else a string with lone surrogates; `pieces` are its text pieces.
 */
export function randomStream(next, withBadBytes, pieces = PIECES) {
  const parts = [];
  if (next(4) === 0) parts.push(next(2) ? '\uFEFF' : [0xef, 0xbb]);
  for (let n = next(withBadBytes ? 40 : 160); n > 0; n--) {
    const k = next(pieces.length + 2);
    if (k < pieces.length) parts.push(pieces[k]);
    else if (withBadBytes) parts.push(BAD_BYTES[next(BAD_BYTES.length)]);
    else parts.push(LONE[next(LONE.length)]);
  }
  if (!withBadBytes) return parts.map((p) => (typeof p === 'string' ? p : '\uFFFD')).join('');
  const enc = new TextEncoder();
  const bytes = parts.flatMap((p) => (typeof p === 'string' ? [...enc.encode(p)] : p));
  return Uint8Array.from(bytes);
}
