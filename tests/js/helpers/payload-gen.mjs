// Random tool output schemas (pydantic/zod-style JSON Schema: nested models inline and via
// $defs/$ref, anyOf with null, arrays and dicts of models, streamed artifacts) with matching
// observations. Every string and key inside an artifact value contains MARK, nothing outside
// does, so "no MARK in the redacted value" means "no artifact content leaked".
export const MARK = 'SECRET';

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generate(seed, { marks = true } = {}) {
  const rnd = mulberry32(seed);
  const below = (n) => Math.floor(rnd() * n);
  const defs = {};
  let nDefs = 0;
  const plain = (depth) => {
    switch (below(depth > 2 ? 4 : 6)) {
      case 0:
        return `text ${below(1000)}`;
      case 1:
        return below(1e6) / 100;
      case 2:
        return rnd() < 0.5;
      case 3:
        return null;
      case 4:
        return [plain(depth + 1), plain(depth + 1)];
      default:
        return { [`k${below(9)}`]: plain(depth + 1) };
    }
  };
  const secret = (depth) => {
    switch (below(depth > 2 ? 3 : 5)) {
      case 0:
        return `${MARK} ${below(1000)}`;
      case 1:
        return [secret(depth + 1), `${MARK}x`];
      case 2:
        return `${MARK}`;
      default:
        return { [`${MARK}${below(9)}`]: secret(depth + 1), [`${MARK}k`]: secret(depth + 1) };
    }
  };
  // A model: its schema (maybe a $ref) and an observation object for it.
  const model = (depth) => {
    const properties = {};
    const obs = {};
    const n = below(depth > 2 ? 3 : 6);
    for (let i = 0; i < n; i++) {
      const key = `f${i}`;
      const artifact = marks && rnd() < 0.35;
      let prop;
      let value;
      const kind = depth > 3 ? 0 : below(6);
      if (kind === 0) {
        prop = { type: ['string', 'number', 'boolean', 'null'][below(4)] };
        value = plain(depth + 2);
      } else if (kind === 1) {
        const m = model(depth + 1);
        prop = m.schema;
        value = m.obs;
      } else if (kind === 2) {
        const m = model(depth + 1);
        prop = { anyOf: [m.schema, { type: 'null' }], default: null };
        value = rnd() < 0.3 ? null : m.obs;
      } else if (kind === 3) {
        const m = model(depth + 1);
        prop = { type: 'array', items: m.schema };
        value = Array.from({ length: below(4) }, () => m.obs);
      } else if (kind === 4) {
        const m = model(depth + 1);
        prop = { type: 'object', additionalProperties: m.schema };
        value = { a: m.obs, b: m.obs };
      } else {
        const m = model(depth + 1);
        prop = { allOf: [m.schema], description: 'wrapped' };
        value = m.obs;
      }
      if (artifact) {
        prop = { ...prop, artifact: true };
        if (rnd() < 0.3) prop.stream = true;
        if (rnd() < 0.2) prop.stream_id = `stream_${below(9)}`;
        value = secret(depth);
      }
      properties[key] = prop;
      if (rnd() < 0.9) obs[key] = value;
    }
    if (rnd() < 0.5) obs[`unknown${below(9)}`] = plain(depth + 1);
    const schema = { type: 'object', title: `M${nDefs}`, properties };
    if (rnd() < 0.5) {
      const name = `M${nDefs++}`;
      defs[name] = schema;
      return { schema: { $ref: `#/$defs/${name}` }, obs };
    }
    return { schema, obs };
  };
  const root = model(0);
  const schema = { ...root.schema, $defs: defs };
  return { schema, observation: root.obs };
}

// A schema whose artifact marks hide behind random stacks of wide unions, deep anyOf/allOf,
// long $ref chains and cycles, sized on both sides of the expansion cap (1024 nodes), and an
// observation whose artifact value holds MARK. `bound`: at most how many schema nodes the
// marked property expands to.
export function generateHidden(seed) {
  const rnd = mulberry32(seed);
  const below = (n) => Math.floor(rnd() * n);
  const defs = {};
  let nDefs = 0;
  const def = (schema) => {
    const name = `D${nDefs++}`;
    defs[name] = schema;
    return { $ref: `#/$defs/${name}` };
  };
  // 1 to ~3000, log-uniform.
  const size = () => 1 + below(2 ** (1 + below(11)));
  const wrap = (inner) => {
    const n = size();
    switch (below(5)) {
      case 0: {
        const at = below(n);
        const members = Array.from({ length: n }, (_, i) =>
          i === at ? inner : rnd() < 0.5 ? { type: 'object', title: 'Decoy' } : def({ properties: { other: { type: 'string' } } }),
        );
        return [{ [['anyOf', 'oneOf', 'allOf'][below(3)]]: members }, 2 * n + 1];
      }
      case 1: {
        // Deeper than the schema text's own cap (512 levels) is json_too_deep from the parse.
        const levels = Math.min(n, 400);
        let s = inner;
        for (let i = 0; i < levels; i++) s = rnd() < 0.5 ? { anyOf: [s, { type: 'null' }] } : { allOf: [s] };
        return [s, 2 * levels];
      }
      case 2: {
        let s = def(inner);
        for (let i = 1; i < n; i++) s = def(s);
        return [s, 2 * n];
      }
      case 3: {
        const name = `D${nDefs++}`;
        defs[name] = { anyOf: [{ $ref: `#/$defs/${name}` }, inner] };
        return [{ $ref: `#/$defs/${name}` }, 4];
      }
      default:
        return [inner, 0];
    }
  };
  const model = { type: 'object', properties: { blob: { artifact: true }, keep: { type: 'string' } } };
  let schema = below(3) === 0 ? { artifact: true } : model;
  let bound = 3;
  for (let i = 0, n = 1 + below(3); i < n; i++) {
    const [s, b] = wrap(schema);
    schema = s;
    bound += b;
  }
  return {
    schema: { type: 'object', properties: { payload: schema, note: { type: 'string' } }, $defs: defs },
    observation: { note: 'n', payload: { blob: { x: `${MARK} ${below(99)}` }, keep: 'visible' } },
    bound,
  };
}
