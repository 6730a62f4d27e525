// Wrong-typed arguments, a BigInt in a message and a freed object, for the runtimes other
// than Node (hostile.test.mjs sweeps every export there): the code of what each throws, or a
// description of a throw that is not a StreamrouteError. Imported by the Chromium page and
// bundled into the workerd worker.
export function misuseCodes({ SseDecoder, SseEncoder, TagFilter, StreamrouteError }) {
  const codeOf = (f) => {
    try {
      f();
      return 'no error';
    } catch (err) {
      return err instanceof StreamrouteError ? err.code : `${err?.constructor?.name}: ${err?.message}`;
    }
  };
  const freed = new SseDecoder();
  freed.free();
  return {
    numberAsString: codeOf(() => new TagFilter(42)),
    bogusLength: codeOf(() => new SseEncoder().comment({ length: -1 })),
    bigint: codeOf(() => new SseEncoder().encode({ data: 1n })),
    freed: codeOf(() => freed.feed('data: x\n\n')),
  };
}

export const MISUSE_CODES = {
  numberAsString: 'invalid_input',
  bogusLength: 'invalid_input',
  bigint: 'invalid_input',
  freed: 'invalid_state',
};
