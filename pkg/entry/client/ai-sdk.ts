// The Vercel AI SDK UI message stream: `writer` is what `toSse("ai-sdk")` writes, `reader`
// what `fromSse("ai-sdk")` reads back.
import { EXTRA_TYPES, artifactChunk, doneMetadata, doneOf, extraEvent, idOf, indexOf } from './common.js';
import { own, ownObject, str, stringOrNull, typed, without } from './common.js';
import type { DoneMetadata, JsonObject, ProfileReader, ProfileWriter, WireEvent, WriterOptions } from './common.js';

const AI_SDK_FINISH: ReadonlyMap<unknown, string> = new Map(
  Object.entries({
    stop: 'stop',
    end_turn: 'stop',
    STOP: 'stop',
    completed: 'stop',
    stop_sequence: 'stop',
    length: 'length',
    max_tokens: 'length',
    MAX_TOKENS: 'length',
    max_output_tokens: 'length',
    tool_calls: 'tool-calls',
    tool_use: 'tool-calls',
    function_call: 'tool-calls',
    content_filter: 'content-filter',
    SAFETY: 'content-filter',
    RECITATION: 'content-filter',
    refusal: 'content-filter',
    failed: 'error',
  }),
);

/** The part types of the UI message stream (besides `data-*`, `tool-*`, `source-*`, `reasoning-*`), `ai` 7's too. */
const PART_TYPES: ReadonlySet<string> = new Set([
  'start',
  'finish',
  'error',
  'abort',
  'message-metadata',
  'start-step',
  'finish-step',
  'reset-step',
  'text-start',
  'text-delta',
  'text-end',
  'file',
  'custom',
  'steering-message',
]);
const PART_PREFIXES = ['data-', 'tool-', 'source-', 'reasoning-', 'text-'];

/** The `[DONE]` marker that ends the stream. */
export const DONE_MARKER = '[DONE]';

/**
 * Whether a frame is of the UI message stream: unnamed (`message`), with data `[DONE]` or a
 * JSON object whose `type` is a part type. `data` is the frame's parsed JSON (or undefined).
 */
export function knows(name: string, raw: string, data: unknown): boolean {
  if (name !== 'message') return false;
  if (raw === DONE_MARKER) return true;
  const type = own(data, 'type');
  return typeof type === 'string' && (PART_TYPES.has(type) || PART_PREFIXES.some((p) => type.startsWith(p) && type.length > p.length));
}

type Variant = { type: string } | { source: string };
type Kind = 'text' | 'reasoning';
/** What a text or reasoning part's providerMetadata holds: its kind of text, the answer's phase, a continuation. */
type PartMeta = {
  streamroute?: Variant | { continuation: JsonObject } | (Variant & { continuation: JsonObject });
  openai?: { phase: string };
};
/** The open part: its kind, id, what tells it from a part of another variant, and its start's providerMetadata. */
type OpenPart = [kind: Kind, id: string, key: string, meta: PartMeta | undefined];

/** What toSse keeps in a part's `providerMetadata` (the SDK's place for what its parts have no field for). */
type Own<T> = { providerMetadata?: { streamroute: T } };

/** The parts of the UI message stream `toSse("ai-sdk")` writes. */
export type UiPart =
  | { type: 'start'; messageId?: unknown }
  | { type: `${Kind}-start`; id: string; providerMetadata?: PartMeta }
  | { type: `${Kind}-delta`; id: string; delta: string }
  | { type: `${Kind}-end`; id: string; providerMetadata?: PartMeta }
  | { type: 'data-artifact'; id: string; data: { stream_id: string; seq: unknown; chunk: unknown; done: boolean; artifact_type: unknown } }
  | { type: 'data-tool-call-index'; data: { toolCallId: string; index: number }; transient: true }
  | ({ type: 'tool-input-start'; toolCallId: string; toolName: unknown; providerExecuted?: true } & Own<{ caller: unknown }>)
  | { type: 'tool-input-delta'; toolCallId: unknown; inputTextDelta: string }
  | ({ type: 'tool-input-available'; toolCallId: string; toolName: unknown; input: unknown; providerExecuted?: true } & Own<{
      repaired?: true;
      caller?: unknown;
    }>)
  | { type: 'tool-output-available'; toolCallId: unknown; output: unknown; providerExecuted: true }
  | ({ type: 'source-url'; sourceId: unknown; url: string; title?: unknown } & Own<SourceMeta>)
  | ({ type: 'source-document'; sourceId: unknown; mediaType: 'text/plain'; title: unknown } & Own<SourceMeta>)
  | { type: 'data-action'; data: JsonObject }
  | { type: 'data-usage'; data: JsonObject; transient: true }
  | { type: 'data-error'; data: { code: string; provider_code: string | null; message?: '' }; transient: true }
  | { type: 'error'; errorText: string }
  | { type: 'data-payload'; data: JsonObject }
  | {
      type: 'finish';
      finishReason: unknown;
      messageMetadata: DoneMetadata & { payload?: JsonObject };
    }
  | { type: `data-${string}`; data: JsonObject };

/** A source's fields the SDK's source parts have no field for. */
type SourceMeta = { id: unknown; title: unknown; snippet: unknown };

/** An AI SDK frame: unnamed, a part. */
export type AiSdkFrame = [name: null, data: UiPart];

const USER_TEXT = { type: 'user_delta' };
const ARTIFACT_TEXT = { type: 'artifact_delta' };
const REFUSAL = { type: 'refusal_delta' };
const THOUGHT = { source: 'thought' };

/**
 * The kind of part a continuation belongs to when it closes one (the text or reasoning routed
 * just before it), else `null` (it goes as a `data-continuation` part): a thinking signature and
 * a reasoning item belong to reasoning; a thought signature to its text or thought part (not to
 * a tool call, which it names by `index`); a message item to its text.
 */
function partOf(e: WireEvent): Kind | null {
  const c = e as { kind?: unknown; part?: unknown; index?: unknown; item_type?: unknown };
  switch (c.kind) {
    case 'thinking_signature':
    case 'reasoning':
      return 'reasoning';
    case 'thought_signature':
      return c.index !== undefined ? null : c.part === 'thought' ? 'reasoning' : c.part === 'text' ? 'text' : null;
    case 'item':
      return c.item_type === 'message' ? 'text' : null;
    default:
      return null;
  }
}

/** The Vercel AI SDK UI message stream: unnamed `data:` frames of typed parts, `[DONE]`. */
export function writer(o: WriterOptions): ProfileWriter<AiSdkFrame> {
  let started = false;
  let open: OpenPart | null = null; // the open text or reasoning part
  let parts = 0;
  const ids = new Map<unknown, unknown>(); // tool index -> toolCallId
  const errors: AiSdkFrame[] = []; // error frames, held until done: what was recovered goes first
  const close = (out: AiSdkFrame[]) => {
    if (open) out.push([null, { type: `${open[0]}-end` as const, id: open[1] }]);
    open = null;
  };
  // Every run of one kind of text is one text or reasoning part (a data part per delta would
  // make the message's parts follow the chunking). `variant` (user, artifact or refusal text,
  // the action's thought) rides on the part's providerMetadata, where the SDK keeps it; the
  // answer's phase as the SDK's OpenAI provider marks it (`openai.phase`).
  const text = (out: AiSdkFrame[], kind: Kind, delta: string, variant?: Variant, phase?: string) => {
    const key = variant ? Object.values(variant)[0]! : phase !== undefined ? `phase ${phase}` : '';
    if (open?.[0] !== kind || open[2] !== key) {
      close(out);
      const meta: PartMeta | undefined = variant ? { streamroute: variant } : phase !== undefined ? { openai: { phase } } : undefined;
      const part: OpenPart = [kind, `${kind}-${parts++}`, key, meta];
      open = part;
      out.push([null, { type: `${kind}-start` as const, id: part[1], ...(meta ? { providerMetadata: meta } : {}) }]);
    }
    out.push([null, { type: `${kind}-delta` as const, id: open[1], delta }]);
  };
  // A continuation of the open part ends it: on its end's providerMetadata (which the SDK keeps
  // on the part in place of the start's, so the start's goes along).
  const continued = (out: AiSdkFrame[], e: WireEvent): boolean => {
    const kind = partOf(e);
    if (!open || kind === null || open[0] !== kind) return false;
    const meta = open[3];
    out.push([
      null,
      {
        type: `${kind}-end` as const,
        id: open[1],
        providerMetadata: { ...meta, streamroute: { ...meta?.streamroute, continuation: without(e, ['type']) } },
      },
    ]);
    open = null;
    return true;
  };
  const caller = (e: { caller?: unknown }) => (e.caller !== undefined ? { caller: e.caller } : {});
  return {
    heartbeat: () => ': ping\n\n',
    frames(e: WireEvent): AiSdkFrame[] {
      const out: AiSdkFrame[] = started ? [] : [[null, o.messageId ? { type: 'start', messageId: o.messageId } : { type: 'start' }]];
      started = true;
      switch (e.type) {
        case 'answer_delta':
          text(out, 'text', e.text, undefined, e.phase);
          break;
        case 'user_delta':
          text(out, 'text', e.text, USER_TEXT);
          break;
        case 'thinking_delta':
          text(out, 'reasoning', e.text, e.source === 'thought' ? THOUGHT : undefined);
          break;
        case 'artifact_delta':
          text(out, 'text', e.text, ARTIFACT_TEXT);
          break;
        case 'refusal_delta':
          text(out, 'text', e.text, REFUSAL);
          break;
        case 'artifact_chunk':
          close(out);
          out.push([
            null,
            {
              type: 'data-artifact',
              id: `${str(e.stream_id)}-${str(e.seq)}`,
              data: {
                stream_id: e.stream_id,
                seq: e.seq,
                chunk: e.chunk,
                done: e.done,
                artifact_type: e.artifact_type,
              },
            },
          ]);
          break;
        case 'tool_call_start':
          close(out);
          ids.set(e.index, e.id);
          // The provider's index, which the SDK's tool parts have no field for.
          out.push([null, { type: 'data-tool-call-index', data: { toolCallId: e.id, index: e.index }, transient: true }]);
          out.push([
            null,
            {
              type: 'tool-input-start',
              toolCallId: e.id,
              toolName: e.name,
              ...(e.provider_executed === true ? { providerExecuted: true } : {}),
              ...(e.caller !== undefined ? { providerMetadata: { streamroute: { caller: e.caller } } } : {}),
            },
          ]);
          break;
        case 'tool_call_delta':
          close(out);
          out.push([null, { type: 'tool-input-delta', toolCallId: ids.get(e.index) ?? String(e.index), inputTextDelta: e.arguments }]);
          break;
        case 'tool_call':
          close(out);
          out.push([
            null,
            {
              type: 'tool-input-available',
              toolCallId: e.id,
              toolName: e.name,
              input: e.arguments,
              ...(e.provider_executed === true ? { providerExecuted: true } : {}),
              ...(e.repaired || e.caller !== undefined
                ? { providerMetadata: { streamroute: { ...(e.repaired ? { repaired: true as const } : {}), ...caller(e) } } }
                : {}),
            },
          ]);
          break;
        case 'tool_result':
          close(out);
          out.push([null, { type: 'tool-output-available', toolCallId: e.id, output: e.result, providerExecuted: true }]);
          break;
        case 'source': {
          close(out);
          const sourceId = e.id ?? e.url ?? `source-${parts++}`;
          // What the SDK's parts have no field for rides in providerMetadata.
          const providerMetadata = { streamroute: { id: e.id ?? null, title: e.title ?? null, snippet: e.snippet ?? null } };
          if (typeof e.url === 'string') {
            out.push([null, { type: 'source-url', sourceId, url: e.url, ...(e.title ? { title: e.title } : {}), providerMetadata }]);
          } else {
            out.push([
              null,
              { type: 'source-document', sourceId, mediaType: 'text/plain', title: e.title ?? e.snippet ?? sourceId, providerMetadata },
            ]);
          }
          break;
        }
        case 'action':
          close(out);
          out.push([null, { type: 'data-action', data: e.action }]);
          break;
        case 'usage':
          out.push([null, { type: 'data-usage', data: without(e, ['type']), transient: true }]);
          break;
        case 'error':
          // The SDK's chat stops at an error frame: it goes out at done, after what was
          // recovered (an action, a payload). The text is the provider's own message.
          close(out);
          // The code rides in a transient data part just before (the error part has no field).
          errors.push([
            null,
            {
              type: 'data-error',
              data: { code: e.code, provider_code: e.provider_code ?? null, ...(e.message ? {} : { message: '' }) },
              transient: true,
            },
          ]);
          errors.push([null, { type: 'error', errorText: e.message || e.code }]);
          break;
        case 'done': {
          close(out);
          if (e.payload && errors.length) out.push([null, { type: 'data-payload', data: e.payload }]);
          out.push(...errors.splice(0));
          const finishReason = e.finish ?? (e.ok ? (AI_SDK_FINISH.get(e.finish_reason) ?? 'other') : 'error');
          const messageMetadata = { ...doneMetadata(e), ...(e.payload ? { payload: e.payload } : {}) };
          out.push([null, { type: 'finish', finishReason, messageMetadata }]);
          break;
        }
        default: {
          // An event type of no case above (toSse takes what it is given).
          const type: string = (e as { type: string }).type;
          if (!EXTRA_TYPES.has(type) || (type === 'continuation' && continued(out, e))) break;
          close(out);
          out.push([null, { type: `data-${type.replaceAll('_', '-')}`, data: without(e, ['type']) }]);
          break;
        }
      }
      return out;
    },
    // Errors still held (no `done` came) go out before the end marker.
    end: (frame) => [...errors.splice(0).map(([name, data]) => frame(name, data)), `data: ${DONE_MARKER}\n\n`],
  };
}

/** What toSse keeps on a part's `providerMetadata.streamroute`. */
const ownMeta = (part: JsonObject): JsonObject => ownObject(ownObject(part, 'providerMetadata'), 'streamroute') ?? {};

// The kinds of text a `text` part can carry besides the answer (providerMetadata.streamroute.type).
const TEXT_KINDS: ReadonlySet<unknown> = new Set(['user_delta', 'artifact_delta', 'refusal_delta']);

type TextKind =
  | { type: 'answer_delta' | 'user_delta' | 'artifact_delta' | 'refusal_delta'; phase?: string }
  | { type: 'thinking_delta'; source: 'reasoning' | 'thought' };

/**
 * The continuation a part's end carries (toSse's, on providerMetadata.streamroute.continuation),
 * as events.
 */
function continuationOf(part: JsonObject): WireEvent[] {
  const c = ownObject(ownMeta(part), 'continuation');
  return c && typeof own(c, 'kind') === 'string' ? [typed('continuation', c)] : [];
}

/**
 * What `ai` 7 writes that routes to no text or tool event, as a continuation (something the
 * next request sends back): a `custom` part (provider content, its own `kind` such as
 * `openai.compaction`) and a tool approval request or response (`tool_approval_request`,
 * `tool_approval_response`), each with the part's own fields but `type`.
 */
function foreignContinuation(type: string, p: JsonObject): WireEvent[] {
  if (type === 'custom') {
    const kind = own(p, 'kind');
    return typeof kind === 'string' ? [typed('continuation', without(p, ['type']))] : [];
  }
  if (typeof own(p, 'approvalId') !== 'string') throw new TypeError(`${type} without approvalId`);
  return [typed('continuation', { kind: type.replaceAll('-', '_') }, without(p, ['type', 'kind']))];
}

/** The Vercel AI SDK UI message stream, as `toSse("ai-sdk")` writes it. */
export function reader(): ProfileReader {
  const parts = new Map<unknown, TextKind>(); // text/reasoning part id -> the event it starts
  const tools = new Map<string, number>(); // toolCallId -> index
  const announced = new Map<string, number>(); // toolCallId -> index from a data-tool-call-index part
  let errorCode: { code: string; provider_code: string | null; empty: boolean } | null = null; // from the data-error part before an error
  const toolNames = new Map<string, unknown>(); // toolCallId -> tool name
  let order = 0;
  const toolIndex = (id: string): number => {
    let index = tools.get(id);
    if (index === undefined) {
      index = announced.get(id) ?? order;
      tools.set(id, index);
    }
    order = Math.max(order, index + 1);
    return index;
  };
  // The `index` and `id` of the call a part names.
  const call = (p: JsonObject, what: string): { index: number; id: string } => {
    const id = own(p, 'toolCallId');
    if (typeof id !== 'string') throw new TypeError(`${what} without toolCallId`);
    return { index: toolIndex(id), id };
  };
  const executed = (p: JsonObject) => ({ provider_executed: own(p, 'providerExecuted') === true });
  const callerOf = (p: JsonObject) => {
    const caller = own(ownMeta(p), 'caller');
    return caller !== undefined ? { caller } : {};
  };
  return {
    named: false,
    read(_name: string, p: JsonObject): WireEvent[] {
      const type = own(p, 'type');
      switch (type) {
        case 'text-start': {
          const kind = own(ownMeta(p), 'type');
          // The answer's phase, as toSse and the SDK's OpenAI provider mark it.
          const phase = own(ownObject(ownObject(p, 'providerMetadata'), 'openai'), 'phase');
          parts.set(
            own(p, 'id'),
            TEXT_KINDS.has(kind)
              ? { type: kind as 'user_delta' }
              : { type: 'answer_delta', ...(typeof phase === 'string' ? { phase } : {}) },
          );
          return [];
        }
        case 'reasoning-start':
          parts.set(own(p, 'id'), { type: 'thinking_delta', source: own(ownMeta(p), 'source') === 'thought' ? 'thought' : 'reasoning' });
          return [];
        case 'text-delta':
        case 'reasoning-delta': {
          const delta = own(p, 'delta');
          if (typeof delta !== 'string') throw new TypeError(`${type} without delta`);
          const kind =
            parts.get(own(p, 'id')) ?? (type === 'text-delta' ? { type: 'answer_delta' } : { type: 'thinking_delta', source: 'reasoning' });
          return delta ? [{ ...kind, text: delta }] : [];
        }
        case 'text-end':
        case 'reasoning-end':
          parts.delete(own(p, 'id'));
          return continuationOf(p);
        case 'custom':
        case 'tool-approval-request':
        case 'tool-approval-response':
          return foreignContinuation(type, p);
        case 'reset-step':
          // `ai` 7 drops the parts of the step from its message; the events already given stay
          // given (a reader's events are never retracted). Parts still open end here.
          parts.clear();
          return [];
        case 'data-tool-call-index': {
          const data = ownObject(p, 'data');
          const index = indexOf(own(data, 'index'));
          const id = idOf(own(data, 'toolCallId'));
          if (index !== undefined && id !== undefined) announced.set(id, index);
          return [];
        }
        case 'tool-input-start': {
          const c = call(p, type);
          const name = stringOrNull(own(p, 'toolName'));
          toolNames.set(c.id, name);
          return [{ type: 'tool_call_start', ...c, name, ...executed(p), ...callerOf(p) }];
        }
        case 'tool-input-delta': {
          const id = own(p, 'toolCallId');
          const delta = own(p, 'inputTextDelta');
          if (typeof id !== 'string' || typeof delta !== 'string') throw new TypeError('tool-input-delta without toolCallId');
          return [{ type: 'tool_call_delta', index: toolIndex(id), arguments: delta }];
        }
        case 'tool-input-available':
          return [
            {
              type: 'tool_call',
              ...call(p, type),
              name: stringOrNull(own(p, 'toolName')),
              arguments: own(p, 'input') ?? null,
              repaired: own(ownMeta(p), 'repaired') === true,
              ...executed(p),
              ...callerOf(p),
            },
          ];
        case 'tool-output-available': {
          const c = call(p, type);
          const pe = own(p, 'providerExecuted') === true ? { provider_executed: true } : {};
          return [{ type: 'tool_result', ...c, name: toolNames.get(c.id) ?? null, result: own(p, 'output'), ...pe }];
        }
        case 'tool-output-error':
          return [{ type: 'tool_result', ...call(p, type), error: own(p, 'errorText') ?? null }];
        case 'source-url':
        case 'source-document': {
          // toSse names a source without an id by its URL (or a counter); its snippet rides in
          // providerMetadata.
          const url = own(p, 'url');
          const meta = ownMeta(p);
          const id = Object.hasOwn(meta, 'id') ? meta.id : own(p, 'sourceId');
          const title = Object.hasOwn(meta, 'title') ? meta.title : own(p, 'title');
          const snippet = own(meta, 'snippet');
          return [
            {
              type: 'source',
              id: idOf(id) ?? null,
              url: typeof url === 'string' ? url : null,
              title: typeof title === 'string' ? title : null,
              snippet: typeof snippet === 'string' ? snippet : null,
            },
          ];
        }
        case 'data-artifact': {
          const d = ownObject(p, 'data');
          const chunk = artifactChunk(d);
          if (chunk) return [chunk];
          const text = own(d, 'text');
          if (typeof text !== 'string') throw new TypeError('data-artifact without text');
          return [{ type: 'artifact_delta', text }];
        }
        case 'data-action': {
          const action = ownObject(p, 'data');
          if (!action) throw new TypeError('data-action without data');
          return [{ type: 'action', action }];
        }
        case 'data-usage': {
          const usage = ownObject(p, 'data');
          if (!usage) throw new TypeError('data-usage without data');
          return [typed('usage', usage)];
        }
        case 'data-error': {
          const d = ownObject(p, 'data');
          const code = own(d, 'code');
          if (typeof code === 'string') {
            const pc = own(d, 'provider_code');
            // An empty message goes as the code in `errorText` (the SDK shows that text).
            errorCode = { code, provider_code: typeof pc === 'string' ? pc : null, empty: own(d, 'message') === '' };
          }
          return [];
        }
        case 'error': {
          const text = str(own(p, 'errorText'));
          const known = errorCode;
          errorCode = null;
          if (known) return [{ type: 'error', code: known.code, message: known.empty ? '' : text, provider_code: known.provider_code }];
          const m = /^([^\s:]+): ([\s\S]*)$/.exec(text);
          return [{ type: 'error', code: m?.[1] ?? 'server_error', message: m?.[2] ?? text }];
        }
        case 'finish': {
          const m = ownObject(p, 'messageMetadata');
          const finishReason = own(p, 'finishReason');
          return [doneOf(m, m, finishReason !== 'error', finishReason ?? null)];
        }
        default: {
          const extra = typeof type === 'string' && type.startsWith('data-') ? type.slice(5).replaceAll('-', '_') : null;
          const data = ownObject(p, 'data');
          return extra && EXTRA_TYPES.has(extra) && data ? [extraEvent(extra as 'source', data)] : [];
        }
      }
    },
  };
}
