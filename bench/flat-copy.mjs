// What a snapshot of a growing flat container costs in V8, each way a new frozen object with
// every member as an own data property can be made: n objects, the i-th with i members, each
// from the previous one plus a new member (what a snapshot after every event needs when one
// argument object or the artifacts map grows by one member per event). A measurement, not a
// test; bench/README.md "Copying a flat container" has a run.
//
//   node flat-copy.mjs [n ...]    (default 1000 8000)

const WAYS = {
  'freeze({ ...prev, [k]: v })': (prev, keys, vals, i) => Object.freeze({ ...prev, [keys[i]]: vals[i] }),
  '{ ...prev, [k]: v }': (prev, keys, vals, i) => ({ ...prev, [keys[i]]: vals[i] }),
  'Object.assign, key, freeze': (prev, keys, vals, i) => {
    const o = Object.assign({}, prev);
    o[keys[i]] = vals[i];
    return Object.freeze(o);
  },
  'for-in copy, key, freeze': (prev, keys, vals, i) => {
    const o = {};
    for (const k in prev) o[k] = prev[k];
    o[keys[i]] = vals[i];
    return Object.freeze(o);
  },
  'Object.fromEntries, freeze': (_prev, keys, vals, i) => {
    const e = new Array(i + 1);
    for (let j = 0; j <= i; j++) e[j] = [keys[j], vals[j]];
    return Object.freeze(Object.fromEntries(e));
  },
  'rebuilt from members, freeze': (_prev, keys, vals, i) => {
    const o = {};
    for (let j = 0; j <= i; j++) o[keys[j]] = vals[j];
    return Object.freeze(o);
  },
  'rebuilt from members': (_prev, keys, vals, i) => {
    const o = {};
    for (let j = 0; j <= i; j++) o[keys[j]] = vals[j];
    return o;
  },
};

const sizes = process.argv.slice(2).map(Number);
for (const n of sizes.length ? sizes : [1000, 8000]) {
  const keys = Array.from({ length: n }, (_, i) => `key${i}`);
  const vals = keys.map((_, i) => Object.freeze({ v: i }));
  for (const [name, step] of Object.entries(WAYS)) {
    let prev = {};
    const t = performance.now();
    for (let i = 0; i < n; i++) prev = step(prev, keys, vals, i);
    const ms = performance.now() - t;
    if (Object.keys(prev).length !== n) throw new Error(`${name}: ${Object.keys(prev).length} members`);
    console.log(`${String(n).padStart(6)}  ${name.padEnd(30)} ${ms.toFixed(0).padStart(7)} ms`);
  }
}
