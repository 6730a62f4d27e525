// The JavaScript half of the bindings in src/wasm/. wasm-bindgen imports this module into the
// generated glue; the package entries re-export `StreamrouteError` from that same copy, so
// `instanceof` holds for every error the wasm throws.

/** Every error streamroute throws: a stable `code`, a `message`, and `offset` where known. */
export class StreamrouteError extends Error {
  constructor(code, message, offset) {
    super(message);
    this.name = 'StreamrouteError';
    this.code = code;
    if (offset !== undefined && offset !== null) this.offset = offset;
  }
}

export function __sr_error(code, message, offset) {
  return new StreamrouteError(code, message, offset);
}

// Builds SseEvent objects from one packed string and the UTF-16 lengths of its fields
// (event, data, id per event): one crossing of the wasm boundary per feed, not one per field.
export function __sr_sse_events(text, lens) {
  const n = lens.length / 3;
  const out = new Array(n);
  let p = 0;
  for (let k = 0, i = 0; k < n; k++, i += 3) {
    const a = p + lens[i];
    const b = a + lens[i + 1];
    const c = b + lens[i + 2];
    out[k] = { event: text.slice(p, a), data: text.slice(a, b), id: text.slice(b, c) };
    p = c;
  }
  return out;
}
