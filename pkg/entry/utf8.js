// UTF-8 decoding of short text in JS (boundary.js `readText`), where a `TextDecoder` call costs
// more than the decoding: ~6% of the stream router's time at 64 B chunks of chat deltas with
// characters beyond ASCII (bench/README "Stream router").

/**
 * The string of `bytes[start..end)` when they are well-formed UTF-8 (RFC 3629: no overlong
 * forms, surrogates or code points past U+10FFFF), else `null`: the caller decodes those with
 * `TextDecoder`, which makes U+FFFD of what is malformed as the Encoding standard says.
 */
export function decodeShort(bytes, start, end) {
  let s = '';
  let i = start;
  while (i < end) {
    const c = bytes[i];
    if (c < 0x80) {
      s += String.fromCharCode(c);
      i++;
      continue;
    }
    const need = c < 0xc2 ? 0 : c < 0xe0 ? 1 : c < 0xf0 ? 2 : c < 0xf5 ? 3 : 0;
    if (need === 0 || i + need >= end) return null;
    // The second byte's range (RFC 3629 §4), then continuation bytes.
    let b = bytes[i + 1];
    if (b < (c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80) || b > (c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf)) return null;
    let cp = ((c & (0x3f >> need)) << 6) | (b & 0x3f);
    for (let k = 2; k <= need; k++) {
      b = bytes[i + k];
      if ((b & 0xc0) !== 0x80) return null;
      cp = (cp << 6) | (b & 0x3f);
    }
    s += cp < 0x10000 ? String.fromCharCode(cp) : String.fromCharCode(0xd7c0 + (cp >> 10), 0xdc00 | (cp & 0x3ff));
    i += need + 1;
  }
  return s;
}
