// The JS side of the one chunking helper: every streaming input in the JS tests is fed whole,
// one UTF-16 code unit at a time, as UTF-8 bytes one at a time, and split at random points
// (seeded; STREAMROUTE_SEED pins it and failures print it).

// (`globalThis.process`: the helper also runs in a browser page and in workerd.)
export const SEED = Number(globalThis.process?.env?.STREAMROUTE_SEED ?? Date.now() % 2 ** 31);

// Under `node --test` a file with a random seed says it once (a comment line of the runner's
// output), so that a run that hangs, and so prints no failed assertion, can be replayed too.
if (globalThis.process?.env?.NODE_TEST_CONTEXT && globalThis.process.env.STREAMROUTE_SEED === undefined) {
  console.log(`STREAMROUTE_SEED=${SEED}`);
}

/** A seeded xorshift32: `next(n)` is uniform-ish in 0..n. */
export function rng(seed) {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

function randomPieces(total, next, maxPiece) {
  const cuts = [];
  for (let i = 0; i < total; ) {
    const end = Math.min(total, i + 1 + next(maxPiece));
    cuts.push([i, end]);
    i = end;
  }
  return cuts;
}

/** [label, chunks] pairs for a string input: strings and Uint8Arrays, many splittings. */
export function splitings(text, seed = SEED) {
  const bytes = new TextEncoder().encode(text);
  const next = rng(seed);
  const out = [
    ['whole string', [text]],
    ['whole bytes', [bytes]],
    ['UTF-16 code units', Array.from({ length: text.length }, (_, i) => text[i])],
    ['single bytes', Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))],
  ];
  for (const max of [2, 3, 7, 64]) {
    out.push([`random string pieces <=${max} (seed ${seed})`, randomPieces(text.length, next, max).map(([a, b]) => text.slice(a, b))]);
    out.push([`random byte pieces <=${max} (seed ${seed})`, randomPieces(bytes.length, next, max).map(([a, b]) => bytes.slice(a, b))]);
  }
  return out;
}

/**
 * [label, chunks] pairs for raw bytes that need not be UTF-8 (invalid sequences, lone
 * continuation bytes): whole, one byte at a time, and random pieces of at most each `max`.
 */
export function byteSplitings(bytes, seed = SEED, maxes = [2, 3, 7, 64]) {
  const next = rng(seed);
  const out = [
    ['whole bytes', [bytes]],
    ['single bytes', Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))],
  ];
  for (const max of maxes) {
    out.push([`random byte pieces <=${max} (seed ${seed})`, randomPieces(bytes.length, next, max).map(([a, b]) => bytes.subarray(a, b))]);
  }
  return out;
}

/**
 * [label, chunks] pairs of string pieces only: whole, and random pieces of at most each `max`
 * code units (a surrogate pair may be split). For inputs whose long string chunks take their
 * own route (at least 256 units go into wasm as UTF-16).
 */
export function stringSplitings(text, seed = SEED, maxes = [512, 1024, 4096]) {
  const next = rng(seed);
  const out = [['whole string', [text]]];
  for (const max of maxes) {
    out.push([`random string pieces <=${max} (seed ${seed})`, randomPieces(text.length, next, max).map(([a, b]) => text.slice(a, b))]);
  }
  return out;
}

/** Feeds every chunk, then finishes; returns everything the machine returned, in order. */
export function feedAll(machine, chunks) {
  const out = [];
  for (const c of chunks) out.push(...machine.feed(c));
  out.push(...machine.finish());
  return out;
}
