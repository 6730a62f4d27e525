// What the profile modules share: the event types they write and read, the wire fields, the
// routed event types a profile has no word for, and small readers of frame values that never
// throw on hostile input.
//
// Frame data is `JSON.parse` output: plain data whose `__proto__` member (if any) is an own
// key. Nothing here reads a member through the prototype chain (`own`), and copies are built
// with fresh object literals that leave out `__proto__`, `constructor` and `prototype`, so no
// frame can change an event's prototype or slip in a member an event inherits.
import { StreamrouteError } from '../runtime.js';

/** A JSON object as `JSON.parse` makes it. */
export type JsonObject = { [member: string]: unknown };

/**
 * The names of the fields a wire frame carries besides its event (AG-UI's: the run's
 * `thread_id`, `run_id` and `parent_run_id`, from its RUN_STARTED).
 */
export type WireField = 'trace_id' | 'session_id' | 'message_id' | 'action_seq' | 'thread_id' | 'run_id' | 'parent_run_id';

/** Fields a wire frame carries besides its event, kept on the events read from it. */
export const WIRE_FIELDS: readonly WireField[] = ['trace_id', 'session_id', 'message_id', 'action_seq'];

/** Every field a profile's reader adds to the events it reads: the frames', and AG-UI's run ids. */
export const READ_FIELDS: readonly WireField[] = [...WIRE_FIELDS, 'thread_id', 'run_id', 'parent_run_id'];

/** The wire fields of one frame (only those it has, not null). */
export type WireFields = { [K in WireField]?: unknown };

/** Text of one kind: the answer, user text (tagged), a tagged artifact, a refusal. */
export interface TextDeltaEvent {
  type: 'answer_delta' | 'user_delta' | 'artifact_delta' | 'refusal_delta';
  text: string;
  /** `answer_delta`: the phase of its message, where the provider marks it (`commentary`, `final_answer`). */
  phase?: string;
}
/** Reasoning (`reasoning`) or the action's streamed thought (`thought`). */
export interface ThinkingDeltaEvent {
  type: 'thinking_delta';
  text: string;
  source?: 'reasoning' | 'thought' | string;
}
/** One chunk of an artifact stream. */
export interface ArtifactChunkEvent {
  type: 'artifact_chunk';
  stream_id: string;
  seq: unknown;
  chunk: unknown;
  done: boolean;
  artifact_type: unknown;
  meta?: JsonObject;
}
export interface ToolCallStartEvent {
  type: 'tool_call_start';
  index: number;
  id: string;
  name: unknown;
  provider_executed?: unknown;
  /** Who called the tool, as the provider says (`{type: "direct" | "program" | …}`). */
  caller?: unknown;
}
export interface ToolCallDeltaEvent {
  type: 'tool_call_delta';
  index: number;
  arguments: string;
}
export interface ToolCallEvent {
  type: 'tool_call';
  index: number;
  id: string;
  name: unknown;
  arguments: unknown;
  repaired: boolean;
  provider_executed?: unknown;
  caller?: unknown;
}
export interface ActionEvent {
  type: 'action';
  action: JsonObject;
}
/** Token counts, as many as the provider gave. */
export interface UsageEvent {
  type: 'usage';
  [count: string]: unknown;
}
export interface ErrorEvent {
  type: 'error';
  code: string;
  message: string;
  provider_code?: string | null;
}
/** What a `done` frame's metadata carries of its event. */
export type DoneMetadata = Pick<DoneEvent, 'ok' | 'parse_ok' | 'finish_reason' | 'finish' | 'stop_details' | 'finish_message'>;
export interface DoneEvent {
  type: 'done';
  ok: boolean;
  parse_ok: boolean;
  finish_reason: unknown;
  finish?: unknown;
  payload?: JsonObject | null;
  /** The provider's details of why it stopped (Anthropic `stop_details`). */
  stop_details?: unknown;
  /** The provider's message about the finish (Gemini `finishMessage`). */
  finish_message?: unknown;
  /** The tag contract's violations (`content: "tagged"`): `[{ code, offset }]`. */
  violations?: unknown[];
}
/** A routed event a profile has no word for (EXTRA_TYPES; `refusal_delta` is a TextDeltaEvent), with its own fields. */
export interface ExtraEvent {
  type: 'tool_result' | 'source' | 'continuation' | 'compaction' | 'model_fallback' | 'container';
  [field: string]: unknown;
}

/**
 * What `fromSse` gives and `toSse` takes: routed events, artifact chunks and a `done` with
 * the payload, each with the wire fields of its frame.
 */
export type WireEvent = (
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ArtifactChunkEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEvent
  | ActionEvent
  | UsageEvent
  | ErrorEvent
  | DoneEvent
  | ExtraEvent
) &
  WireFields;

/** The `type` of a WireEvent. */
export type WireEventType = WireEvent['type'];

/** A decoded SSE frame's event name and data (`SseEvent`, of the decoder). */
export interface SseFrame {
  event: string;
  data: string;
  id: string;
}

/** One frame a writer gives: its event name (`null`: unnamed) and its data. */
export type FrameOut = [name: string | null, data: unknown];

/** The frames of a profile whose frame data is `Frames[name]`, as `[name, data]` pairs. */
export type FramesOf<Frames> = { [N in keyof Frames]: [name: N, data: Frames[N]] }[keyof Frames];

/** What every profile's `writer(options)` gives `toSse`; `F` is the profile's frame type. */
export interface ProfileWriter<F extends FrameOut = FrameOut> {
  /** The text of a heartbeat. */
  heartbeat(): string;
  /** The frames of one event. */
  frames(e: WireEvent): F[];
  /** The text that ends the stream; `frame` formats a frame as `toSse` does. */
  end(frame: (name: string | null, data: unknown) => string): string[];
}

/** The options of `toSse` a writer reads. */
export interface WriterOptions {
  traceId?: unknown;
  sessionId?: unknown;
  messageId?: unknown;
  actionSeq?: unknown;
}

/** What every profile's `reader()` gives `fromSse`. */
export interface ProfileReader {
  /** Whether the profile's frames are named (`event:`); the AI SDK's are not. */
  named: boolean;
  /** The events of one frame (`name` is its event name; `data` its JSON object). Throws on a bad frame. */
  read(name: string, data: JsonObject): WireEvent[];
}

/** A reader of named frames: `read` takes each frame's name, data and wire fields. */
export const namedReader = (read: (name: string, d: JsonObject, wire: WireFields) => WireEvent[]): ProfileReader => ({
  named: true,
  read: (name, d) => read(name, d, wireFields(d)),
});

// Routed event types a profile has no word for: they travel under their own name (tagged), in
// an `event` frame (planner) or a `data-*` part (ai-sdk), and come back as themselves.
export const EXTRA_TYPES: ReadonlySet<string> = new Set([
  'tool_result',
  'source',
  'refusal_delta',
  'continuation',
  'compaction',
  'model_fallback',
  'container',
]);

export const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Member `key` of `o` if it is its own, else `undefined` (never an inherited one). */
export const own = (o: unknown, key: string): unknown =>
  o !== null && typeof o === 'object' && Object.hasOwn(o, key) ? (o as JsonObject)[key] : undefined;

/** Member `key` of `o` if it is its own and an object, else `undefined`. */
export const ownObject = (o: unknown, key: string): JsonObject | undefined => {
  const v = own(o, key);
  return isObject(v) ? v : undefined;
};

// Text of a field that should be a string: anything else (a hostile object included) is ''.
export const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Members no copy of frame data keeps: they could change the copy's prototype or shadow what it inherits. */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The own enumerable members of `o` but `keys` and the unsafe ones, as a fresh plain object. */
export function without(data: unknown, keys: readonly string[] = []): JsonObject {
  const out: JsonObject = {};
  if (!isObject(data)) return out;
  for (const k of Object.keys(data)) {
    // defineProperty, not `out[k] =`: never a setter, whatever the key.
    if (!UNSAFE_KEYS.has(k) && !keys.includes(k)) {
      Object.defineProperty(out, k, { value: data[k], enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

// An event of `type` with the members of `parts`: `type` first, and never one of theirs (an
// OpenAI tool call's data has `"type": "function"`). The parts are copied as `without` copies.
export const typed = (type: WireEventType, a: unknown, b?: unknown): WireEvent => {
  const event: JsonObject = { type, ...without(a), ...without(b) };
  event.type = type;
  return event as WireEvent;
};

/** The artifact chunk a frame's members describe, or `null` when they have no string `stream_id`. */
export function artifactChunk(d: unknown, wire?: WireFields): ArtifactChunkEvent | null {
  const streamId = own(d, 'stream_id');
  return typeof streamId === 'string'
    ? {
        type: 'artifact_chunk',
        stream_id: streamId,
        seq: own(d, 'seq'),
        chunk: own(d, 'chunk'),
        done: own(d, 'done') === true,
        artifact_type: own(d, 'artifact_type') ?? null,
        ...wire,
      }
    : null;
}

/** The fields of a routed `source`: each a string or null. */
const SOURCE_FIELDS = ['id', 'url', 'title', 'snippet'] as const;

/**
 * A routed event a profile has no word for (EXTRA_TYPES), from the members of a frame: as
 * `typed` makes it, with a `source`'s fields as a routed source has them (a string or null).
 * Throws when a `refusal_delta` has no text.
 */
export function extraEvent(type: 'tool_result' | 'source' | 'refusal_delta' | 'usage', data: unknown, wire?: WireFields): WireEvent {
  const event = typed(type, data, wire) as JsonObject;
  if (type === 'source') {
    for (const k of SOURCE_FIELDS) {
      const v = own(data, k);
      event[k] = k === 'id' ? (idOf(v) ?? null) : typeof v === 'string' ? v : null;
    }
  } else if (type === 'refusal_delta' && typeof event.text !== 'string') {
    throw new TypeError('refusal_delta without text');
  }
  return event as WireEvent;
}

// A field as a string for a message or code, whatever the value (a throwing toString too).
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return v == null ? '' : String(v);
  } catch {
    return '';
  }
}

/** A string field as it is, anything else null (names, titles). */
export const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A string field as it is, a number as its text, anything else `undefined` (ids, codes). */
export const idOf = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;

/** An index a frame gives: a non-negative safe integer, else `undefined`. */
export const indexOf = (v: unknown): number | undefined => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined);

export function wireFields(data: unknown): WireFields {
  const out: WireFields = {};
  for (const k of WIRE_FIELDS) {
    const v = own(data, k);
    if (v !== undefined && v !== null) out[k] = v;
  }
  return out;
}

export const invalid = (message: string, frame?: { id?: string } | null): ErrorEvent => ({
  type: 'error',
  code: 'wire_invalid',
  message: frame?.id ? `${message} (frame id ${frame.id})` : message,
});

/**
 * A `done`'s `stop_details`, `finish_message` and `violations` (a list), those it has: as a
 * writer copies them into a frame, and a reader back out.
 */
export const doneDetails = (d: unknown): { stop_details?: unknown; finish_message?: unknown; violations?: unknown[] } => {
  const stopDetails = own(d, 'stop_details');
  const finishMessage = own(d, 'finish_message');
  const violations = own(d, 'violations');
  return {
    ...(stopDetails !== undefined ? { stop_details: stopDetails } : {}),
    ...(finishMessage !== undefined ? { finish_message: finishMessage } : {}),
    ...(Array.isArray(violations) ? { violations } : {}),
  };
};

/** A `done`'s metadata as a writer puts it in a frame. */
export const doneMetadata = (e: DoneEvent): DoneMetadata => ({
  ok: e.ok,
  parse_ok: e.parse_ok,
  finish_reason: e.finish_reason ?? null,
  ...(e.finish !== undefined ? { finish: e.finish } : {}),
  ...doneDetails(e),
});

/**
 * A `done` read back from the members `m` of a frame: `ok` (a boolean, else the profile's
 * default `ok`), `parse_ok` (a boolean, else that `ok`), `finish_reason` (else `reason`),
 * `finish`, the details, and `p`'s `payload`.
 */
export function doneOf(m: unknown, p: unknown, ok: boolean, reason: unknown = null): DoneEvent {
  const mOk = own(m, 'ok');
  const mParse = own(m, 'parse_ok');
  const finishReason = own(m, 'finish_reason');
  const finish = own(m, 'finish');
  const payload = ownObject(p, 'payload');
  const isOk = typeof mOk === 'boolean' ? mOk : ok;
  return {
    type: 'done',
    ok: isOk,
    parse_ok: typeof mParse === 'boolean' ? mParse : isOk,
    finish_reason: finishReason !== undefined ? finishReason : reason,
    ...(finish !== undefined ? { finish } : {}),
    ...doneDetails(m),
    ...(payload ? { payload } : {}),
  };
}

/** `provider_code` as a frame carries it (absent from frames written before it existed). */
export const providerCode = (d: unknown): { provider_code?: string | null } => {
  const v = own(d, 'provider_code');
  return v === undefined ? {} : { provider_code: typeof v === 'string' ? v : null };
};

/** What a field of an event to write must be: a string, an index (`indexOf`), an object. */
type FieldKind = 'string' | 'index' | 'object';
const FIELD_KIND: { [K in FieldKind]: (v: unknown) => boolean } = {
  string: (v) => typeof v === 'string',
  index: (v) => indexOf(v) !== undefined,
  object: isObject,
};
const TEXT: readonly [string, FieldKind][] = [['text', 'string']];
/** The fields each routed event type must have for `toSse` to write it (other types: none). */
const REQUIRED: ReadonlyMap<string, readonly [string, FieldKind][]> = new Map([
  ['answer_delta', TEXT],
  ['user_delta', TEXT],
  ['artifact_delta', TEXT],
  ['refusal_delta', TEXT],
  ['thinking_delta', TEXT],
  [
    'tool_call_start',
    [
      ['index', 'index'],
      ['id', 'string'],
    ],
  ],
  [
    'tool_call_delta',
    [
      ['index', 'index'],
      ['arguments', 'string'],
    ],
  ],
  [
    'tool_call',
    [
      ['index', 'index'],
      ['id', 'string'],
    ],
  ],
  ['action', [['action', 'object']]],
  [
    'error',
    [
      ['code', 'string'],
      ['message', 'string'],
    ],
  ],
  ['artifact_chunk', [['stream_id', 'string']]],
]);

/**
 * `e` as an event `toSse` can write: an object with a string `type` and, for the routed types,
 * the fields their frames are made of. Anything else is `invalid_input` naming what is wrong.
 */
export function writable(e: unknown): WireEvent {
  const type = own(e, 'type');
  if (!isObject(e) || typeof type !== 'string') {
    throw new StreamrouteError('invalid_input', 'toSse takes events: objects with a string `type`');
  }
  for (const [key, kind] of REQUIRED.get(type) ?? []) {
    if (!FIELD_KIND[kind](own(e, key))) {
      throw new StreamrouteError(
        'invalid_input',
        `toSse: a ${type} event needs \`${key}\` as ${kind === 'index' ? 'an index' : `a${kind === 'object' ? 'n' : ''} ${kind}`}`,
      );
    }
  }
  return e as WireEvent;
}

// JSON text of event data. A value JSON cannot hold (a BigInt, a cycle) is the caller's
// `invalid_input`, like everywhere else, not a bare TypeError.
export const json = (v: unknown): string => {
  try {
    return JSON.stringify(v);
  } catch (e) {
    const why = e instanceof Error ? e.message : str(e);
    throw new StreamrouteError('invalid_input', `an event holds a value JSON cannot encode: ${why}`);
  }
};
