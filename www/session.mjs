// One routed stream for the demo page: a StreamRouter plus what a chat backend adds on top
// of its events (the FinalPayload built from the final action, artifact chunks for the
// payload's artifacts), the package's StreamState folding those events only, and timing of
// every `feed`. The live replay and the chunk-boundary explorer both run streams through this.

/** How the page builds a FinalPayload: the package's `buildFinalPayload` when it has one. */
export function payloadBuilder(sr) {
  if (typeof sr.buildFinalPayload === 'function') {
    return { kind: 'buildFinalPayload', build: (input) => sr.buildFinalPayload(input) };
  }
  return { kind: 'from action args', build: fallbackPayload };
}

// The RFC's FinalPayload defaults, filled from a final action's args (or the answer text)
// when the package in use has no buildFinalPayload yet.
function fallbackPayload(input) {
  const args = typeof input === 'string' ? { answer: input } : (input ?? {});
  const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
  const list = (v) => (Array.isArray(v) ? v : []);
  const known = [
    'answer',
    'raw_answer',
    'artifacts',
    'confidence',
    'sources',
    'route',
    'suggested_actions',
    'requires_followup',
    'warnings',
    'language',
    'extra',
  ];
  const extra = { ...obj(args.extra) };
  for (const [k, v] of Object.entries(args)) if (!known.includes(k)) extra[k] = v;
  const confidence = typeof args.confidence === 'number' && args.confidence >= 0 && args.confidence <= 1 ? args.confidence : null;
  return {
    payload: {
      raw_answer: [args.answer, args.raw_answer].find((x) => typeof x === 'string' && x.trim()) ?? '',
      artifacts: obj(args.artifacts),
      confidence,
      sources: list(args.sources).filter((x) => x && typeof x.title === 'string'),
      route: typeof args.route === 'string' ? args.route : null,
      suggested_actions: list(args.suggested_actions).filter((x) => x && typeof x.action_id === 'string' && typeof x.label === 'string'),
      requires_followup: args.requires_followup === true,
      warnings: list(args.warnings).filter((x) => typeof x === 'string'),
      language: typeof args.language === 'string' ? args.language : null,
      extra,
    },
    warnings: [],
  };
}

/** `emit(streamId, chunk, done, type)`: the package's ArtifactStream, or the same shape by hand. */
function artifactEmitter(sr) {
  if (typeof sr.ArtifactStream === 'function') {
    const stream = new sr.ArtifactStream();
    return (id, chunk, done, type) => stream.emit(id, chunk, done, type);
  }
  const seqs = new Map();
  return (id, chunk, done, type) => {
    const seq = seqs.get(id) ?? 0;
    seqs.set(id, seq + 1);
    return { type: 'artifact_chunk', stream_id: id, seq, chunk, done, artifact_type: type };
  };
}

const typeOf = (v) =>
  Array.isArray(v) ? 'list' : v === null ? 'NoneType' : typeof v === 'object' ? 'dict' : typeof v === 'string' ? 'str' : typeof v;

const pathKey = (path) =>
  path.length
    ? path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
        .join('')
        .replace(/^\./, '')
    : '(value)';

/**
 * A stream being routed. `feed(chunk)` / `finish()` return every event (the router's, then
 * the derived `artifact_chunk`s and the `done` with its `payload`) and fold them into `state`.
 */
export class Session {
  constructor(sr, { provider = 'auto', content = 'text', nonce } = {}) {
    this.sr = sr;
    this.router = new sr.StreamRouter({ provider, content, ...(nonce ? { nonce } : {}) });
    this.content = content;
    this.builder = payloadBuilder(sr);
    this.emit = artifactEmitter(sr);
    this.store = new sr.StreamState();
    this.provider = provider;
    this.done = null; // the `done` event
    this.repaired = new Set(); // indices of tool calls whose arguments were repaired
    this.pending = null; // the payload built from the final action, sent with `done`
    this.feeds = 0;
    this.feedMs = 0;
    this.bytes = 0;
    this.events = 0;
    this.ended = false;
  }

  /** Routes one chunk (string or bytes). */
  feed(chunk) {
    if (this.ended) return [];
    const t0 = performance.now();
    let out;
    try {
      out = this.router.feed(chunk);
    } catch (err) {
      return this.#fail(err);
    } finally {
      this.feedMs += performance.now() - t0;
      this.feeds++;
      this.bytes += typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    }
    return this.#fold(out);
  }

  /** Ends the stream. */
  finish() {
    if (this.ended) return [];
    const t0 = performance.now();
    let out;
    try {
      out = this.router.finish();
    } catch (err) {
      return this.#fail(err);
    } finally {
      this.feedMs += performance.now() - t0;
    }
    this.ended = true;
    const events = this.#fold(out);
    this.dispose();
    return events;
  }

  /** Frees the wasm machines (a stream abandoned half-way, or ended). */
  dispose() {
    this.ended = true;
    this.router?.free();
    this.router = null;
    this.store.free();
  }

  /** What the panels draw: the StreamState snapshot plus what only the page knows. */
  get state() {
    const snap = this.store.snapshot();
    if (this.view?.snap !== snap || this.view.done !== this.done) {
      const p = this.pending;
      this.view = {
        snap,
        done: this.done,
        state: {
          ...snap,
          provider: this.provider,
          done: this.done,
          repaired: this.repaired,
          payloadWarnings: snap.payload ? (p?.warnings ?? []) : [],
          payloadSource: snap.payload ? (p?.source ?? null) : null,
        },
      };
    }
    return this.view.state;
  }

  // A thrown StreamrouteError (a cap hit, say) ends the stream the way routeResponse reports
  // an HTTP failure: the events completed before it, an `error`, then `done {ok: false}`.
  #fail(err) {
    const provider = this.router.provider;
    const out = this.#fold([
      ...(err.events ?? []),
      { type: 'error', code: err.code ?? 'exception', message: err.message },
      { type: 'done', ok: false, parse_ok: false, finish_reason: null },
    ]);
    this.provider = provider;
    this.dispose();
    return out;
  }

  #fold(routed) {
    const out = [];
    if (this.router) this.provider = this.router.provider;
    for (const e of routed) {
      if (e.type === 'done') {
        const done = this.#done(e);
        out.push(done);
        this.#apply(done);
        continue;
      }
      out.push(e);
      this.#apply(e);
      if (e.type === 'action' && isFinal(e.action)) {
        for (const chunk of this.#finalAction(e.action)) {
          out.push(chunk);
          this.#apply(chunk);
        }
      }
    }
    this.events += out.length;
    return out;
  }

  // The final action's payload; its artifacts go out as artifact chunks at once.
  #finalAction(action) {
    const built = this.builder.build(action.args);
    this.pending = { ...built, source: this.builder.kind };
    const chunks = [];
    for (const [node, fields] of Object.entries(built.payload.artifacts ?? {})) {
      const entries = fields && typeof fields === 'object' && !Array.isArray(fields) ? Object.entries(fields) : [['value', fields]];
      for (const [field, value] of entries) chunks.push(this.emit(`${node}.${field}`, value, true, typeOf(value)));
    }
    return chunks;
  }

  #done(e) {
    const s = this.store.snapshot();
    // A text turn that ended cleanly with an answer and no tool call is a final answer too.
    if (!this.pending && e.ok && this.content === 'text' && s.answer && !s.toolCalls.length) {
      this.pending = { ...this.builder.build(s.answer), source: this.builder.kind };
    }
    if (!e.ok || !this.pending) return e;
    return { ...e, payload: this.pending.payload };
  }

  #apply(e) {
    this.store.apply(e);
    if (e.type === 'done') this.done = { ok: e.ok, parse_ok: e.parse_ok, finish_reason: e.finish_reason ?? null };
    if (e.type === 'tool_call' && e.repaired) this.repaired.add(e.index);
  }
}

const isFinal = (action) => action && (action.next_node === null || action.next_node === 'final_response');

/**
 * A tool call's live rows `[path, value, kind]`: every leaf of its partial arguments (the
 * StreamState's PartialJson value). While the call streams, its last string may still grow
 * (kind "open"); other strings are "string", other leaves "raw".
 */
export function toolRows(t) {
  const rows = [];
  const walk = (v, path) => {
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, Array.isArray(v) ? Number(k) : k]);
    } else if (v !== undefined) rows.push([pathKey(path), v, typeof v === 'string' ? 'string' : 'raw']);
  };
  walk(t.partialArguments, []);
  const last = rows.at(-1);
  if (t.state === 'input-streaming' && last?.[2] === 'string') last[2] = 'open';
  return rows;
}
