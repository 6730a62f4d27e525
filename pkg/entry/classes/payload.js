// ArtifactCollector and ArtifactStream of the payload entry: JS classes over their wasm
// handles (src/wasm/payload.rs); and `redactArtifacts`.
//
// An observation given as a JS object is walked here, in JS, by the artifact plan of its
// schema (src/payload/plan.rs: the core's schema walk computed once per schema in wasm, kept
// by the schema's JSON text), instead of crossing into wasm as JSON text and back through
// JSON.parse. The walk gives what the text route gives for `JSON.stringify(observation)`:
// it copies as JSON.stringify + JSON.parse would (undefined, functions and symbols dropped
// from objects and null in arrays, non-finite numbers null, -0 as 0, `__proto__` an own key)
// and makes the core's placeholders. Whatever it does not model (a `toJSON`, a class
// instance, a BigInt, a cycle, a lone surrogate, depth past 500, more than 2^24 values, an
// expansion that is `schema_too_complex`, a schema without a plan) leaves the object to the
// text route, which gives the result or error it always gave. ArtifactCollector keeps what
// it collects here, as the core's collector does (`#keep`): artifacts the JS walk found as
// copies, those the core's text walk found (`artifactsHandle`) as their compact JSON text.
import {
  ArtifactCollectorHandle,
  ArtifactStreamHandle,
  artifactPlanHandle,
  artifactsHandle,
  buildFinalPayloadHandle,
  redactArtifactsHandle,
  validateFinalPayloadHandle,
} from '../streamroute.js';
import { forward, HANDLE, Handled, put } from '../handled.js';
import { StreamrouteError } from '../runtime.js';

/** Thrown inside the walk where the text route must take over. */
const BAIL = {};
/** An object member that JSON.stringify leaves out. */
const SKIP = {};
const MAX_DEPTH = 500;
const MAX_VISITS = 1 << 24;

const wellFormed = String.prototype.isWellFormed ? (s) => s.isWellFormed() : (s) => !/[\ud800-\udfff]/.test(s);

/** Schema JSON text to its plan (`null`: none), the 16 latest. */
const plans = new Map();

function planOf(schema) {
  let text = schema;
  if (typeof schema !== 'string') {
    try {
      text = JSON.stringify(schema);
    } catch {
      return null;
    }
    if (typeof text !== 'string') return null;
  }
  let plan = plans.get(text);
  if (plan === undefined) {
    const json = wellFormed(text) ? artifactPlanHandle(text) : undefined;
    plan =
      json === undefined
        ? null
        : JSON.parse(json).map(([flags, id, keys, targets, other, prefix, rest]) => ({
            artifact: (flags & 1) !== 0,
            stream: (flags & 2) !== 0,
            id,
            props: new Map(keys.map((k, i) => [k, targets[i]])),
            other,
            prefix,
            rest,
          }));
    if (plans.size >= 16) plans.delete(plans.keys().next().value);
    plans.set(text, plan);
  }
  return plan;
}

/**
 * The redacted copy of the object `observation`, pushing each artifact's dotted name and
 * `{ value, size }` (its copy, and at least its compact JSON's length) to `found` when it is
 * an array; `BAIL` where the text route must take over.
 */
function planned(observation, schema, found) {
  const plan = planOf(schema);
  if (plan === null) return BAIL;
  for (const _ in {}) return BAIL; // an enumerable property on Object.prototype (see `check`)
  try {
    return walk(walker(plan, found, false), observation, plan[0], 1, null, '');
  } catch {
    // BAIL, or what a getter threw: the text route meets it again and reports it as before.
    return BAIL;
  }
}

const walker = (plan, found, names) => ({ plan, found, names, visits: 0, stack: [], measure: false, bound: 0, dirty: false });

/** Checks a container as JSON.stringify would see it, and marks it open (cycles). */
function enter(w, v, depth, members) {
  w.visits += members + 1;
  if (depth > MAX_DEPTH || w.visits > MAX_VISITS) throw BAIL;
  const proto = Object.getPrototypeOf(v);
  if (Array.isArray(v) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) throw BAIL;
  if (typeof v.toJSON === 'function' || w.stack.includes(v)) throw BAIL;
  w.stack.push(v);
}

/**
 * A primitive as JSON.stringify + JSON.parse give it back (`SKIP`: left out); a non-finite
 * number as its name when `names` (the payload functions' JSON, runtime.js
 * `__sr_stringify_finite`).
 */
function prim(c, names) {
  switch (typeof c) {
    case 'string':
      if (!wellFormed(c)) throw BAIL;
      return c;
    case 'number':
      return Number.isFinite(c) ? c + 0 : names ? String(c) : null;
    case 'boolean':
      return c;
    case 'object':
      return null;
    case 'bigint':
      throw BAIL;
    default:
      return SKIP;
  }
}

const dotted = (path, seg) => (path === null ? String(seg) : `${path}.${seg}`);

/** Walks the container `v` at plan state `st`; `path` is its dotted name when collecting. */
function walk(w, v, st, depth, path, field) {
  let out;
  if (Array.isArray(v)) {
    const n = v.length;
    enter(w, v, depth, n);
    out = [];
    for (let i = 0; i < n; i++) {
      out.push(member(w, v[i], i < st.prefix.length ? st.prefix[i] : st.rest, depth, path, i, field));
    }
  } else {
    const keys = Object.keys(v);
    enter(w, v, depth, keys.length);
    out = {};
    for (const k of keys) {
      if (!wellFormed(k)) throw BAIL;
      const t = st.props.get(k);
      const r = member(w, v[k], t === undefined ? st.other : t, depth, path, k, k);
      if (r !== SKIP) put(out, k, r);
    }
  }
  w.stack.pop();
  return out;
}

/** A member or element `c` going to plan target `t`, as the redacted copy has it. */
function member(w, c, t, depth, path, seg, field) {
  const object = c !== null && typeof c === 'object';
  if (!object) {
    c = prim(c, w.names);
    // Left out of an object; null in an array (`seg` its index).
    if (c === SKIP) {
      if (typeof seg === 'string') return SKIP;
      c = null;
    }
  }
  if (t === -1) return object ? copy(w, c, depth + 1) : c;
  if (t === -2) throw BAIL;
  const st = w.plan[t];
  if (st.artifact) return artifact(w, c, object, st, depth, path, seg, field);
  return object ? walk(w, c, st, depth + 1, w.found === null ? null : dotted(path, seg), field) : c;
}

/** The plan state of a value the schema says nothing about: copied as it is. */
const NONE = { artifact: false, props: new Map(), other: -1, prefix: [], rest: -1 };

/** A copy of the container `v` where the schema says nothing (or of an artifact to keep). */
const copy = (w, v, depth) => walk(w, v, NONE, depth, null, '');

/** `r`, with the bound of its JSON text added to `w.bound` when it is a primitive. */
function measured(w, r) {
  if (r === null || typeof r !== 'object') {
    w.bound += typeof r === 'string' ? stringBound(r) : typeof r === 'number' ? 24 : 5;
  }
  return r;
}

/** At least the bytes of a string's JSON literal: exact for short printable ASCII. */
function stringBound(s) {
  const n = s.length;
  if (n > 64) return 6 * n + 2;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return 6 * n + 2;
  }
  return n + 2;
}

/**
 * Checks the container `v` of an artifact as `copy` does, without copying it. When collecting
 * (`w.measure`), `w.bound` grows by at least the length of its compact JSON, and `w.dirty`
 * says whether JSON would change a value in it (then it is kept as `copy` makes it, else as
 * `clone` does). `for...in` lists the own keys as `Object.keys` does, without an array: the
 * prototype is Object.prototype or null (`enter`), which `planned` found with no enumerable
 * property.
 */
function check(w, v, depth) {
  enter(w, v, depth, 0);
  let n = 0;
  if (Array.isArray(v)) {
    n = v.length;
    for (let i = 0; i < n; i++) checkValue(w, v[i], depth);
  } else {
    for (const k in v) {
      n++;
      if (!wellFormed(k)) throw BAIL;
      if (w.measure) w.bound += stringBound(k);
      checkValue(w, v[k], depth);
    }
  }
  w.visits += n;
  if (w.measure) w.bound += 2 + n;
  w.stack.pop();
}

function checkValue(w, c, depth) {
  if (c !== null && typeof c === 'object') return check(w, c, depth + 1);
  const r = prim(c);
  if (r !== c || (c === 0 && 1 / c < 0)) w.dirty = true;
  if (w.measure) measured(w, r === SKIP ? null : r);
}

/**
 * The placeholder of an artifact `c` (a primitive already as JSON gives it); when collecting,
 * its copy and the bound of its size go to `w.found`.
 */
function artifact(w, c, object, st, depth, path, seg, field) {
  if (w.found !== null) {
    w.measure = true;
    w.bound = 0;
    w.dirty = false;
    if (object) check(w, c, depth + 1);
    else measured(w, c);
    w.measure = false;
    if (object) c = w.dirty ? copy(w, c, depth + 1) : clone(c);
    w.found.push(dotted(path, seg), { value: c, size: w.bound });
  } else if (object) check(w, c, depth + 1);
  const ty = typeName(c);
  const stream = st.stream ? (st.id ?? field) : null;
  if (stream !== null) return `<artifact:${ty} stream=${stream}>`;
  switch (ty) {
    case 'dict':
      return `<artifact:dict size=${humanSize(utf8Length(JSON.stringify(c)))}>`;
    case 'list':
      return `<artifact:list size=${c.length} items>`;
    case 'str':
      return `<artifact:str size=${chars(c)} chars>`;
    default:
      return `<artifact:${ty}>`;
  }
}

/** The core's `type_name` of a value as JSON gives it back. */
function typeName(c) {
  if (c === null) return 'NoneType';
  if (Array.isArray(c)) return 'list';
  switch (typeof c) {
    case 'object':
      return 'dict';
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    default:
      return /[.eE]/.test(String(c)) ? 'float' : 'int';
  }
}

/** Bytes of the UTF-8 of a well-formed string. */
function utf8Length(s) {
  let n = s.length;
  if (!/[^\0-\x7f]/.test(s)) return n;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Two more for U+0800 and up, one for U+0080..U+07FF; a surrogate pair is 4 bytes.
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

/** Unicode scalar values of a well-formed string (Python's `len`). */
function chars(s) {
  const pairs = s.match(/[\ud800-\udbff]/g);
  return pairs === null ? s.length : s.length - pairs.length;
}

/** `512B`, `42KB`, `3MB`, as the core's `human_size`. */
function humanSize(bytes) {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024 - 512) return `${Math.floor((bytes + 512) / 1024)}KB`;
  return `${Math.floor((bytes + 512 * 1024) / (1024 * 1024))}MB`;
}

/**
 * The observation as the model may see it (src/wasm/payload.rs `redactArtifacts`): an object
 * is walked here by its schema's plan, anything else by the core.
 */
export function redactArtifacts(observation, schema) {
  if (observation !== null && typeof observation === 'object') {
    const r = planned(observation, schema, null);
    if (r !== BAIL) return r;
  }
  return redactArtifactsHandle(observation, schema);
}

/**
 * The artifacts of a payload (`value.artifacts`, `{ node: { field: value } }`) as the payload
 * functions' JSON gives them back, each node's fields copied by the walk (non-finite numbers
 * as their names), and the value with each node's fields replaced by `{}`, or by `null` per
 * field (`keepFields`), for wasm to check: the contract checks each node is an object and no
 * more, and the build merges context fields over the model's one by one. `null` where the
 * walk does not model the value (wasm then takes it whole, as before).
 */
function splitArtifacts(value, keepFields) {
  try {
    const w = walker(null, null, true);
    if (!plain(value) || Array.isArray(value)) return null;
    const rest = { ...value };
    const artifacts = rest.artifacts;
    if (!plain(artifacts) || Array.isArray(artifacts)) return null;
    const copies = new Map();
    const emptied = {};
    for (const node of Object.keys(artifacts)) {
      const fields = artifacts[node];
      if (!plain(fields) || Array.isArray(fields) || !wellFormed(node)) return null;
      const c = copy(w, fields, 3);
      copies.set(node, c);
      const e = {};
      if (keepFields) for (const k of Object.keys(c)) put(e, k, null);
      put(emptied, node, e);
    }
    rest.artifacts = emptied;
    return { rest, copies };
  } catch {
    return null;
  }
}

/** A non-null object with no `toJSON`, whose prototype is Object's or Array's or none. */
function plain(v) {
  if (v === null || typeof v !== 'object' || typeof v.toJSON === 'function') return false;
  const proto = Object.getPrototypeOf(v);
  return Array.isArray(v) ? proto === Array.prototype : proto === Object.prototype || proto === null;
}

/** Puts each node's fields back into the artifacts wasm returned (`{ node: { field } }`). */
function joinArtifacts(artifacts, copies) {
  for (const [node, fields] of copies) {
    const into = artifacts[node];
    for (const k of Object.keys(fields)) put(into, k, fields[k]);
  }
}

/**
 * Checks a value against the `FinalPayload` contract (src/wasm/payload.rs): its artifacts'
 * contents are copied here instead of crossing into wasm and back.
 */
export function validateFinalPayload(value) {
  const split = splitArtifacts(value, false);
  if (split === null) return validateFinalPayloadHandle(value);
  const out = validateFinalPayloadHandle(split.rest);
  joinArtifacts(out.artifacts, split.copies);
  return out;
}

/** Builds the `FinalPayload` of a run (src/wasm/payload.rs): `context.artifacts` as above. */
export function buildFinalPayload(args, context) {
  const split = context === undefined ? null : splitArtifacts(context, true);
  if (split === null) return buildFinalPayloadHandle(args, context);
  const out = buildFinalPayloadHandle(args, split.rest);
  joinArtifacts(out.payload.artifacts, split.copies);
  return out;
}

export class ArtifactCollector extends Handled {
  /** Node name to a Map of field to what is kept: `{ text }` (compact JSON) or `{ value }`. */
  #nodes = new Map();
  #warnings = [];
  #max;
  #store;

  constructor(options) {
    const h = new ArtifactCollectorHandle(options);
    super(h);
    this.#max = h.maxInlineBytes;
    this.#store = h.store;
  }

  collect(nodeName, schema, observation) {
    this.collectAndRedact(nodeName, schema, observation);
  }

  collectJson(nodeName, schema, observationJson) {
    this.collectAndRedactJson(nodeName, schema, observationJson);
  }

  collectAndRedact(nodeName, schema, observation) {
    this[HANDLE];
    if (typeof nodeName === 'string' && observation !== null && typeof observation === 'object') {
      const found = [];
      const r = planned(observation, schema, found);
      if (r !== BAIL) {
        this.#keep(nodeName.toWellFormed?.() ?? nodeName, found);
        return r;
      }
    }
    return this.#kept(artifactsHandle(nodeName, schema, observation, false));
  }

  collectAndRedactJson(nodeName, schema, observationJson) {
    this[HANDLE];
    return this.#kept(artifactsHandle(nodeName, schema, observationJson, true));
  }

  /** Keeps what the core's text walk found: `[node, redacted, name, text, ...]`. */
  #kept(r) {
    const found = [];
    for (let i = 2; i < r.length; i += 2) found.push(r[i], { text: r[i + 1] });
    this.#keep(r[0], found);
    return r[1];
  }

  /**
   * Keeps `found` (name, held, name, held, ...) under `node`, as the core's
   * `ArtifactCollector::keep` does: an artifact over `maxInlineBytes` goes to `store` (and
   * is replaced by its reference) or stays inline, with a warning either way; a later one of
   * the same name replaces the earlier in place. Nothing is kept when `store` fails.
   */
  #keep(node, found) {
    if (found.length === 0) return;
    const max = this.#max;
    const warnings = [];
    for (let i = 1; i < found.length; i += 2) {
      const held = found[i];
      if (held.size <= max) continue;
      const size = held.text === undefined ? utf8Length(JSON.stringify(held.value)) : utf8Length(held.text);
      if (size <= max) continue;
      const at = `artifact_large: ${node}.${found[i - 1]} is ${size} bytes (over ${max}), `;
      if (this.#store === undefined) {
        warnings.push(`${at}kept inline (no store)`);
        continue;
      }
      const value = heldValue(held);
      let ref = this.#store.call(null, node, found[i - 1], value);
      if (typeof ref !== 'string') {
        throw new StreamrouteError('invalid_input', 'store must return the artifact reference as a string (synchronously)');
      }
      ref = ref.toWellFormed?.() ?? ref;
      warnings.push(`${at}stored as ${ref}`);
      const type = held.text === undefined ? typeName(held.value) : textType(held.text);
      found[i] = { value: { artifact_ref: ref, type, size_bytes: size }, size: 0 };
    }
    this.#warnings.push(...warnings);
    let fields = this.#nodes.get(node);
    if (fields === undefined) this.#nodes.set(node, (fields = new Map()));
    for (let i = 0; i < found.length; i += 2) fields.set(found[i], found[i + 1]);
  }

  /** Everything collected: tool name to `{ field: value }` (a copy). */
  all() {
    this[HANDLE];
    const out = {};
    for (const [node, fields] of this.#nodes) {
      const o = {};
      for (const [field, held] of fields) put(o, field, heldValue(held));
      put(out, node, o);
    }
    return out;
  }

  /** The `artifact_large` warnings recorded so far. */
  get warnings() {
    this[HANDLE];
    return this.#warnings.slice();
  }

  /** Forgets every artifact and warning. */
  clear() {
    this[HANDLE];
    this.#nodes.clear();
    this.#warnings = [];
  }
}
forward(ArtifactCollector, [], ['maxInlineBytes']);

/** A fresh copy of what the collector holds. */
function heldValue(held) {
  const v = held.value;
  if (held.text !== undefined) return JSON.parse(held.text);
  return v !== null && typeof v === 'object' ? clone(v) : v;
}

/**
 * A deep copy of plain JSON data (a copy the walk made, or a checked artifact that JSON would
 * not change): spread and `slice` copy a level at once; `__proto__` stays an own key (spread
 * defines it, and setting an own data property does not reach the prototype's setter).
 */
function clone(v) {
  if (Array.isArray(v)) {
    const out = v.slice();
    for (let i = 0; i < out.length; i++) {
      const x = out[i];
      if (x !== null && typeof x === 'object') out[i] = clone(x);
    }
    return out;
  }
  const out = { ...v };
  for (const k of Object.keys(out)) {
    const x = out[k];
    if (x !== null && typeof x === 'object') out[k] = clone(x);
  }
  return out;
}

/** The core's `type_name` of a value from its compact JSON text. */
function textType(t) {
  switch (t[0]) {
    case '{':
      return 'dict';
    case '[':
      return 'list';
    case '"':
      return 'str';
    case 't':
    case 'f':
      return 'bool';
    case 'n':
      return 'NoneType';
    default:
      return /[.eE]/.test(t) ? 'float' : 'int';
  }
}

export class ArtifactStream extends Handled {
  constructor() {
    super(new ArtifactStreamHandle());
  }
}
forward(ArtifactStream, ['emit', 'finish', 'openStreams', 'reset']);
