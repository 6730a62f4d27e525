// The JS implementation of the artifact walk that bench/payload.mjs compares streamroute's
// with: the same rules as src/payload (schema.rs, redact.rs, collect.rs), written the way a
// JS app would (plain recursion over the object, `JSON.stringify` for dict sizes). It is
// checked against streamroute's output before any timing.

const MAX_EXPAND = 64;
const utf8 = new TextEncoder();

function truthy(v) {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function pointer(root, ref) {
  if (!ref.startsWith('#')) return undefined;
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node = root;
  for (const raw of ref.slice(2).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined;
    node = node[token];
  }
  return node;
}

function expand(root, node, out) {
  const queue = [node];
  while (queue.length > 0) {
    const n = queue.pop();
    if (out.length >= MAX_EXPAND || out.includes(n)) continue;
    out.push(n);
    if (n === null || typeof n !== 'object' || Array.isArray(n)) continue;
    if (typeof n.$ref === 'string') {
      const t = pointer(root, n.$ref);
      if (t !== undefined) queue.push(t);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      if (Array.isArray(n[key])) for (let i = n[key].length - 1; i >= 0; i--) queue.push(n[key][i]);
    }
  }
  return out;
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function property(root, nodes, key) {
  const out = [];
  for (const n of nodes) {
    if (!isObj(n)) continue;
    const p = isObj(n.properties) && Object.hasOwn(n.properties, key) ? n.properties[key] : undefined;
    if (p !== undefined) expand(root, p, out);
    else if (isObj(n.additionalProperties)) expand(root, n.additionalProperties, out);
  }
  return out;
}

function item(root, nodes, i) {
  const out = [];
  for (const n of nodes) {
    if (!isObj(n)) continue;
    const prefix = Array.isArray(n.prefixItems)
      ? n.prefixItems
      : Array.isArray(n.items) && n.prefixItems === undefined
        ? n.items
        : undefined;
    let rest;
    if (isObj(n.items)) rest = n.items;
    else if (Array.isArray(n.items) && isObj(n.additionalItems)) rest = n.additionalItems;
    if (prefix && i < prefix.length) expand(root, prefix[i], out);
    else if (rest) expand(root, rest, out);
  }
  return out;
}

function marks(nodes) {
  const m = { artifact: false, stream: false, streamId: undefined };
  for (const n of nodes) {
    if (!isObj(n)) continue;
    m.artifact ||= truthy(n.artifact);
    m.stream ||= truthy(n.stream);
    if (m.streamId === undefined && typeof n.stream_id === 'string') m.streamId = n.stream_id;
  }
  m.stream ||= m.streamId !== undefined;
  return m;
}

const TYPE_NAMES = { object: 'dict', string: 'str', boolean: 'bool' };

function typeName(v) {
  if (v === null) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  return TYPE_NAMES[typeof v] ?? (Number.isInteger(v) ? 'int' : 'float');
}

function humanSize(bytes) {
  const KIB = 1024;
  const MIB = 1024 * 1024;
  if (bytes < KIB) return `${bytes}B`;
  if (bytes < MIB - KIB / 2) return `${Math.floor((bytes + KIB / 2) / KIB)}KB`;
  return `${Math.floor((bytes + MIB / 2) / MIB)}MB`;
}

function placeholder(v, m, field) {
  const ty = typeName(v);
  if (m.stream) return `<artifact:${ty} stream=${m.streamId ?? field}>`;
  if (Array.isArray(v)) return `<artifact:${ty} size=${v.length} items>`;
  if (isObj(v)) return `<artifact:${ty} size=${humanSize(utf8.encode(JSON.stringify(v)).length)}>`;
  if (typeof v === 'string') {
    let chars = 0;
    for (const _ of v) chars++;
    return `<artifact:${ty} size=${chars} chars>`;
  }
  return `<artifact:${ty}>`;
}

/**
 * Walks `value` along `nodes`; returns the redacted copy when `redact`, and calls
 * `found(path, value)` for each artifact.
 */
function walk(root, value, nodes, path, field, redact, found, depth) {
  if (depth >= 512) throw new Error('too deep');
  if (Array.isArray(value)) {
    const out = redact ? new Array(value.length) : undefined;
    for (let i = 0; i < value.length; i++) {
      const child = value[i];
      const schema = item(root, nodes, i);
      let r = child;
      if (schema.length > 0) {
        const m = marks(schema);
        if (m.artifact) {
          found?.(path === '' ? String(i) : `${path}.${i}`, child);
          if (redact) r = placeholder(child, m, field);
        } else if (child !== null && typeof child === 'object') {
          r = walk(root, child, schema, path === '' ? String(i) : `${path}.${i}`, field, redact, found, depth + 1);
        }
      }
      if (redact) out[i] = r;
    }
    return out;
  }
  if (isObj(value)) {
    const out = redact ? {} : undefined;
    for (const key of Object.keys(value)) {
      const child = value[key];
      const schema = property(root, nodes, key);
      let r = child;
      if (schema.length > 0) {
        const m = marks(schema);
        const p = path === '' ? key : `${path}.${key}`;
        if (m.artifact) {
          found?.(p, child);
          if (redact) r = placeholder(child, m, key);
        } else if (child !== null && typeof child === 'object') {
          r = walk(root, child, schema, p, key, redact, found, depth + 1);
        }
      }
      if (redact) out[key] = r;
    }
    return out;
  }
  return value;
}

/** `redactArtifacts` in JS. */
export function jsRedact(observation, schema) {
  if (observation === null || typeof observation !== 'object') return observation;
  return walk(schema, observation, expand(schema, schema, []), '', '', true, undefined, 0);
}

/** `ArtifactCollector.collect` in JS (no store): `{ node: { path: value } }`, merged. */
export function jsCollect(into, node, schema, observation) {
  if (observation === null || typeof observation !== 'object') return into;
  const fields = {};
  let any = false;
  walk(
    schema,
    observation,
    expand(schema, schema, []),
    '',
    '',
    false,
    (p, v) => {
      fields[p] = structuredClone(v);
      any = true;
    },
    0,
  );
  if (any) into[node] = Object.assign(into[node] ?? {}, fields);
  return into;
}

/** Both in one walk, as `collectAndRedact` (the collected values are shared, not copied). */
export function jsCollectAndRedact(into, node, schema, observation) {
  if (observation === null || typeof observation !== 'object') return observation;
  const fields = {};
  let any = false;
  const out = walk(
    schema,
    observation,
    expand(schema, schema, []),
    '',
    '',
    true,
    (p, v) => {
      fields[p] = v;
      any = true;
    },
    0,
  );
  if (any) into[node] = Object.assign(into[node] ?? {}, fields);
  return out;
}

// The peer of validateFinalPayload / buildFinalPayload: what a JS app would write for the
// same job over an object (not the contract's every rule: its shape, each field's type, the
// defaults filled, a copy made as JSON would), so the comparison is of the object walk.

const copyJson = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const isStr = (v) => typeof v === 'string';

function checkPayload(p, problems) {
  const out = {
    raw_answer: '',
    artifacts: {},
    confidence: 0,
    sources: [],
    route: null,
    suggested_actions: [],
    requires_followup: false,
    warnings: [],
    language: null,
    extra: {},
  };
  if (!isObj(p)) {
    problems.push(['$', 'must be an object']);
    return out;
  }
  if (isStr(p.raw_answer)) out.raw_answer = p.raw_answer;
  else problems.push(['raw_answer', 'must be a string']);
  if (isObj(p.artifacts)) {
    for (const [node, fields] of Object.entries(p.artifacts)) {
      if (isObj(fields)) out.artifacts[node] = copyJson(fields);
      else problems.push([`artifacts.${node}`, 'must be an object']);
    }
  }
  if (typeof p.confidence === 'number' && p.confidence >= 0 && p.confidence <= 1) out.confidence = p.confidence;
  else if (p.confidence !== undefined) problems.push(['confidence', 'must be a number in 0..1']);
  if (Array.isArray(p.sources)) {
    p.sources.forEach((s, i) => {
      if (isObj(s) && isStr(s.title)) out.sources.push(copyJson(s));
      else problems.push([`sources[${i}]`, 'must have a title']);
    });
  }
  if (isStr(p.route)) out.route = p.route;
  if (Array.isArray(p.suggested_actions)) {
    p.suggested_actions.forEach((a, i) => {
      if (isObj(a) && isStr(a.action_id) && isStr(a.label)) out.suggested_actions.push(copyJson(a));
      else problems.push([`suggested_actions[${i}]`, 'must have action_id and label']);
    });
  }
  if (typeof p.requires_followup === 'boolean') out.requires_followup = p.requires_followup;
  if (Array.isArray(p.warnings)) out.warnings = p.warnings.filter(isStr);
  if (isStr(p.language)) out.language = p.language;
  if (isObj(p.extra)) out.extra = copyJson(p.extra);
  return out;
}

/** `validateFinalPayload` in JS: the checked copy, or a thrown error listing the problems. */
export function jsValidate(payload) {
  const problems = [];
  const out = checkPayload(payload, problems);
  if (problems.length > 0) throw new Error(problems.map(([p, m]) => `${p}: ${m}`).join('; '));
  return out;
}

/** `buildFinalPayload` in JS: the args checked leniently, the context's artifacts and sources merged. */
export function jsBuild(args, context = {}) {
  const problems = [];
  const payload = checkPayload({ ...args, artifacts: context.artifacts, sources: context.sources ?? args.sources }, problems);
  return { payload, warnings: problems.map(([p, m]) => `${p}: ${m}`) };
}
