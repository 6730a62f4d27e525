// The tagged profile (nonce-tag-streaming.md): `writer` is what `toSse("tagged")` writes,
// `reader` what `fromSse("tagged")` reads back.
import { EXTRA_TYPES, artifactChunk, doneDetails, doneOf, extraEvent, idOf, indexOf } from './common.js';
import { json, namedReader, own, ownObject, providerCode, str, typed } from './common.js';
import type { ErrorEvent, FramesOf, JsonObject, ProfileReader, ProfileWriter, WireEvent, WireEventType } from './common.js';

/** Routed events the vocabulary has no word for: they travel under their own name. */
const ROUTED: ReadonlySet<string> = new Set([
  'thinking_delta',
  'tool_call_start',
  'tool_call_delta',
  'tool_call',
  'action',
  'usage',
  ...EXTRA_TYPES,
]);

/** The frame names of the tagged vocabulary and the routed names it writes. */
export const NAMES: ReadonlySet<string> = new Set(['artifact_delta', 'user_delta', 'done', 'error', ...ROUTED]);

/**
 * Whether a frame is of the tagged vocabulary: its name, and for the names the planner profile
 * writes too, not the planner shape (a `done` with `metadata` or `answer_action_seq`, an
 * `error` with an `error` and no `message`, a `tool_call_start` with a `tool_call_id`).
 */
export function knows(name: string, _raw: string, data: unknown): boolean {
  if (!NAMES.has(name)) return false;
  const has = (k: string) => own(data, k) !== undefined;
  switch (name) {
    case 'done':
      return !(has('metadata') || has('answer_action_seq'));
    case 'error':
      return !(has('error') && !has('message'));
    case 'tool_call_start':
      return !has('tool_call_id');
    default:
      return true;
  }
}

/** The data of each frame `toSse("tagged")` writes, by frame name (routed events: themselves without `type`). */
export interface TaggedFrames {
  artifact_delta: { text: string; stream_id?: string; seq?: unknown; chunk?: unknown; done?: boolean; artifact_type?: unknown };
  user_delta: { text: string; source?: 'answer'; phase?: string };
  error: { code: string; message: string; provider_code?: string | null };
  done: {
    ok: boolean;
    parse_ok: boolean;
    error?: { code: string; message: string };
    finish_reason?: unknown;
    finish?: unknown;
    stop_details?: unknown;
    finish_message?: unknown;
    payload?: JsonObject;
  };
}

/** A tagged frame: one of the vocabulary, or a routed event under its own name. */
export type TaggedFrame = FramesOf<TaggedFrames> | [name: string, data: { [field: string]: unknown }];

/**
 * The tagged vocabulary (nonce-tag-streaming.md): artifact_delta, user_delta, done, ping. What
 * it has no word for (errors, reasoning, tool calls, the action, usage) goes out under the
 * routed event's own name, which a client listening for the vocabulary's names never sees.
 */
export function writer(): ProfileWriter<TaggedFrame> {
  let error: { code: string; message: string } | null = null;
  return {
    heartbeat: () => 'event: ping\ndata: {}\n\n',
    frames(e: WireEvent): TaggedFrame[] {
      switch (e.type) {
        case 'artifact_delta':
          return [['artifact_delta', { text: e.text }]];
        case 'artifact_chunk':
          return [
            [
              'artifact_delta',
              {
                text: typeof e.chunk === 'string' ? e.chunk : json(e.chunk),
                stream_id: e.stream_id,
                seq: e.seq,
                chunk: e.chunk,
                done: e.done,
                artifact_type: e.artifact_type,
              },
            ],
          ];
        case 'user_delta':
          return [['user_delta', { text: e.text }]];
        case 'answer_delta':
          return [['user_delta', { text: e.text, source: 'answer', ...(e.phase !== undefined ? { phase: e.phase } : {}) }]];
        case 'error':
          error ??= { code: e.code, message: e.message };
          return [
            ['error', { code: e.code, message: e.message, ...(e.provider_code !== undefined ? { provider_code: e.provider_code } : {}) }],
          ];
        case 'done':
          return [
            [
              'done',
              {
                ok: e.ok,
                parse_ok: e.parse_ok,
                ...(error ? { error } : {}),
                ...(e.finish_reason != null ? { finish_reason: e.finish_reason } : {}),
                ...(e.finish !== undefined ? { finish: e.finish } : {}),
                ...doneDetails(e),
                ...(e.payload ? { payload: e.payload } : {}),
              },
            ],
          ];
        default: {
          if (!ROUTED.has(e.type)) return [];
          const { type, ...fields } = e;
          return [[type, fields]];
        }
      }
    },
    end: () => [],
  };
}

/**
 * Throws when a routed event under its own name lacks what its type needs (the fields folds
 * read: text, a tool call's index and id, its argument text, the action).
 */
function checkRouted(name: string, d: JsonObject): void {
  const need = (ok: boolean, what: string) => {
    if (!ok) throw new TypeError(`${name} without ${what}`);
  };
  switch (name) {
    case 'thinking_delta':
    case 'refusal_delta':
      need(typeof own(d, 'text') === 'string', 'text');
      break;
    case 'tool_call_start':
    case 'tool_call':
      need(indexOf(own(d, 'index')) !== undefined, 'index');
      need(typeof own(d, 'id') === 'string', 'id');
      need(['string', 'undefined'].includes(typeof own(d, 'name')) || own(d, 'name') === null, 'a string name');
      break;
    case 'tool_call_delta':
      need(indexOf(own(d, 'index')) !== undefined, 'index');
      need(typeof own(d, 'arguments') === 'string', 'arguments');
      break;
    case 'action':
      need(ownObject(d, 'action') !== undefined, 'action');
      break;
    default:
      break;
  }
}

/**
 * The routed event a frame under the event's own name gives (`null` for a name the vocabulary
 * does not route); throws when it lacks what its type needs. The AG-UI reader's `CUSTOM` too.
 */
export function routedEvent(name: string, d: JsonObject): WireEvent | null {
  if (!ROUTED.has(name)) return null;
  checkRouted(name, d);
  return EXTRA_TYPES.has(name) ? extraEvent(name as 'source', d) : typed(name as WireEventType, d);
}

/** The tagged vocabulary (nonce-tag-streaming.md), plus routed events under their own names. */
export function reader(): ProfileReader {
  let errors = 0;
  const errorOf = (d: JsonObject): ErrorEvent => ({
    type: 'error',
    code: idOf(own(d, 'code')) ?? 'server_error',
    message: str(own(d, 'message') ?? own(d, 'error')),
  });
  return namedReader((name, d, wire): WireEvent[] => {
    switch (name) {
      case 'artifact_delta': {
        const chunk = artifactChunk(d, wire);
        if (chunk) return [chunk];
        const text = own(d, 'text');
        if (typeof text !== 'string') throw new TypeError('artifact_delta without text');
        return [{ type: 'artifact_delta', text, ...wire }];
      }
      case 'user_delta': {
        const text = own(d, 'text');
        if (typeof text !== 'string') throw new TypeError('user_delta without text');
        if (own(d, 'source') !== 'answer') return [{ type: 'user_delta', text, ...wire }];
        const phase = own(d, 'phase');
        return [{ type: 'answer_delta', text, ...(typeof phase === 'string' ? { phase } : {}), ...wire }];
      }
      case 'error':
        errors++;
        return [{ ...errorOf(d), ...providerCode(d), ...wire }];
      case 'done': {
        const out: WireEvent[] = [];
        const error = ownObject(d, 'error');
        if (error && errors === 0) out.push({ ...errorOf(error), ...wire });
        out.push({ ...doneOf(d, d, true), ...wire });
        return out;
      }
      default: {
        const e = routedEvent(name, d);
        return e ? [e] : [];
      }
    }
  });
}
