// One routed stream for the demo page: a StreamRouter plus what a chat backend adds on top
// of its events (the FinalPayload built from the final action, artifact chunks for the
// payload's artifacts), a panel state folded from those events only, and timing of every
// `feed`. The live replay and the chunk-boundary explorer both run streams through this.

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
  const args = typeof input === 'string' ? { answer: input } : input ?? {};
  const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
  const list = (v) => (Array.isArray(v) ? v : []);
  const known = ['answer', 'raw_answer', 'artifacts', 'confidence', 'sources', 'route', 'suggested_actions',
    'requires_followup', 'warnings', 'language', 'extra'];
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

const typeOf = (v) => (Array.isArray(v) ? 'list' : v === null ? 'NoneType' : typeof v === 'object' ? 'dict' : typeof v === 'string' ? 'str' : typeof v);

/** The panel state before any event. */
export function emptyState() {
  return {
    provider: 'auto',
    answer: '',
    reasoning: '',
    thought: '',
    artifact: '',
    user: '',
    artifacts: [], // { stream_id, artifact_type, chunks: [], done }
    tools: [], // { index, id, name, text, rows: [[path, text]], args, repaired, complete }
    action: null,
    errors: [],
    usage: null,
    done: null,
    payload: null,
    payloadWarnings: [],
    payloadSource: null,
  };
}

const pathKey = (path) => (path.length ? path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') : '(value)');

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
    this.state = emptyState();
    this.partial = new Map(); // tool index -> PartialJson
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
    for (const pj of this.partial.values()) pj.free?.();
    this.partial.clear();
  }

  // A thrown StreamrouteError (a cap hit, say) ends the stream the way routeResponse reports
  // an HTTP failure: the events completed before it, an `error`, then `done {ok: false}`.
  #fail(err) {
    const provider = this.router.provider;
    const out = this.#fold([...(err.events ?? []),
      { type: 'error', code: err.code ?? 'exception', message: err.message },
      { type: 'done', ok: false, parse_ok: false, finish_reason: null }]);
    this.state.provider = provider;
    this.dispose();
    return out;
  }

  #fold(routed) {
    const out = [];
    if (this.router) this.state.provider = this.router.provider;
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
    const s = this.state;
    // A text turn that ended cleanly with an answer and no tool call is a final answer too.
    if (!this.pending && e.ok && this.content === 'text' && s.answer && !s.tools.length) {
      this.pending = { ...this.builder.build(s.answer), source: this.builder.kind };
    }
    if (!e.ok || !this.pending) return e;
    return { ...e, payload: this.pending.payload };
  }

  #apply(e) {
    const s = this.state;
    switch (e.type) {
      case 'answer_delta':
        s.answer += e.text;
        break;
      case 'thinking_delta':
        if (e.source === 'thought') s.thought += e.text;
        else s.reasoning += e.text;
        break;
      case 'artifact_delta':
        s.artifact += e.text;
        break;
      case 'user_delta':
        s.user += e.text;
        break;
      case 'artifact_chunk': {
        let a = s.artifacts.find((x) => x.stream_id === e.stream_id);
        if (!a) s.artifacts.push((a = { stream_id: e.stream_id, artifact_type: e.artifact_type, chunks: [], done: false }));
        a.chunks.push(e.chunk);
        a.done = e.done;
        break;
      }
      case 'tool_call_start':
        s.tools.push({ index: e.index, id: e.id, name: e.name, text: '', rows: [], args: undefined, repaired: false, complete: false, broken: null });
        this.partial.set(e.index, new this.sr.PartialJson());
        break;
      case 'tool_call_delta': {
        const t = s.tools.find((x) => x.index === e.index && !x.complete);
        if (!t) break;
        t.text += e.arguments;
        const pj = this.partial.get(e.index);
        if (!pj || t.broken) break;
        try {
          for (const j of pj.feed(e.arguments)) foldJson(t, j);
        } catch (err) {
          t.broken = err.code ?? String(err);
        }
        break;
      }
      case 'tool_call': {
        let t = s.tools.find((x) => x.index === e.index && !x.complete);
        if (!t) s.tools.push((t = { index: e.index, id: e.id, name: e.name, text: '', rows: [], broken: null }));
        Object.assign(t, { id: e.id, name: e.name, args: e.arguments, repaired: e.repaired, complete: true });
        this.partial.get(e.index)?.free?.();
        this.partial.delete(e.index);
        break;
      }
      case 'action':
        s.action = e.action;
        break;
      case 'usage': {
        const { type, ...counts } = e;
        s.usage = counts;
        break;
      }
      case 'error':
        s.errors.push({ code: e.code, message: e.message });
        break;
      case 'done':
        s.done = { ok: e.ok, parse_ok: e.parse_ok, finish_reason: e.finish_reason ?? null };
        if (e.payload) {
          s.payload = e.payload;
          s.payloadWarnings = this.pending.warnings ?? [];
          s.payloadSource = this.pending.source;
        }
        break;
      default:
        break;
    }
  }
}

const isFinal = (action) => action && (action.next_node === null || action.next_node === 'final_response');

// A PartialJson event into a tool call's live rows `[path, text, kind]`: a string grows with
// `append` (kind "open") until `set` settles it ("string"); other leaves come whole ("raw").
function foldJson(tool, j) {
  if (j.type !== 'append' && j.type !== 'set') return;
  const key = pathKey(j.path);
  let row = tool.rows.find((r) => r[0] === key);
  if (!row) tool.rows.push((row = [key, '', 'open']));
  if (j.type === 'append') row[1] += j.text;
  else {
    row[1] = typeof j.value === 'string' ? j.value : JSON.stringify(j.value);
    row[2] = typeof j.value === 'string' ? 'string' : 'raw';
  }
}
