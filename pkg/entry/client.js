// The client half of the wire: `fromSse(profile)` reads what `toSse(profile)` writes back into
// events, `StreamState` folds events into immutable snapshots for a UI, and `StreamMux` splits
// one connection that carries several streams into one `StreamState` per stream.
//
// Invariants: a frame is read once and never looked at again; text is kept as chunk arrays
// joined when a snapshot is asked for (folding n deltas is O(total text), whatever the number
// of snapshots in between thanks to rope concatenation); a snapshot is rebuilt only for what
// changed, and is the very same object while nothing did. The only wasm used here is
// `SseDecoder` (framing) and `PartialJson` (tool arguments).
import { PartialJson } from './classes/json.js';
import { SseDecoder } from './classes/sse.js';
import { StreamrouteError } from './runtime.js';

/** Fields a wire frame carries besides its event, kept on the events read from it. */
export const WIRE_FIELDS = ['trace_id', 'session_id', 'message_id', 'action_seq'];

// Routed event types a profile has no word for: they travel under their own name (tagged), in
// an `event` frame (planner) or a `data-*` part (ai-sdk), and come back as themselves.
export const EXTRA_TYPES = new Set(['tool_result', 'source', 'refusal_delta']);

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// Text of a field that should be a string: anything else (a hostile object included) is ''.
const textOf = (v) => (typeof v === 'string' ? v : '');
// An event of `type` with the members of `parts`: `type` first, and never one of theirs (an
// OpenAI tool call's data has `"type": "function"`).
const typed = (type, a, b) => {
  const event = { type, ...a, ...b };
  event.type = type;
  return event;
};

// A field as a string for a message or code, whatever the value (a throwing toString too).
function str(v) {
  if (typeof v === 'string') return v;
  try {
    return v == null ? '' : String(v);
  } catch {
    return '';
  }
}

function wireFields(data) {
  const out = {};
  for (const k of WIRE_FIELDS) if (data[k] !== undefined && data[k] !== null) out[k] = data[k];
  return out;
}

function without(data, keys) {
  const out = {};
  for (const [k, v] of Object.entries(data)) if (!keys.includes(k)) out[k] = v;
  return out;
}

const invalid = (message, frame) => ({ type: 'error', code: 'wire_invalid',
  message: frame?.id ? `${message} (frame id ${frame.id})` : message });

// ---------------------------------------------------------------------------------------
// Reading frames: one small reader per profile, `frame(sseEvent) -> events`.

/** The planner vocabulary (reference-behaviour.md §7), as `toSse("planner")` writes it. */
function plannerReader() {
  const tools = new Map(); // tool_call_id -> { index, action_seq }
  let order = 0;
  // `start`: a tool_call_start, which begins a new call even when an earlier action's call had
  // the same id (routers number calls per response: `call_0` again in the next action).
  const toolIndex = (d, start = false) => {
    const id = String(d.tool_call_id);
    let t = start ? undefined : tools.get(id);
    if (!t) tools.set(id, (t = { index: Number.isInteger(d.index) ? d.index : order, action_seq: d.action_seq }));
    order = Math.max(order, t.index + 1);
    return t;
  };
  return {
    named: true,
    read(name, d) {
      const wire = wireFields(d);
      switch (name) {
        case 'llm_stream_chunk': {
          if (typeof d.text !== 'string') throw new TypeError('llm_stream_chunk without text');
          if (d.text === '') return [];
          if (d.channel === 'answer' || (d.channel === undefined && d.phase === 'answer')) {
            return [{ type: d.phase === 'user' ? 'user_delta' : 'answer_delta', text: d.text, ...wire }];
          }
          if (d.channel === 'revision' || d.phase === 'revision' || d.phase === 'action') return [];
          return [{ type: 'thinking_delta', text: d.text, source: d.phase === 'thinking' ? 'reasoning' : 'thought', ...wire }];
        }
        case 'artifact_chunk': {
          if (isObject(d.meta) && d.meta.source === 'artifact_delta' && typeof d.chunk === 'string') {
            return [{ type: 'artifact_delta', text: d.chunk, ...wire }];
          }
          if (typeof d.stream_id !== 'string') throw new TypeError('artifact_chunk without stream_id');
          const meta = isObject(d.meta) && Object.keys(d.meta).length ? { meta: d.meta } : {};
          return [{ type: 'artifact_chunk', stream_id: d.stream_id, seq: d.seq, chunk: d.chunk, done: d.done === true,
            artifact_type: d.artifact_type ?? null, ...meta, ...wire }];
        }
        case 'tool_call_start': {
          if (d.tool_call_id === undefined) throw new TypeError('tool_call_start without tool_call_id');
          const t = toolIndex(d, true);
          const pe = d.provider_executed === undefined ? {} : { provider_executed: d.provider_executed };
          const out = [{ type: 'tool_call_start', index: t.index, id: String(d.tool_call_id), name: d.tool_name, ...pe, ...wire }];
          if (typeof d.args_json === 'string' && d.args_json) out.push({ type: 'tool_call_delta', index: t.index, arguments: d.args_json, ...wire });
          return out;
        }
        case 'tool_call_args': {
          if (d.tool_call_id === undefined || typeof d.delta !== 'string') throw new TypeError('tool_call_args without tool_call_id or delta');
          const t = toolIndex(d);
          const seq = wire.action_seq ?? t.action_seq;
          return [{ type: 'tool_call_delta', index: t.index, arguments: d.delta, ...wire, ...(seq == null ? {} : { action_seq: seq }) }];
        }
        case 'tool_call_end': {
          if (d.tool_call_id === undefined) throw new TypeError('tool_call_end without tool_call_id');
          const t = toolIndex(d);
          const seq = wire.action_seq ?? t.action_seq;
          const pe = d.provider_executed === undefined ? {} : { provider_executed: d.provider_executed };
          return [{ type: 'tool_call', index: t.index, id: String(d.tool_call_id), name: d.tool_name, arguments: d.args ?? null,
            repaired: d.repaired === true, ...pe, ...wire, ...(seq == null ? {} : { action_seq: seq }) }];
        }
        case 'step':
          return isObject(d.action) ? [{ type: 'action', action: d.action, ...wire }] : [];
        case 'event': {
          const rest = without(d, [...WIRE_FIELDS, 'event', 'ts', 'step']);
          if (d.event === 'usage') return [typed('usage', rest, wire)];
          if (EXTRA_TYPES.has(d.event)) return [typed(d.event, rest, wire)];
          return [];
        }
        case 'error':
          return [{ type: 'error', code: typeof d.code === 'string' ? d.code : 'server_error',
            message: String(d.error ?? d.message ?? ''), ...providerCode(d), ...wire }];
        case 'done': {
          const m = isObject(d.metadata) ? d.metadata : {};
          const ok = typeof m.ok === 'boolean' ? m.ok : true;
          const seq = wire.action_seq ?? d.answer_action_seq;
          return [{ type: 'done', ok, parse_ok: typeof m.parse_ok === 'boolean' ? m.parse_ok : ok,
            finish_reason: m.finish_reason ?? null, ...(m.finish !== undefined ? { finish: m.finish } : {}),
            ...(isObject(d.payload) ? { payload: d.payload } : {}), ...wire, ...(seq == null ? {} : { action_seq: seq }) }];
        }
        default:
          return [];
      }
    },
  };
}

/** The tagged vocabulary (nonce-tag-streaming.md), plus routed events under their own names. */
function taggedReader() {
  let errors = 0;
  const named = new Set(['thinking_delta', 'tool_call_start', 'tool_call_delta', 'tool_call', 'action', 'usage', ...EXTRA_TYPES]);
  return {
    named: true,
    read(name, d) {
      const wire = wireFields(d);
      switch (name) {
        case 'artifact_delta':
          if (typeof d.stream_id === 'string') {
            return [{ type: 'artifact_chunk', stream_id: d.stream_id, seq: d.seq, chunk: d.chunk, done: d.done === true,
              artifact_type: d.artifact_type ?? null, ...wire }];
          }
          if (typeof d.text !== 'string') throw new TypeError('artifact_delta without text');
          return [{ type: 'artifact_delta', text: d.text, ...wire }];
        case 'user_delta':
          if (typeof d.text !== 'string') throw new TypeError('user_delta without text');
          return [{ type: d.source === 'answer' ? 'answer_delta' : 'user_delta', text: d.text, ...wire }];
        case 'error':
          errors++;
          return [{ type: 'error', code: String(d.code ?? 'server_error'), message: String(d.message ?? d.error ?? ''),
            ...providerCode(d), ...wire }];
        case 'done': {
          const out = [];
          if (isObject(d.error) && errors === 0) {
            out.push({ type: 'error', code: String(d.error.code ?? 'server_error'), message: String(d.error.message ?? ''), ...wire });
          }
          const ok = typeof d.ok === 'boolean' ? d.ok : true;
          out.push({ type: 'done', ok, parse_ok: typeof d.parse_ok === 'boolean' ? d.parse_ok : ok,
            finish_reason: d.finish_reason ?? null, ...(d.finish !== undefined ? { finish: d.finish } : {}),
            ...(isObject(d.payload) ? { payload: d.payload } : {}), ...wire });
          return out;
        }
        default:
          return named.has(name) ? [typed(name, d)] : [];
      }
    },
  };
}

/** `provider_code` as a frame carries it (absent from frames written before it existed). */
const providerCode = (d) => (d.provider_code === undefined ? {} : { provider_code: typeof d.provider_code === 'string' ? d.provider_code : null });

const AI_SDK_TYPE = (part) => part.providerMetadata?.streamroute ?? {};

// The kinds of text a `text` part can carry besides the answer (providerMetadata.streamroute.type).
const TEXT_KINDS = new Set(['user_delta', 'artifact_delta', 'refusal_delta']);

/** The Vercel AI SDK UI message stream, as `toSse("ai-sdk")` writes it. */
function aiSdkReader() {
  const parts = new Map(); // text/reasoning part id -> the event it starts
  const tools = new Map(); // toolCallId -> index
  const announced = new Map(); // toolCallId -> index from a data-tool-call-index part
  let errorCode = null; // { code, provider_code } from the data-error part before an error
  const toolNames = new Map(); // toolCallId -> tool name
  let order = 0;
  const toolIndex = (id) => {
    let index = tools.get(id);
    if (index === undefined) {
      index = announced.get(id) ?? order;
      tools.set(id, index);
    }
    order = Math.max(order, index + 1);
    return index;
  };
  return {
    named: false,
    read(_name, p) {
      switch (p.type) {
        case 'text-start':
          parts.set(p.id, { type: TEXT_KINDS.has(AI_SDK_TYPE(p).type) ? AI_SDK_TYPE(p).type : 'answer_delta' });
          return [];
        case 'reasoning-start':
          parts.set(p.id, { type: 'thinking_delta', source: AI_SDK_TYPE(p).source === 'thought' ? 'thought' : 'reasoning' });
          return [];
        case 'text-delta':
        case 'reasoning-delta': {
          if (typeof p.delta !== 'string') throw new TypeError(`${p.type} without delta`);
          const kind = parts.get(p.id) ?? (p.type === 'text-delta' ? { type: 'answer_delta' } : { type: 'thinking_delta', source: 'reasoning' });
          return p.delta ? [{ type: kind.type, text: p.delta, ...(kind.source ? { source: kind.source } : {}) }] : [];
        }
        case 'text-end':
        case 'reasoning-end':
          parts.delete(p.id);
          return [];
        case 'data-tool-call-index':
          if (isObject(p.data) && Number.isInteger(p.data.index)) announced.set(String(p.data.toolCallId), p.data.index);
          return [];
        case 'tool-input-start': {
          if (typeof p.toolCallId !== 'string') throw new TypeError('tool-input-start without toolCallId');
          const pe = { provider_executed: p.providerExecuted === true };
          toolNames.set(p.toolCallId, p.toolName);
          return [{ type: 'tool_call_start', index: toolIndex(p.toolCallId), id: p.toolCallId, name: p.toolName, ...pe }];
        }
        case 'tool-input-delta':
          if (typeof p.toolCallId !== 'string' || typeof p.inputTextDelta !== 'string') throw new TypeError('tool-input-delta without toolCallId');
          return [{ type: 'tool_call_delta', index: toolIndex(p.toolCallId), arguments: p.inputTextDelta }];
        case 'tool-input-available': {
          if (typeof p.toolCallId !== 'string') throw new TypeError('tool-input-available without toolCallId');
          const pe = { provider_executed: p.providerExecuted === true };
          return [{ type: 'tool_call', index: toolIndex(p.toolCallId), id: p.toolCallId, name: p.toolName,
            arguments: p.input ?? null, repaired: AI_SDK_TYPE(p).repaired === true, ...pe }];
        }
        case 'tool-output-available':
          return [{ type: 'tool_result', index: toolIndex(p.toolCallId), id: p.toolCallId, name: toolNames.get(p.toolCallId) ?? null,
            result: p.output, ...(p.providerExecuted === true ? { provider_executed: true } : {}) }];
        case 'tool-output-error':
          return [{ type: 'tool_result', index: toolIndex(p.toolCallId), id: p.toolCallId, error: p.errorText ?? null }];
        case 'source-url':
        case 'source-document': {
          // toSse names a source without an id by its URL (or a counter); its snippet rides in
          // providerMetadata.
          const url = typeof p.url === 'string' ? p.url : null;
          const own = p.providerMetadata?.streamroute ?? {};
          const id = own.id !== undefined ? own.id : p.sourceId;
          return [{ type: 'source', id: id ?? null, url, title: own.title !== undefined ? own.title : (p.title ?? null),
            snippet: own.snippet ?? null }];
        }
        case 'data-artifact': {
          const d = p.data;
          if (isObject(d) && typeof d.stream_id === 'string') {
            return [{ type: 'artifact_chunk', stream_id: d.stream_id, seq: d.seq, chunk: d.chunk, done: d.done === true,
              artifact_type: d.artifact_type ?? null }];
          }
          if (!isObject(d) || typeof d.text !== 'string') throw new TypeError('data-artifact without text');
          return [{ type: 'artifact_delta', text: d.text }];
        }
        case 'data-action':
          if (!isObject(p.data)) throw new TypeError('data-action without data');
          return [{ type: 'action', action: p.data }];
        case 'data-usage':
          if (!isObject(p.data)) throw new TypeError('data-usage without data');
          return [typed('usage', p.data)];
        case 'data-error':
          if (isObject(p.data) && typeof p.data.code === 'string') {
            errorCode = { code: p.data.code, provider_code: typeof p.data.provider_code === 'string' ? p.data.provider_code : null,
              // An empty message goes as the code in `errorText` (the SDK shows that text).
              empty: p.data.message === '' };
          }
          return [];
        case 'error': {
          const text = String(p.errorText ?? '');
          const known = errorCode;
          errorCode = null;
          if (known) return [{ type: 'error', code: known.code, message: known.empty ? '' : text, provider_code: known.provider_code }];
          const m = /^([^\s:]+): ([\s\S]*)$/.exec(text);
          return [{ type: 'error', code: m ? m[1] : 'server_error', message: m ? m[2] : text }];
        }
        case 'finish': {
          const m = isObject(p.messageMetadata) ? p.messageMetadata : {};
          const ok = typeof m.ok === 'boolean' ? m.ok : p.finishReason !== 'error';
          return [{ type: 'done', ok, parse_ok: typeof m.parse_ok === 'boolean' ? m.parse_ok : ok,
            finish_reason: m.finish_reason !== undefined ? m.finish_reason : p.finishReason ?? null,
            ...(m.finish !== undefined ? { finish: m.finish } : {}), ...(isObject(m.payload) ? { payload: m.payload } : {}) }];
        }
        default: {
          const extra = typeof p.type === 'string' && p.type.startsWith('data-') ? p.type.slice(5).replaceAll('-', '_') : null;
          return extra && EXTRA_TYPES.has(extra) && isObject(p.data) ? [typed(extra, p.data)] : [];
        }
      }
    },
  };
}

const READERS = { planner: plannerReader, tagged: taggedReader, 'ai-sdk': aiSdkReader };

/**
 * The reader of one profile: `frame(sseEvent)` gives the events of one decoded SSE frame. A
 * frame it cannot read gives an `error {code: "wire_invalid"}` and reading goes on.
 * `connectSse` and `fromSse` share it.
 */
export function wireReader(profile) {
  const make = typeof profile === 'string' && Object.hasOwn(READERS, profile) ? READERS[profile] : undefined;
  if (!make) {
    const got = typeof profile === 'string' ? JSON.stringify(profile) : `a ${typeof profile}`;
    throw new StreamrouteError('invalid_option', `profile must be "planner", "tagged" or "ai-sdk", got ${got}`);
  }
  const r = make();
  return {
    frame(f) {
      const name = f.event;
      if (name === 'ping' || (!r.named && f.data === '[DONE]')) return [];
      if (r.named && name === 'message') return [];
      let data;
      try {
        data = JSON.parse(f.data);
      } catch {
        return [invalid(`${name} frame: data is not JSON`, f)];
      }
      if (!isObject(data)) return [invalid(`${name} frame: data is not a JSON object`, f)];
      try {
        return r.read(name, data);
      } catch (err) {
        return [invalid(`${r.named ? name : data.type} frame: ${err?.message ?? err}`, f)];
      }
    },
  };
}

const utf8 = new TextEncoder();

// The UTF-8 length of a string (the decoder's offsets count UTF-8 bytes).
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2; // a surrogate pair is 4 bytes
  }
  return n;
}

// The index just past the first line end (CR or LF) at or after `from`, or -1.
function pastLineEnd(bytes, from) {
  for (let i = Math.max(0, from); i < bytes.length; i++) {
    if (bytes[i] === 0x0a) return i + 1;
    if (bytes[i] === 0x0d) return i + 1 < bytes.length && bytes[i + 1] === 0x0a ? i + 2 : i + 1;
  }
  return -1;
}

/**
 * A TransformStream<Uint8Array | string, WireEvent>: the inverse of `toSse(profile)`. Gives
 * routed events, artifact chunks and a `done` carrying `payload`; a frame it cannot read is an
 * `error {code: "wire_invalid"}` and reading goes on. `options.maxEventBytes` caps one frame
 * (default 8 MiB): a longer one is reported and skipped to the end of the line that broke the
 * cap, where a fresh decoder takes over.
 */
export function fromSse(profile, options) {
  const reader = wireReader(profile);
  const decoderOptions = options?.maxEventBytes === undefined ? undefined : { maxEventBytes: options.maxEventBytes };
  let decoder = new SseDecoder(decoderOptions);
  let offset = 0; // UTF-8 bytes the current decoder has been fed
  let skipping = false; // dropping input up to the next line end
  const read = (frames, controller) => {
    for (const f of frames) for (const e of reader.frame(f)) controller.enqueue(e);
  };
  const feed = (chunk, controller) => {
    if (skipping) {
      const bytes = typeof chunk === 'string' ? utf8.encode(chunk) : chunk;
      const at = pastLineEnd(bytes, 0);
      if (at < 0) return;
      skipping = false;
      chunk = bytes.subarray(at);
    }
    const start = offset;
    offset += typeof chunk === 'string' ? utf8Length(chunk) : chunk.byteLength;
    try {
      read(decoder.feed(chunk), controller);
    } catch (err) {
      // Only a frame over the cap is the wire's fault; a chunk that is neither text nor bytes
      // is the caller's (`invalid_input`) and errors the stream.
      if (!(err instanceof StreamrouteError) || err.code !== 'sse_event_too_large') throw err;
      read(err.events ?? [], controller);
      controller.enqueue({ type: 'error', code: 'wire_invalid', message: `${err.code}: ${err.message}` });
      decoder.free();
      decoder = new SseDecoder(decoderOptions);
      offset = 0;
      // Go on after the line the decoder stopped at (it starts at `err.offset`).
      const bytes = typeof chunk === 'string' ? utf8.encode(chunk) : chunk;
      const at = pastLineEnd(bytes, (err.offset ?? start) - start);
      if (at < 0) skipping = true;
      else if (at < bytes.length) feed(bytes.subarray(at), controller);
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      feed(chunk, controller);
    },
    flush(controller) {
      if (!skipping) read(decoder.finish(), controller);
      decoder.free();
    },
  });
}

// ---------------------------------------------------------------------------------------
// StreamState: events to immutable snapshots.

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
const ENDED = Symbol('ended');

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

// ---------------------------------------------------------------------------------------
// StreamMux: one connection, several streams.

const KEY_FIELDS = new Set(['session_id', 'trace_id', 'action_seq', 'stream_id']);

/**
 * Splits events that carry several streams into one `StreamState` per stream. `key` is a field
 * name (`session_id`, `trace_id`, `action_seq`, `stream_id`) or a function of the event; events
 * without one go to the stream `null`.
 */
export class StreamMux {
  #key;
  #states = new Map();
  #ended = new Set();
  #keys = [];
  #keysFrozen = Object.freeze([]);
  #listeners = new Set();

  constructor(options) {
    const key = options?.key;
    if (typeof key === 'function') this.#key = key;
    else if (typeof key === 'string' && KEY_FIELDS.has(key)) this.#key = (e) => e[key];
    else {
      throw new StreamrouteError('invalid_option',
        'key must be "session_id", "trace_id", "action_seq", "stream_id" or a function of the event');
    }
    this.apply = this.apply.bind(this);
    this.get = this.get.bind(this);
    this.keys = this.keys.bind(this);
    this.subscribe = this.subscribe.bind(this);
  }

  /** Routes one event or an array of them to their streams. */
  apply(events) {
    const list = Array.isArray(events) ? events : [events];
    // Checked first: a batch with a bad element adds no stream and changes none.
    for (const e of list) {
      if (!isObject(e) || typeof e.type !== 'string') {
        throw new StreamrouteError('invalid_input', 'StreamMux.apply takes an event object (with a string type) or an array of them');
      }
    }
    const batches = new Map();
    const changes = [];
    for (const e of list) {
      const k = this.#key(e) ?? null;
      let state = this.#states.get(k);
      if (!state) {
        this.#states.set(k, (state = new StreamState()));
        this.#keys.push(k);
        this.#keysFrozen = null;
        changes.push({ type: 'added', key: k, state });
      }
      let batch = batches.get(k);
      if (!batch) batches.set(k, (batch = []));
      batch.push(e);
    }
    for (const [k, batch] of batches) {
      const state = this.#states.get(k);
      state.apply(batch);
      if (!this.#ended.has(k) && state[ENDED]()) {
        this.#ended.add(k);
        changes.push({ type: 'ended', key: k, state });
      }
    }
    for (const c of changes) for (const l of [...this.#listeners]) l(c);
  }

  /** The stream's state, or `undefined`. */
  get(key) {
    return this.#states.get(key);
  }

  /** The stream keys in order of arrival (the same array until a stream is added). */
  keys() {
    return (this.#keysFrozen ??= Object.freeze([...this.#keys]));
  }

  /** Frees every stream's wasm argument parsers (see `StreamState.free`). */
  free() {
    for (const state of this.#states.values()) state.free();
  }

  /** Whether a stream has ended. */
  ended(key) {
    return this.#ended.has(key);
  }

  /** Calls `listener({type: "added" | "ended", key, state})`; returns the function that stops it. */
  subscribe(listener) {
    if (typeof listener !== 'function') throw new StreamrouteError('invalid_input', 'subscribe takes a function');
    const entry = (c) => listener(c);
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }
}
