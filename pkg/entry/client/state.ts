// StreamState: routed events folded into immutable snapshots for a UI.
//
// Invariants:
// - An event is copied into plain, frozen data before anything is folded (`copyEvents`): its
//   getters run once, a cycle or a BigInt refuses the whole batch, and a member called
//   `__proto__` is an own data property like any other. Nothing is ever assigned over an
//   untrusted key (`put`).
// - A snapshot rebuilds only what changed since the previous one: a changed container is the
//   previous frozen copy plus its changed members; everything else is the same object as before.
// - Every retained value is charged to one byte budget (`maxBytes`); past it the state folds one
//   `buffer_limit_exceeded` error and keeps what it had.
// - No lookup scans: tool calls by id and by index, artifacts by id, gaps as sorted ranges.
import { EVENTS_ONLY, PartialJson, type JsonEvent, type JsonPath } from '../classes/partial.js';
import { put, requireInit } from '../handled.js';
import { StreamrouteError } from '../runtime.js';
import { READ_FIELDS, isObject, textOf } from './common.js';

type Data = Record<string, unknown>;
/** An event after `copyEvents`: plain frozen data with a string `type`. */
export type CleanEvent = Readonly<Data> & { readonly type: string };

/** Work done (members copied into snapshots, search steps, nodes read): for the scaling tests. */
export const work = { units: 0 };

// What an event's own fields leave out: its type and what the profile reader added.
const NOT_FIELDS: readonly string[] = ['type', ...READ_FIELDS];

const invalidInput = (why: string) =>
  new StreamrouteError('invalid_input', `${why}: apply takes an event object (with a string type) or an array of them, of JSON data`);

// The bytes a copied container holds (its JSON text, about 2 bytes a character).
const SIZE = new WeakMap<object, number>();
const leafBytes = (v: unknown): number => (typeof v === 'string' ? 2 * v.length + 4 : 8);
/** The bytes a value copied by `copyEvents` holds. */
export const sizeOf = (v: unknown): number => (v !== null && typeof v === 'object' ? (SIZE.get(v) ?? 8) : leafBytes(v));

interface Frame {
  src: Data | unknown[];
  out: Data | unknown[];
  keys: string[] | null;
  i: number;
  n: number;
  key: string;
  bytes: number;
}

/**
 * A plain frozen copy of an object: own enumerable members read once each, functions and
 * symbols dropped as JSON drops them. Iterative, so any depth works; an object met twice is
 * copied once. Throws `invalid_input` on a cycle or a BigInt (and whatever a getter throws).
 */
function copyTree(root: object): unknown {
  // The objects on the path and those already copied, made at the first nested object (most
  // events are flat).
  let onPath: Set<object> | null = null;
  let done: Map<object, unknown> | null = null;
  const open = (src: Data | unknown[], key: string): Frame => {
    onPath?.add(src);
    const keys = Array.isArray(src) ? null : Object.keys(src);
    const n = keys ? keys.length : (src as unknown[]).length;
    return { src, out: keys ? {} : [], keys, i: 0, n: Number.isSafeInteger(n) && n > 0 ? n : 0, key, bytes: 8 };
  };
  const stack = [open(root as Data, '')];
  for (;;) {
    const f = stack[stack.length - 1]!;
    if (f.i === f.n) {
      stack.pop();
      Object.freeze(f.out);
      SIZE.set(f.out, f.bytes);
      onPath?.delete(f.src);
      done?.set(f.src, f.out);
      const parent = stack[stack.length - 1];
      if (!parent) return f.out;
      parent.bytes += f.bytes;
      place(parent, f.key, f.out);
      continue;
    }
    work.units++;
    const key = f.keys ? f.keys[f.i]! : '';
    const v = f.keys ? (f.src as Data)[key] : (f.src as unknown[])[f.i];
    f.i++;
    if (f.keys) f.bytes += 2 * key.length + 8;
    if (v !== null && typeof v === 'object') {
      onPath ??= new Set(stack.map((s) => s.src));
      done ??= new Map();
      if (onPath.has(v)) throw invalidInput('a cycle');
      const seen = done.get(v);
      if (seen !== undefined) {
        place(f, key, seen);
        continue;
      }
      stack.push(open(v as Data, key));
      continue;
    }
    if (typeof v === 'bigint') throw invalidInput('a BigInt');
    const leaf = typeof v === 'function' || typeof v === 'symbol' ? undefined : v;
    if (leaf === undefined && !f.keys) place(f, key, null);
    else if (leaf !== undefined || typeof v === 'undefined') {
      f.bytes += leafBytes(leaf);
      place(f, key, leaf);
    }
  }
}

function place(f: Frame, key: string, v: unknown): void {
  if (f.keys) put(f.out as Data, key, v);
  else (f.out as unknown[]).push(v);
}

/**
 * The events of `apply(event | events)`, copied (see `copyTree`). Throws `invalid_input` and
 * copies nothing further on the first bad element.
 */
export function copyEvents(events: unknown, who: string): CleanEvent[] {
  try {
    const list: unknown[] = Array.isArray(events) ? events : [events];
    const n = list.length;
    const out: CleanEvent[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const e = list[i];
      if (e === null || typeof e !== 'object' || Array.isArray(e)) throw invalidInput(`${who}: element ${i} is not an object`);
      const copy = copyTree(e) as CleanEvent;
      if (typeof copy.type !== 'string') throw invalidInput(`${who}: element ${i} has no string type`);
      out[i] = copy;
    }
    return out;
  } catch (err) {
    if (err instanceof StreamrouteError) throw err;
    throw invalidInput(`${who}: ${err instanceof RangeError ? 'too large' : 'reading an event threw'}`);
  }
}

/** The members of `data` but `keys`, own data only; and their bytes. */
function without(data: Readonly<Data>, keys: readonly string[]): [Data, number] {
  const out: Data = {};
  let bytes = 8;
  for (const k of Object.keys(data)) {
    if (keys.includes(k)) continue;
    put(out, k, data[k]);
    bytes += 2 * k.length + 8 + sizeOf(data[k]);
  }
  SIZE.set(out, bytes);
  return [Object.freeze(out), bytes];
}

// JSON text of copied data, or `null` past `limit` nodes: a shared object is written once per
// path, so a small value can have an exponentially long text.
function boundedJson(v: unknown, limit = 10_000): string | null {
  let nodes = 0;
  try {
    return (
      JSON.stringify(v, (_k, x: unknown) => {
        if (++nodes > limit) throw new RangeError('too long');
        return x;
      }) ?? 'undefined'
    );
  } catch {
    return null;
  }
}

/** A field as text for a message, an id or a code: a string as is, data as bounded JSON. */
function textIn(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  if (typeof v !== 'object') return String(v);
  return boundedJson(v) ?? '';
}

// ---------------------------------------------------------------------------------------------
// Options and listeners (shared with StreamMux).

export type ListenerErrorHandler = (error: unknown) => void;

/** The members of an options object, read once each; unknown ones are `invalid_option`. */
export function readOptions(options: unknown, known: readonly string[], who: string): Data {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options))
    throw new StreamrouteError('invalid_input', `${who}: options must be an object`);
  let copy: Data;
  try {
    copy = {};
    for (const k of Object.keys(options)) put(copy, k, (options as Data)[k]);
  } catch {
    throw new StreamrouteError('invalid_input', `${who}: reading the options threw`);
  }
  for (const k of Object.keys(copy)) {
    if (!known.includes(k))
      throw new StreamrouteError('invalid_input', `${who}: unknown option ${JSON.stringify(k)} (known: ${known.join(', ')})`);
  }
  return copy;
}

export function positiveInteger(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0)
    throw new StreamrouteError('invalid_option', `${name} must be a positive integer`);
  return v;
}

export function listenerErrorOption(v: unknown): ListenerErrorHandler | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'function') throw new StreamrouteError('invalid_option', 'onListenerError must be a function');
  return v as ListenerErrorHandler;
}

/** `throttleMs` of `subscribe(listener, { throttleMs })`: 0 (every change at once) by default. */
export function throttleOption(options: unknown, fallback = 0): number {
  const o = readOptions(options, ['throttleMs'], 'subscribe');
  const ms = o.throttleMs;
  if (ms === undefined) return fallback;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw new StreamrouteError('invalid_option', 'throttleMs must be a number of milliseconds (0 or more)');
  return ms;
}

/** Reports a listener's error to `onListenerError`, else rethrows it from a microtask. */
export function reporter(handler: ListenerErrorHandler | undefined): (error: unknown) => void {
  return (error) => {
    if (handler) {
      try {
        handler(error);
        return;
      } catch (again) {
        error = again;
      }
    }
    queueMicrotask(() => {
      throw error;
    });
  };
}

/**
 * A throttled call: `ring()` calls at once when no window is open, else once at the window's
 * end (the trailing call); `flush()` calls at once. Only `setTimeout` keeps time.
 */
export class Throttle {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pending = false;
  #stopped = false;
  readonly #ms: number;
  readonly #call: () => void;

  constructor(ms: number, call: () => void) {
    this.#ms = ms;
    this.#call = call;
  }

  get pending(): boolean {
    return this.#pending;
  }

  ring(urgent: boolean): void {
    if (this.#stopped) return;
    if (this.#ms <= 0 || urgent || this.#timer === undefined) {
      this.#pending = false;
      this.#call();
      this.#open();
    } else {
      this.#pending = true;
    }
  }

  #open(): void {
    if (this.#ms <= 0 || this.#timer !== undefined || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#pending && !this.#stopped) {
        this.#pending = false;
        this.#call();
        this.#open();
      }
    }, this.#ms);
  }

  stop(): void {
    this.#stopped = true;
    this.#pending = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Text and the partial arguments of a tool call.

/** Text kept as pieces, joined when read. */
class Text {
  value = '';
  parts: string[] = [];
  get empty(): boolean {
    return this.value === '' && this.parts.length === 0;
  }
  push(s: string): void {
    this.parts.push(s);
  }
  get(): string {
    if (this.parts.length) {
      this.value += this.parts.length === 1 ? this.parts[0] : this.parts.join('');
      this.parts.length = 0;
    }
    return this.value;
  }
}

type Leaf = string | number | boolean | null;

// The changed lists of a leaf, which has no members (never pushed to).
const NO_MEMBERS: (string | number)[] = Object.freeze([]) as unknown as (string | number)[];

/**
 * One value of a tool call's arguments. A container keeps its members, and per view (the
 * partial one and the complete one) its last frozen copy and the members changed since: a
 * snapshot rebuilds only containers with changes, and reuses every other copy as it is.
 */
class Node {
  kind: 'object' | 'array' | 'string' | 'leaf';
  value: Leaf = null;
  ended = false;
  members: Map<string | number, Node> | null = null;
  // The partial view: the frozen copy, whether the parent's copy is stale, the changed members.
  view: unknown = undefined;
  dirty = false;
  changed = NO_MEMBERS;
  // The complete view: only ended values, and containers with their complete members.
  cview: unknown = undefined;
  cdirty = false;
  cchanged = NO_MEMBERS;
  inComplete = false;
  // Leaves begun and not ended below this container: with none, both views are the same.
  open = 0;

  constructor(kind: Node['kind'], value: Leaf) {
    this.kind = kind;
    this.value = value;
    if (kind === 'object' || kind === 'array') {
      this.members = new Map();
      this.changed = [];
      this.cchanged = [];
    }
  }

  get container(): boolean {
    return this.members !== null;
  }
}

/**
 * The partial arguments of one tool call, from `PartialJson` events. Nothing reported is ever
 * retracted; a complete value never changes afterwards.
 */
class PartialValue {
  root: Node | null = null;
  #path: Node[] = [];

  /** The bytes `j` adds. */
  static cost(j: JsonEvent): number {
    const key = j.path.length ? j.path[j.path.length - 1] : '';
    const keyBytes = typeof key === 'string' ? 2 * key.length : 0;
    switch (j.type) {
      case 'begin':
        return 48 + keyBytes;
      case 'append':
        return 2 * j.text.length;
      case 'set':
        return typeof j.value === 'string' ? 0 : 16 + keyBytes;
      default:
        return 0;
    }
  }

  apply(j: JsonEvent): void {
    const path = j.path;
    const nodes = this.#path;
    nodes.length = 0;
    // The containers down to the event's value, and the value (null when new).
    let node = this.root;
    for (let i = 0; i < path.length; i++) {
      if (!node?.members) return;
      nodes.push(node);
      node = node.members.get(path[i]!) ?? null;
    }
    work.units += path.length + 1;
    switch (j.type) {
      case 'begin':
        node = new Node(j.kind === 'string' ? 'string' : j.kind, j.kind === 'string' ? '' : null);
        this.#place(nodes, path, node);
        if (!node.container) for (const n of nodes) n.open++;
        break;
      case 'append':
        if (node?.kind !== 'string') return;
        node.value = (node.value as string) + j.text;
        break;
      case 'set':
        if (node && node.kind === 'string' && typeof j.value === 'string') node.value = j.value;
        else {
          this.#place(nodes, path, (node = new Node('leaf', j.value)));
          for (const n of nodes) n.open++;
        }
        break;
      default:
        // A leaf that ends enters the complete view (a container is in it from its beginning).
        if (!node || node.ended) return;
        node.ended = true;
        if (node.container) return;
        for (const n of nodes) n.open--;
        nodes.push(node);
        node.inComplete = true;
        mark(nodes, path, 'cdirty', 'cchanged');
        return;
    }
    nodes.push(node);
    mark(nodes, path, 'dirty', 'changed');
    if (j.type === 'begin' && node.container) {
      node.inComplete = true;
      mark(nodes, path, 'cdirty', 'cchanged');
    }
  }

  #place(nodes: Node[], path: JsonPath, node: Node): void {
    if (path.length === 0) this.root = node;
    else nodes[nodes.length - 1]!.members!.set(path[path.length - 1]!, node);
  }

  value(): unknown {
    return this.root ? view(this.root) : undefined;
  }

  complete(): unknown {
    return this.root?.inComplete ? completeView(this.root) : undefined;
  }
}

// A container's new frozen copy: the previous one plus the members in `changed`.
function rebuild(n: Node, prev: unknown, changed: (string | number)[], member: (c: Node) => unknown, has: (c: Node) => boolean): unknown {
  const members = n.members!;
  let out: unknown;
  if (n.kind === 'object') {
    // Built afresh from the members: an unchanged member's view is its cached copy, O(1). (Faster
    // in V8 than spreading the previous frozen copy, which for a large object is a dictionary.)
    const o: Data = {};
    for (const [k, c] of members) if (has(c)) put(o, k as string, member(c));
    work.units += members.size;
    out = o;
  } else {
    // Array.from, not slice: V8's slice of a frozen array takes a slow path (~100× slower).
    const a = prev === undefined ? [] : Array.from(prev as unknown[]);
    work.units += a.length;
    for (const k of changed) {
      work.units++;
      const c = members.get(k)!;
      if (has(c)) a[k as number] = member(c);
    }
    out = a;
  }
  changed.length = 0;
  return Object.freeze(out);
}

/**
 * Marks the path to `nodes`' last node as changed in one view, bottom up: each node's key joins
 * its parent's changed list once. A marked node's ancestors are marked, so the walk stops at the
 * first one already marked (amortised O(1) per event beyond the path walk).
 */
function mark(nodes: Node[], path: JsonPath, flag: 'dirty' | 'cdirty', list: 'changed' | 'cchanged'): void {
  for (let i = nodes.length - 1; i > 0; i--) {
    const n = nodes[i]!;
    if (n[flag]) return;
    n[flag] = true;
    nodes[i - 1]![list].push(path[i - 1]!);
  }
  nodes[0]![flag] = true;
}

function view(n: Node): unknown {
  n.dirty = false;
  if (!n.container) return n.value;
  if (n.view === undefined || n.changed.length) n.view = rebuild(n, n.view, n.changed, view, () => true);
  return n.view;
}

function completeView(n: Node): unknown {
  n.cdirty = false;
  if (!n.container) return n.value;
  if (n.open === 0) {
    // Everything below has ended: the complete view is the partial one (the changed members'
    // flags cleared on the way, so later changes mark them again).
    for (const k of n.cchanged) completeView(n.members!.get(k)!);
    n.cchanged.length = 0;
    return (n.cview = view(n));
  }
  if (n.cview === undefined || n.cchanged.length) n.cview = rebuild(n, n.cview, n.cchanged, completeView, (c) => c.inComplete);
  return n.cview;
}

// ---------------------------------------------------------------------------------------------
// The state.

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
// The most missing `seq` numbers an artifact may wait for at once (bounds its `gaps` list).
const MAX_GAPS = 1 << 16;
// What a record costs besides its values: a tool call, an artifact, a chunk's slot, a gap range.
const RECORD = 64;
const SLOT = 16;
/** Bytes of one missing `seq` number as the snapshot's `gaps` lists it. */
const GAP = 8;

interface Tool {
  index: unknown;
  id: unknown;
  name: unknown;
  text: Text;
  partial: PartialValue;
  pj: PartialJson | null;
  pjFailed: boolean;
  arguments: unknown;
  final: boolean;
  providerExecuted: boolean;
  /** Who called the tool, as the provider says (`undefined`: it said nothing). */
  caller: unknown;
  result: unknown;
  state: 'input-streaming' | 'input-available' | 'output-available' | 'output-error';
  pos: number;
  snap: unknown;
}

interface Artifact {
  id: string;
  seqs: number[];
  chunks: unknown[];
  max: number;
  done: boolean;
  artifact_type: unknown;
  ranges: number[]; // missing seq numbers: sorted [from, to] pairs, inclusive
  missing: number;
  chunksView: readonly unknown[] | null;
  gapsView: readonly number[] | null;
  pending: boolean; // in the changed list
  snap: unknown;
}

interface CallTables {
  open: Map<unknown, Tool>;
  byId: Map<unknown, Tool>;
  byIndex: Map<unknown, Tool>;
}

// The empty list and map every state starts with.
const NONE: readonly never[] = Object.freeze([]);
const NO_ARTIFACTS: Readonly<Data> = Object.freeze({});

// Fields of the snapshot, as dirty bits.
const F = { thinking: 1, toolCalls: 2, artifacts: 4, sources: 8, errors: 16, other: 32, continuations: 64 } as const;
const ALL = 127;

// A source's identity: its url, else its id, else its JSON text (a source too large to write
// is its own; `unique` counts those).
let unique = 0;
function sourceKey(s: Readonly<Data>): string {
  const [tag, v] = s.url != null ? ['u', s.url] : s.id != null ? ['i', s.id] : ['j', s];
  const text = typeof v === 'string' ? JSON.stringify(v) : boundedJson(v);
  return text === null ? `#${unique++}` : `${tag}:${text}`;
}

// Whether a stream has ended (for StreamMux), read without making a snapshot.
export const ENDED = Symbol('ended');
// Folds events already copied by `copyEvents` (for StreamMux).
export const FOLD = Symbol('fold');

/** Options of `new StreamState(options)`. */
export interface StreamStateOptions {
  maxBytes?: number;
  onListenerError?: ListenerErrorHandler;
}

/**
 * Folds routed events (and `fromSse`'s) into immutable snapshots: `apply(event | events)`,
 * `snapshot()` and `subscribe(listener, { throttleMs }) -> unsubscribe`. `snapshot` and
 * `subscribe` are bound, so `useSyncExternalStore(state.subscribe, state.snapshot)` works.
 */
export class StreamState {
  #status: 'streaming' | 'done' | 'error' = 'streaming';
  #answer = new Text();
  #commentary = new Text();
  #compaction = new Text();
  #reasoning = new Text();
  #thought = new Text();
  #artifactText = new Text();
  #userText = new Text();
  #refusal = new Text();
  #tools: Tool[] = [];
  #toolsChanged: Tool[] = [];
  #toolsView: readonly unknown[] = NONE;
  // Tool calls by index while open (still streaming), the latest by id and by index; made at
  // the first tool event (most streams have none).
  #calls: CallTables | null = null;
  #action: unknown = null;
  #artifacts = new Map<string, Artifact>();
  #artifactsChanged: Artifact[] = [];
  #artifactsView: Readonly<Data> = NO_ARTIFACTS;
  #incomplete = 0; // artifacts not done or with gaps
  #content = false; // something besides artifacts (for ENDED)
  #sources: Map<string, unknown> | null = null; // by identity (`sourceKey`)
  #sourcesList: unknown[] = [];
  #sourcesView: readonly unknown[] = NONE;
  #usage: unknown = null;
  #payload: unknown = null;
  #finish: unknown = null;
  #errors: unknown[] = [];
  #errorsView: readonly unknown[] = NONE;
  // Continuation events as received: appended, never changed.
  #continuations: CleanEvent[] = [];
  #continuationsView: readonly unknown[] = NONE;
  #modelFallback: unknown = null;
  #container: unknown = null;
  #stopDetails: unknown = null;
  #finishMessage: string | null = null;
  #ended = false;
  #dirty = ALL;
  #urgent = false;
  #version = 0;
  #snap: unknown = null;
  #subs = new Set<Throttle>();
  // The byte budget, and what the replaceable fields hold now.
  readonly #maxBytes: number;
  #bytes = 0;
  #over = false;
  #held: { [K in HeldField]: number } = {
    action: 0,
    usage: 0,
    payload: 0,
    modelFallback: 0,
    container: 0,
    stopDetails: 0,
    finishMessage: 0,
  };
  readonly #report: (error: unknown) => void;

  constructor(options?: StreamStateOptions) {
    // Like every class of the package: `not_initialized` before `await init()` in a browser
    // (the tool-argument parsers are wasm).
    requireInit();
    const o = readOptions(options, ['maxBytes', 'onListenerError'], 'StreamState');
    this.#maxBytes = positiveInteger(o.maxBytes, 'maxBytes', DEFAULT_MAX_BYTES);
    this.#report = reporter(listenerErrorOption(o.onListenerError));
    this.snapshot = this.snapshot.bind(this);
    this.subscribe = this.subscribe.bind(this);
    this.apply = this.apply.bind(this);
  }

  /**
   * Folds one event or an array of events; listeners hear once per call that changed something.
   * A batch with an element that is not an event of JSON data is refused whole (`invalid_input`).
   */
  apply(events: unknown): void {
    this[FOLD](copyEvents(events, 'StreamState.apply'));
  }

  [FOLD](list: readonly CleanEvent[]): void {
    const before = this.#version;
    for (const e of list) this.#fold(e);
    if (this.#version === before) return;
    const urgent = this.#urgent;
    this.#urgent = false;
    for (const sub of [...this.#subs]) sub.ring(urgent);
  }

  /**
   * Calls `listener()` after every change, or with `throttleMs` at most once per that many
   * milliseconds (the last change always heard; `done` and errors at once). Returns the
   * function that stops it (and cancels a pending call).
   */
  subscribe(listener: () => void, options?: { throttleMs?: number }): () => void {
    if (typeof listener !== 'function') throw new StreamrouteError('invalid_input', 'subscribe takes a function');
    const ms = throttleOption(options);
    const report = this.#report;
    const sub = new Throttle(ms, () => {
      try {
        listener();
      } catch (err) {
        report(err);
      }
    });
    this.#subs.add(sub);
    return () => {
      sub.stop();
      this.#subs.delete(sub);
    };
  }

  /**
   * Frees the wasm argument parsers of tool calls still streaming (`done` frees them too). The
   * state stays readable; a later argument delta only grows `argumentsText`.
   */
  free(): void {
    for (const t of this.#calls?.open.values() ?? []) {
      closeParser(t);
      t.pjFailed = true;
    }
  }

  /** Bytes the state holds, as charged to `maxBytes`. */
  get bytes(): number {
    return this.#bytes;
  }

  #mark(field: number): void {
    this.#version++;
    this.#dirty |= field;
  }

  // Charges `n` bytes; past the budget, folds the one `buffer_limit_exceeded` and says no.
  #charge(n: number): boolean {
    if (this.#over) return false;
    if (this.#bytes + n <= this.#maxBytes) {
      this.#bytes += n;
      return true;
    }
    this.#over = true;
    this.#pushError(
      'buffer_limit_exceeded',
      `the stream's state would hold more than maxBytes (${this.#maxBytes}) bytes; what came after was dropped`,
    );
    return false;
  }

  // Replaces the bytes a field holds.
  #hold(field: HeldField, n: number): boolean {
    const old = this.#held[field];
    if (n > old && !this.#charge(n - old)) return false;
    if (n < old) this.#bytes -= old - n;
    this.#held[field] = n;
    return true;
  }

  // The event's fields but its type and wire fields, marked as a change, if the budget holds
  // them as `field`; null (nothing changed) if it does not.
  #fields(field: HeldField, e: Readonly<Data>): Data | null {
    const [v, bytes] = without(e, NOT_FIELDS);
    if (!this.#hold(field, bytes)) return null;
    this.#mark(F.other);
    return v;
  }

  #text(t: Text, s: unknown, field: number, content: boolean): void {
    const text = textOf(s);
    if (!text || !this.#charge(2 * text.length)) return;
    t.push(text);
    if (content) this.#content = true;
    this.#mark(field);
  }

  #fold(e: CleanEvent): void {
    switch (e.type) {
      case 'answer_delta':
        // Commentary (text the model writes between tool calls) is kept apart from the answer.
        this.#text(e.phase === 'commentary' ? this.#commentary : this.#answer, e.text, F.other, true);
        break;
      case 'compaction':
        this.#text(this.#compaction, e.text, F.other, true);
        break;
      case 'continuation':
        // Kept whole, as received (the frozen copy `copyEvents` made): the next request sends it back.
        if (!this.#charge(SLOT + sizeOf(e))) break;
        this.#continuations.push(e);
        this.#content = true;
        this.#mark(F.continuations);
        break;
      case 'model_fallback': {
        const fallback = Object.freeze({ from: e.from ?? null, to: e.to ?? null });
        if (!this.#hold('modelFallback', RECORD + sizeOf(fallback.from) + sizeOf(fallback.to))) break;
        this.#modelFallback = fallback;
        this.#mark(F.other);
        break;
      }
      case 'container':
        this.#container = this.#fields('container', e) ?? this.#container;
        break;
      case 'usage':
        this.#usage = this.#fields('usage', e) ?? this.#usage;
        break;
      case 'user_delta':
        this.#text(this.#userText, e.text, F.other, true);
        break;
      case 'artifact_delta':
        this.#text(this.#artifactText, e.text, F.other, true);
        break;
      case 'refusal_delta':
        this.#text(this.#refusal, e.text, F.other, false);
        break;
      case 'thinking_delta':
        this.#text(e.source === 'thought' ? this.#thought : this.#reasoning, e.text, F.thinking, true);
        break;
      case 'tool_call_start': {
        if (!this.#charge(RECORD + sizeOf(e.id) + sizeOf(e.name))) break;
        const before = this.#tables().open.get(e.index);
        if (before) closeParser(before);
        if (e.caller !== undefined && !this.#charge(sizeOf(e.caller))) break;
        const t = this.#newTool(e.index, e.id ?? null, e.name ?? null);
        if (e.provider_executed === true) t.providerExecuted = true;
        t.caller = e.caller;
        this.#tables().open.set(e.index, t);
        this.#touchTool(t);
        break;
      }
      case 'tool_call_delta': {
        const t = this.#calls?.open.get(e.index);
        const text = textOf(e.arguments);
        if (!t || !text || this.#over) break;
        const events = this.#parse(t, text);
        let cost = 2 * text.length;
        for (const j of events) cost += PartialValue.cost(j);
        if (!this.#charge(cost)) {
          closeParser(t);
          t.pjFailed = true;
          break;
        }
        t.text.push(text);
        for (const j of events) t.partial.apply(j);
        this.#touchTool(t);
        break;
      }
      case 'tool_call': {
        if (!this.#charge(sizeOf(e.arguments) + sizeOf(e.id) + sizeOf(e.name) + (e.caller === undefined ? 0 : sizeOf(e.caller)))) break;
        let t = this.#tables().open.get(e.index);
        if (!t) t = this.#newTool(e.index, e.id ?? null, e.name ?? null);
        this.#tables().open.delete(e.index);
        if (e.id != null) this.#setId(t, e.id);
        t.name = e.name ?? t.name;
        t.arguments = e.arguments;
        t.final = e.arguments !== undefined && e.arguments !== null;
        if (e.provider_executed === true) t.providerExecuted = true;
        if (e.caller !== undefined) t.caller = e.caller;
        if (t.state === 'input-streaming') t.state = 'input-available';
        closeParser(t);
        this.#touchTool(t);
        break;
      }
      case 'tool_result': {
        const id = e.id ?? e.tool_call_id ?? e.toolCallId;
        const calls = this.#calls;
        const t = (id != null ? calls?.byId.get(id) : undefined) ?? (e.index !== undefined ? calls?.byIndex.get(e.index) : undefined);
        if (!t) break;
        const failed = e.error != null || e.is_error === true;
        const result = failed ? (e.result ?? e.output ?? e.error) : (e.result ?? e.output ?? null);
        if (!this.#charge(sizeOf(result))) break;
        t.result = result;
        t.state = failed ? 'output-error' : 'output-available';
        if (e.provider_executed === true) t.providerExecuted = true;
        this.#touchTool(t);
        break;
      }
      case 'action':
        if (!this.#hold('action', sizeOf(e.action))) break;
        this.#action = e.action ?? null;
        this.#content = true;
        this.#mark(F.other);
        break;
      case 'artifact_chunk':
        this.#artifact(e);
        break;
      case 'source': {
        const [s] = isObject(e.source) ? [e.source] : without(e, NOT_FIELDS);
        if (this.#addSource(s)) this.#mark(F.sources);
        break;
      }
      case 'error':
        this.#error(e.code, e.message);
        break;
      case 'done': {
        this.#ended = true;
        if (e.ok === false) this.#status = 'error';
        else if (this.#status === 'streaming') this.#status = 'done';
        this.#finish = e.finish ?? e.finish_reason ?? null;
        const stopDetails = e.stop_details ?? null;
        if (this.#hold('stopDetails', stopDetails === null ? 0 : sizeOf(stopDetails))) this.#stopDetails = stopDetails;
        const finishMessage = typeof e.finish_message === 'string' ? e.finish_message : null;
        if (this.#hold('finishMessage', finishMessage === null ? 0 : sizeOf(finishMessage))) this.#finishMessage = finishMessage;
        const payload = e.payload;
        if (isObject(payload) && this.#hold('payload', sizeOf(payload))) {
          this.#payload = payload;
          let added = false;
          const sources = payload.sources;
          if (Array.isArray(sources)) for (const s of sources) if (isObject(s)) added = this.#addSource(s) || added;
          if (added) this.#mark(F.sources);
        }
        this.free();
        this.#urgent = true;
        this.#mark(F.other);
        break;
      }
      default:
        break;
    }
  }

  #newTool(index: unknown, id: unknown, name: unknown): Tool {
    const t: Tool = {
      index,
      id: null,
      name,
      text: new Text(),
      partial: new PartialValue(),
      pj: null,
      pjFailed: false,
      arguments: undefined,
      final: false,
      providerExecuted: false,
      caller: undefined,
      result: undefined,
      state: 'input-streaming',
      pos: this.#tools.length,
      snap: null,
    };
    this.#tools.push(t);
    this.#tables().byIndex.set(index, t);
    if (id != null) this.#setId(t, id);
    this.#content = true;
    return t;
  }

  #setId(t: Tool, id: unknown): void {
    t.id = id;
    const byId = this.#tables().byId;
    const latest = byId.get(id);
    if (!latest || latest.pos < t.pos) byId.set(id, t);
  }

  #tables(): CallTables {
    return (this.#calls ??= { open: new Map(), byId: new Map(), byIndex: new Map() });
  }

  #error(code: unknown, message: unknown): void {
    const c = textIn(code) || 'error';
    const m = textIn(message);
    if (!this.#charge(RECORD + 2 * (c.length + m.length))) return;
    this.#pushError(c, m);
  }

  #pushError(code: string, message: string): void {
    this.#errors.push(Object.freeze({ code, message }));
    this.#status = 'error';
    this.#urgent = true;
    this.#mark(F.errors);
  }

  #touchTool(t: Tool): void {
    // A tool call not yet in the last tool list is added by position at the next snapshot.
    if (t.snap !== null) this.#toolsChanged.push(t);
    t.snap = null;
    this.#mark(F.toolCalls);
  }

  // The argument parser's events for `text` (none once the text is not JSON).
  #parse(t: Tool, text: string): JsonEvent[] {
    if (t.pjFailed) return [];
    try {
      t.pj ??= new PartialJson()[EVENTS_ONLY]();
      return t.pj.feed(text);
    } catch (err) {
      // Text that is not JSON (it may still be repaired at the end): the partial value keeps
      // what was read before; `arguments` says what the call was.
      t.pjFailed = true;
      closeParser(t);
      const events = err instanceof StreamrouteError && Array.isArray(err.events) ? err.events : [];
      return events as JsonEvent[];
    }
  }

  #addSource(s: Readonly<Data>): boolean {
    const key = sourceKey(s);
    const sources = (this.#sources ??= new Map());
    if (sources.has(key) || !this.#charge(SLOT + sizeOf(s))) return false;
    sources.set(key, s);
    this.#sourcesList.push(s);
    return true;
  }

  #artifact(e: CleanEvent): void {
    const id = textIn(e.stream_id);
    let a = this.#artifacts.get(id);
    const seq = e.seq === undefined || e.seq === null ? (a?.max ?? -1) + 1 : e.seq;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
      this.#error(
        'wire_invalid',
        `artifact ${JSON.stringify(id)}: seq ${boundedJson(e.seq, 100) ?? typeof e.seq} is not a sequence number`,
      );
      return;
    }
    const max = a?.max ?? -1;
    const jump = seq > max + 1 ? seq - max - 1 : 0;
    if (jump > 0 && jump + (a?.missing ?? 0) > MAX_GAPS) {
      this.#error('wire_invalid', `artifact ${JSON.stringify(id)}: seq ${seq} leaves more than ${MAX_GAPS} missing`);
      return;
    }
    // A repeat, found by binary search over the missing ranges.
    const at = seq <= max && a ? findRange(a.ranges, seq) : -1;
    if (seq <= max && at < 0) return;
    // A jump is one range here, but the snapshot lists every missing number (`gaps`): each
    // costs its 8 bytes from the jump on, given back when it is filled.
    if (!this.#charge(sizeOf(e.chunk) + SLOT + (a ? 0 : RECORD + 2 * id.length) + (jump > 0 ? SLOT + GAP * jump : 0))) return;
    if (!a) {
      a = {
        id,
        seqs: [],
        chunks: [],
        max: -1,
        done: false,
        artifact_type: e.artifact_type ?? null,
        ranges: [],
        missing: 0,
        chunksView: null,
        gapsView: NONE as readonly number[],
        pending: false,
        snap: null,
      };
      this.#artifacts.set(id, a);
      this.#incomplete++;
    }
    const wasComplete = a.done && a.missing === 0;
    if (seq > max) {
      if (jump > 0) {
        a.ranges.push(max + 1, seq - 1);
        a.missing += jump;
        a.gapsView = null;
      }
      a.seqs.push(seq);
      a.chunks.push(e.chunk);
      a.max = seq;
    } else {
      const from = a.ranges[at]!;
      const to = a.ranges[at + 1]!;
      if (from === to) a.ranges.splice(at, 2);
      else if (seq === from) a.ranges[at] = seq + 1;
      else if (seq === to) a.ranges[at + 1] = seq - 1;
      else a.ranges.splice(at, 2, from, seq - 1, seq + 1, to);
      a.missing--;
      this.#bytes -= GAP;
      a.gapsView = null;
      const pos = lowerBound(a.seqs, seq);
      a.seqs.splice(pos, 0, seq);
      a.chunks.splice(pos, 0, e.chunk);
    }
    a.chunksView = null;
    if (e.done === true) a.done = true;
    if (e.artifact_type != null) a.artifact_type = e.artifact_type;
    const complete = a.done && a.missing === 0;
    if (complete !== wasComplete) this.#incomplete += complete ? -1 : 1;
    if (!a.pending) this.#artifactsChanged.push(a);
    a.pending = true;
    a.snap = null;
    this.#mark(F.artifacts);
  }

  /**
   * Ended: `done` or an error came, or the stream carries only artifacts and every one of them
   * is complete (done, no gaps). O(1), no copying.
   */
  [ENDED](): boolean {
    if (this.#status !== 'streaming') return true;
    return this.#artifacts.size > 0 && this.#incomplete === 0 && !this.#content;
  }

  /** The current snapshot: the same object until something changes. */
  snapshot(): StreamSnapshotShape {
    const d = this.#dirty;
    if (d === 0) return this.#snap as StreamSnapshotShape;
    const prev = this.#snap as StreamSnapshotShape | null;
    work.units += 14;
    const snap: StreamSnapshotShape = Object.freeze({
      status: this.#status,
      answer: this.#answer.get(),
      commentary: this.#commentary.get(),
      thinking: d & F.thinking || !prev ? Object.freeze({ reasoning: this.#reasoning.get(), thought: this.#thought.get() }) : prev.thinking,
      artifactText: this.#artifactText.get(),
      userText: this.#userText.get(),
      refusal: this.#refusal.get(),
      toolCalls: d & F.toolCalls ? this.#toolsSnapshot() : this.#toolsView,
      action: this.#action,
      artifacts: d & F.artifacts ? this.#artifactsSnapshot() : this.#artifactsView,
      sources: d & F.sources ? this.#sourcesSnapshot() : this.#sourcesView,
      usage: this.#usage,
      payload: this.#payload,
      finish: this.#finish,
      errors: d & F.errors ? this.#errorsSnapshot() : this.#errorsView,
      compaction: this.#compaction.get(),
      continuations: d & F.continuations ? this.#continuationsSnapshot() : this.#continuationsView,
      modelFallback: this.#modelFallback,
      container: this.#container,
      stopDetails: this.#stopDetails,
      finishMessage: this.#finishMessage,
    });
    this.#dirty = 0;
    this.#snap = snap;
    return snap;
  }

  #toolsSnapshot(): readonly unknown[] {
    const prev = this.#toolsView;
    const tools = this.#tools;
    if (this.#toolsChanged.length === 0 && prev.length === tools.length) return prev;
    const out = Array.from(prev); // not slice: slow on a frozen array in V8
    work.units += out.length;
    for (const t of this.#toolsChanged) {
      work.units++;
      out[t.pos] = toolSnapshot(t);
    }
    for (let i = prev.length; i < tools.length; i++) {
      work.units++;
      out[i] = toolSnapshot(tools[i]!);
    }
    this.#toolsChanged.length = 0;
    return (this.#toolsView = Object.freeze(out));
  }

  #artifactsSnapshot(): Readonly<Data> {
    const changed = this.#artifactsChanged;
    if (changed.length === 0) return this.#artifactsView;
    // Built afresh from the artifacts (faster in V8 than spreading a large frozen copy); an
    // unchanged artifact is its cached snapshot.
    for (const a of changed) a.pending = false;
    const out: Data = {};
    for (const a of this.#artifacts.values()) put(out, a.id, artifactSnapshot(a));
    work.units += this.#artifacts.size + changed.length;
    changed.length = 0;
    return (this.#artifactsView = Object.freeze(out));
  }

  #sourcesSnapshot(): readonly unknown[] {
    const list = this.#sourcesList;
    if (list.length === this.#sourcesView.length) return this.#sourcesView;
    work.units += list.length;
    return (this.#sourcesView = Object.freeze(list.slice()));
  }

  // The list as it is now: the previous snapshot's, plus the continuations since (each event is
  // the one frozen copy it arrived as, shared by every later snapshot).
  #continuationsSnapshot(): readonly unknown[] {
    const list = this.#continuations;
    if (list.length === this.#continuationsView.length) return this.#continuationsView;
    work.units += list.length;
    return (this.#continuationsView = Object.freeze(list.slice()));
  }

  #errorsSnapshot(): readonly unknown[] {
    work.units += this.#errors.length;
    return (this.#errorsView = Object.freeze(this.#errors.slice()));
  }

  /** Whether a `done` arrived. */
  get ended(): boolean {
    return this.#ended;
  }
}

/** The snapshot's shape here (the public declaration is pkg/types/streamroute.d.ts's). */
interface StreamSnapshotShape {
  readonly status: string;
  readonly answer: string;
  readonly commentary: string;
  readonly thinking: unknown;
  readonly artifactText: string;
  readonly userText: string;
  readonly refusal: string;
  readonly toolCalls: readonly unknown[];
  readonly action: unknown;
  readonly artifacts: Readonly<Data>;
  readonly sources: readonly unknown[];
  readonly usage: unknown;
  readonly payload: unknown;
  readonly finish: unknown;
  readonly errors: readonly unknown[];
  readonly compaction: string;
  readonly continuations: readonly unknown[];
  readonly modelFallback: unknown;
  readonly container: unknown;
  readonly stopDetails: unknown;
  readonly finishMessage: string | null;
}

/** The fields whose bytes are replaced, not added to, when a new value comes. */
type HeldField = 'action' | 'usage' | 'payload' | 'modelFallback' | 'container' | 'stopDetails' | 'finishMessage';

function closeParser(t: Tool): void {
  t.pj?.free();
  t.pj = null;
}

function toolSnapshot(t: Tool): unknown {
  if (t.snap !== null) return t.snap;
  work.units += 10;
  return (t.snap = Object.freeze({
    index: t.index,
    id: t.id,
    name: t.name,
    argumentsText: t.text.get(),
    partialArguments: t.partial.value(),
    completeArguments: t.final ? t.arguments : t.partial.complete(),
    arguments: t.arguments,
    providerExecuted: t.providerExecuted,
    ...(t.caller !== undefined ? { caller: t.caller } : {}),
    result: t.result,
    state: t.state,
  }));
}

function artifactSnapshot(a: Artifact): unknown {
  if (a.snap !== null) return a.snap;
  if (a.chunksView === null) {
    work.units += a.chunks.length;
    a.chunksView = Object.freeze(a.chunks.slice());
  }
  if (a.gapsView === null) {
    const gaps: number[] = [];
    for (let i = 0; i < a.ranges.length; i += 2) for (let s = a.ranges[i]!; s <= a.ranges[i + 1]!; s++) gaps.push(s);
    work.units += gaps.length;
    a.gapsView = Object.freeze(gaps);
  }
  work.units += 5;
  return (a.snap = Object.freeze({ chunks: a.chunksView, seq: a.max, done: a.done, artifact_type: a.artifact_type, gaps: a.gapsView }));
}

// The position of the range [from, to] (at an even index) that holds `seq`, or -1.
function findRange(ranges: readonly number[], seq: number): number {
  let lo = 0;
  let hi = ranges.length >> 1;
  while (lo < hi) {
    work.units++;
    const mid = (lo + hi) >> 1;
    if (ranges[2 * mid + 1]! < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo < ranges.length >> 1 && ranges[2 * lo]! <= seq ? 2 * lo : -1;
}

function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    work.units++;
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The work counter, for the scaling tests only (not part of the API).
Object.defineProperty(StreamState, Symbol.for('streamroute.work'), { value: () => work.units });
