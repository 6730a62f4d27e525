// @ts-nocheck
// StreamState: routed events folded into immutable snapshots for a UI.
import { PartialJson } from '../classes/partial.js';
import { StreamrouteError } from '../runtime.js';
import { WIRE_FIELDS, isObject, str, textOf, without } from './common.js';

/** Text kept as pieces, joined when read. */
class Text {
  value = '';
  parts = [];
  get empty() {
    return this.value === '' && this.parts.length === 0;
  }
  push(s) {
    if (s) this.parts.push(s);
    return s.length > 0;
  }
  get() {
    if (this.parts.length) {
      this.value += this.parts.length === 1 ? this.parts[0] : this.parts.join('');
      this.parts.length = 0;
    }
    return this.value;
  }
}

/**
 * The partial value of a tool call's arguments, from `PartialJson` events. Containers are kept
 * mutable with a cached frozen copy that a change below invalidates, so a snapshot copies only
 * the containers on changed paths. Nothing is ever retracted.
 */
class PartialValue {
  root = undefined; // { kind: 'object'|'array', items: Map|Array, frozen } or a leaf
  apply(j) {
    if (j.type === 'end') return false;
    const v = j.type === 'begin' ? (j.kind === 'string' ? '' : { kind: j.kind, items: j.kind === 'object' ? new Map() : [], frozen: null })
      : j.type === 'set' ? j.value : undefined;
    const path = j.path;
    if (path.length === 0) {
      if (j.type === 'append') this.root += j.text;
      else this.root = v;
      return true;
    }
    let node = this.root;
    for (let i = 0; i < path.length - 1; i++) {
      if (!node || typeof node !== 'object') return false;
      node.frozen = null;
      node = node.kind === 'object' ? node.items.get(path[i]) : node.items[path[i]];
    }
    if (!node || typeof node !== 'object') return false;
    node.frozen = null;
    const key = path.at(-1);
    const get = () => (node.kind === 'object' ? node.items.get(key) : node.items[key]);
    const value = j.type === 'append' ? (get() ?? '') + j.text : v;
    if (node.kind === 'object') node.items.set(key, value);
    else node.items[key] = value;
    return true;
  }
  value() {
    return freezeNode(this.root);
  }
}

function freezeNode(node) {
  if (!node || typeof node !== 'object') return node;
  if (node.frozen) return node.frozen;
  node.frozen = node.kind === 'object'
    ? Object.freeze(Object.fromEntries(Array.from(node.items, ([k, v]) => [k, freezeNode(v)])))
    : Object.freeze(node.items.map(freezeNode));
  return node.frozen;
}

const sourceKey = (s) => (s.url != null ? `u:${s.url}` : s.id != null ? `i:${s.id}` : `j:${JSON.stringify(s)}`);

// The most missing `seq` numbers an artifact may wait for at once (bounds its gap list).
const MAX_GAPS = 1 << 16;

function newTool(index, id, name) {
  return { index, id, name, text: new Text(), partial: new PartialValue(), pj: null, pjFailed: false, arguments: undefined,
    providerExecuted: false, result: undefined, state: 'input-streaming', snap: null };
}

function newArtifact(type) {
  return { seqs: [], chunks: [], max: -1, done: false, artifact_type: type ?? null, gaps: new Set(), snap: null };
}

// Whether a stream has ended (for StreamMux), read without making a snapshot.
export const ENDED = Symbol('ended');

/**
 * Folds routed events (and `fromSse`'s) into immutable snapshots: `apply(event | events)`,
 * `snapshot()` and `subscribe(listener) -> unsubscribe`. `snapshot` and `subscribe` are bound,
 * so `useSyncExternalStore(state.subscribe, state.snapshot)` works.
 */
export class StreamState {
  #status = 'streaming';
  #answer = new Text();
  #reasoning = new Text();
  #thought = new Text();
  #artifactText = new Text();
  #userText = new Text();
  #refusal = new Text();
  #tools = [];
  #open = new Map(); // tool index -> the open (still streaming) tool
  #action = null;
  #artifacts = new Map();
  #sources = new Map();
  #usage = null;
  #payload = null;
  #finish = null;
  #errors = [];
  #ended = false;
  #dirty = new Set(['all']);
  #version = 0;
  #snap = null;
  #listeners = new Set();

  constructor() {
    this.snapshot = this.snapshot.bind(this);
    this.subscribe = this.subscribe.bind(this);
    this.apply = this.apply.bind(this);
  }

  /** Folds one event or an array of events; listeners hear once per call that changed something. */
  apply(events) {
    const list = Array.isArray(events) ? events : [events];
    // Checked first: a batch with a bad element changes nothing.
    for (const e of list) {
      if (!isObject(e) || typeof e.type !== 'string') {
        throw new StreamrouteError('invalid_input', 'StreamState.apply takes an event object (with a string type) or an array of them');
      }
    }
    const before = this.#version;
    for (const e of list) this.#fold(e);
    if (this.#version !== before) {
      for (const l of [...this.#listeners]) l();
    }
  }

  /** Calls `listener()` after every change; returns the function that stops it. */
  subscribe(listener) {
    if (typeof listener !== 'function') throw new StreamrouteError('invalid_input', 'subscribe takes a function');
    const entry = () => listener();
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }

  /**
   * Frees the wasm argument parsers of tool calls still streaming (`done` frees them too). The
   * state stays readable; a later argument delta only grows `argumentsText`.
   */
  free() {
    for (const t of this.#tools) {
      this.#closeParser(t);
      t.pjFailed = true;
    }
  }

  #mark(field) {
    this.#version++;
    this.#dirty.add(field);
  }

  #fold(e) {
    switch (e.type) {
      case 'answer_delta':
        if (this.#answer.push(textOf(e.text))) this.#mark('answer');
        break;
      case 'user_delta':
        if (this.#userText.push(textOf(e.text))) this.#mark('userText');
        break;
      case 'artifact_delta':
        if (this.#artifactText.push(textOf(e.text))) this.#mark('artifactText');
        break;
      case 'refusal_delta':
        if (this.#refusal.push(textOf(e.text))) this.#mark('refusal');
        break;
      case 'thinking_delta':
        if ((e.source === 'thought' ? this.#thought : this.#reasoning).push(textOf(e.text))) this.#mark('thinking');
        break;
      case 'tool_call_start': {
        const t = newTool(e.index, e.id ?? null, e.name ?? null);
        if (e.provider_executed === true) t.providerExecuted = true;
        this.#tools.push(t);
        this.#open.set(e.index, t);
        this.#touchTool(t);
        break;
      }
      case 'tool_call_delta': {
        const t = this.#open.get(e.index);
        if (!t || typeof e.arguments !== 'string' || !e.arguments) break;
        t.text.push(e.arguments);
        this.#feedParser(t, e.arguments);
        this.#touchTool(t);
        break;
      }
      case 'tool_call': {
        let t = this.#open.get(e.index);
        if (!t) this.#tools.push((t = newTool(e.index, e.id ?? null, e.name ?? null)));
        this.#open.delete(e.index);
        t.id = e.id ?? t.id;
        t.name = e.name ?? t.name;
        t.arguments = e.arguments;
        if (e.provider_executed === true) t.providerExecuted = true;
        if (t.state === 'input-streaming') t.state = 'input-available';
        this.#closeParser(t);
        this.#touchTool(t);
        break;
      }
      case 'tool_result': {
        const id = e.id ?? e.tool_call_id ?? e.toolCallId;
        const t = (id != null ? this.#tools.findLast((x) => x.id === id) : undefined)
          ?? (e.index !== undefined ? this.#tools.findLast((x) => x.index === e.index) : undefined);
        if (!t) break;
        const failed = e.error != null || e.is_error === true;
        t.result = failed ? (e.result ?? e.output ?? e.error) : (e.result ?? e.output ?? null);
        t.state = failed ? 'output-error' : 'output-available';
        if (e.provider_executed === true) t.providerExecuted = true;
        this.#touchTool(t);
        break;
      }
      case 'action':
        this.#action = e.action ?? null;
        this.#mark('action');
        break;
      case 'artifact_chunk':
        this.#artifact(e);
        break;
      case 'source':
        if (this.#addSource(isObject(e.source) ? e.source : without(e, ['type', ...WIRE_FIELDS]))) this.#mark('sources');
        break;
      case 'usage':
        this.#usage = Object.freeze(without(e, ['type', ...WIRE_FIELDS]));
        this.#mark('usage');
        break;
      case 'error':
        this.#error(e.code, e.message);
        break;
      case 'done': {
        this.#ended = true;
        if (e.ok === false) this.#status = 'error';
        else if (this.#status === 'streaming') this.#status = 'done';
        this.#finish = e.finish ?? e.finish_reason ?? null;
        if (isObject(e.payload)) {
          this.#payload = e.payload;
          let added = false;
          for (const s of Array.isArray(e.payload.sources) ? e.payload.sources : []) if (isObject(s)) added = this.#addSource(s) || added;
          if (added) this.#mark('sources');
        }
        this.free();
        this.#mark('done');
        break;
      }
      default:
        break;
    }
  }

  #error(code, message) {
    this.#errors.push(Object.freeze({ code: str(code) || 'error', message: str(message) }));
    this.#status = 'error';
    this.#mark('errors');
  }

  #touchTool(t) {
    t.snap = null;
    this.#mark('toolCalls');
  }

  #feedParser(t, text) {
    if (t.pjFailed) return;
    try {
      t.pj ??= new PartialJson();
      for (const j of t.pj.feed(text)) t.partial.apply(j);
    } catch (err) {
      // Text that is not JSON (it may still be repaired at the end): the partial value stays
      // what it was; `arguments` says what the call was.
      for (const j of err?.events ?? []) t.partial.apply(j);
      t.pjFailed = true;
      this.#closeParser(t);
    }
  }

  #closeParser(t) {
    t.pj?.free();
    t.pj = null;
  }

  #addSource(s) {
    const key = sourceKey(s);
    if (this.#sources.has(key)) return false;
    this.#sources.set(key, s);
    return true;
  }

  #artifact(e) {
    const id = str(e.stream_id);
    let a = this.#artifacts.get(id);
    if (!a) this.#artifacts.set(id, (a = newArtifact(e.artifact_type)));
    const seq = e.seq === undefined || e.seq === null ? a.max + 1 : e.seq;
    if (!Number.isInteger(seq) || seq < 0 || seq - a.max - 1 + a.gaps.size > MAX_GAPS) {
      this.#error('wire_invalid', `artifact ${JSON.stringify(id)}: seq ${JSON.stringify(e.seq)} is not a sequence number, or leaves more than ${MAX_GAPS} missing`);
      return;
    }
    if (seq <= a.max && !a.gaps.has(seq)) return; // a repeat
    if (seq > a.max) {
      for (let s = a.max + 1; s < seq; s++) a.gaps.add(s);
      a.seqs.push(seq);
      a.chunks.push(e.chunk);
      a.max = seq;
    } else {
      a.gaps.delete(seq);
      let lo = 0;
      let hi = a.seqs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (a.seqs[mid] < seq) lo = mid + 1;
        else hi = mid;
      }
      a.seqs.splice(lo, 0, seq);
      a.chunks.splice(lo, 0, e.chunk);
    }
    if (e.done === true) a.done = true;
    if (e.artifact_type != null) a.artifact_type = e.artifact_type;
    a.snap = null;
    this.#mark('artifacts');
  }

  /**
   * Ended: `done` or an error came, or the stream carries only artifacts and every one of them
   * is complete (done, no gaps). O(artifacts), no copying.
   */
  [ENDED]() {
    if (this.#status !== 'streaming') return true;
    if (this.#artifacts.size === 0) return false;
    for (const a of this.#artifacts.values()) if (!a.done || a.gaps.size !== 0) return false;
    return this.#answer.empty && this.#userText.empty && this.#artifactText.empty && this.#tools.length === 0
      && this.#action === null && this.#reasoning.empty && this.#thought.empty;
  }

  /** The current snapshot: the same object until something changes. */
  snapshot() {
    if (this.#dirty.size === 0) return this.#snap;
    const prev = this.#snap;
    const d = this.#dirty;
    const all = d.has('all');
    const pick = (field, make) => (all || d.has(field) ? make() : prev[field]);
    const status = this.#status;
    const snap = Object.freeze({
      status,
      answer: this.#answer.get(),
      thinking: pick('thinking', () => Object.freeze({ reasoning: this.#reasoning.get(), thought: this.#thought.get() })),
      artifactText: this.#artifactText.get(),
      userText: this.#userText.get(),
      refusal: this.#refusal.get(),
      toolCalls: pick('toolCalls', () => Object.freeze(this.#tools.map(toolSnapshot))),
      action: this.#action,
      artifacts: pick('artifacts', () => this.#artifactsSnapshot()),
      sources: pick('sources', () => Object.freeze([...this.#sources.values()])),
      usage: this.#usage,
      payload: this.#payload,
      finish: this.#finish,
      errors: pick('errors', () => Object.freeze([...this.#errors])),
    });
    d.clear();
    this.#snap = snap;
    return snap;
  }

  #artifactsSnapshot() {
    // fromEntries: a stream called `__proto__` is an own key like any other.
    return Object.freeze(Object.fromEntries(Array.from(this.#artifacts, ([id, a]) => [id, a.snap ?? (a.snap = Object.freeze({
      chunks: Object.freeze(a.chunks.slice()), seq: a.max, done: a.done, artifact_type: a.artifact_type,
      gaps: Object.freeze([...a.gaps].sort((x, y) => x - y)) }))])));
  }

  /** Whether a `done` arrived. */
  get ended() {
    return this.#ended;
  }
}

function toolSnapshot(t) {
  return t.snap ?? (t.snap = Object.freeze({ index: t.index, id: t.id, name: t.name, argumentsText: t.text.get(),
    partialArguments: t.partial.value(), arguments: t.arguments, providerExecuted: t.providerExecuted,
    result: t.result, state: t.state }));
}
