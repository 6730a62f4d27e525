// Timing helpers for the benches: a synchronous full GC without `node --expose-gc`, and the
// median, shared by every bench.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A function that runs a full (or, with `{ type: 'minor' }`, a minor) GC synchronously. */
export function fullGc() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc');
}

export const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
