// AG-UI, the Agent–User Interaction protocol (`@ag-ui/core` events, unnamed `data:` frames):
// `writer` is what `toSse("ag-ui")` writes, `reader` what `fromSse("ag-ui")` reads back.
//
// One run per `toSse`: RUN_STARTED first, RUN_FINISHED (or RUN_ERROR when `done.ok` is false)
// last, every text message, reasoning message and tool call closed before it, as AG-UI's own
// client checks. What AG-UI has no event for travels as `CUSTOM {name: <routed type>, value:
// <its fields>}`. What an AG-UI event has no field for rides in its `metadata.streamroute`
// (the protocol's open member), so the round trip is exact; a wire another server wrote reads
// without it.
import {
  artifactChunk,
  doneDetails,
  doneMetadata,
  idOf,
  indexOf,
  json,
  own,
  ownObject,
  str,
  stringOrNull,
  typed,
  without,
} from './common.js';
import type { JsonObject, ProfileReader, ProfileWriter, WireEvent, WriterOptions } from './common.js';
import { routedEvent } from './tagged.js';

/** The event types of AG-UI (and the `THINKING_*` ones of its earlier versions) a frame's `type` may be. */
const TYPES: ReadonlySet<string> = new Set([
  'RUN_STARTED',
  'RUN_FINISHED',
  'RUN_ERROR',
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'TEXT_MESSAGE_CHUNK',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_CHUNK',
  'TOOL_CALL_RESULT',
  'STEP_STARTED',
  'STEP_FINISHED',
  'STATE_SNAPSHOT',
  'STATE_DELTA',
  'MESSAGES_SNAPSHOT',
  'CUSTOM',
  'RAW',
]);
const PREFIXES = ['REASONING_', 'THINKING_', 'ACTIVITY_', 'SUBAGENT_'];

/** Whether a frame is AG-UI's: unnamed, a JSON object whose `type` is an AG-UI event type. */
export function knows(name: string, _raw: string, data: unknown): boolean {
  const type = own(data, 'type');
  return name === 'message' && typeof type === 'string' && (TYPES.has(type) || PREFIXES.some((p) => type.startsWith(p)));
}

/** The options of `toSse("ag-ui")`: the run's ids (generated when absent). */
export interface AgUiOptions extends WriterOptions {
  threadId?: unknown;
  runId?: unknown;
  parentRunId?: unknown;
}

/** An AG-UI event as `toSse("ag-ui")` writes it (`@ag-ui/core`'s shapes; `metadata.streamroute` is ours). */
export type AgUiEvent = { type: string; metadata?: { streamroute: JsonObject }; [field: string]: unknown };

/** An AG-UI frame: unnamed, one event. */
export type AgUiFrame = [name: null, data: AgUiEvent];

/** A fresh id where the caller gave none. */
const freshId = (): string => globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

const idOption = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const meta = (fields: JsonObject) => ({ metadata: { streamroute: fields } });

/** AG-UI token counts of a routed `usage` (the counts that are non-negative integers). */
function tokenUsage(e: JsonObject): JsonObject[] {
  const out: JsonObject = {};
  const names = {
    input_tokens: 'inputTokens',
    output_tokens: 'outputTokens',
    total_tokens: 'totalTokens',
    reasoning_tokens: 'reasoningTokens',
    cached_input_tokens: 'cachedInputTokens',
  };
  for (const [k, v] of Object.entries(names)) if (indexOf(own(e, k)) !== undefined) out[v] = e[k];
  return Object.keys(out).length ? [out] : [];
}

/** Routed events that leave the open text or reasoning message open (the others close it). */
const KEEPS_OPEN: ReadonlySet<string> = new Set([
  'answer_delta',
  'user_delta',
  'thinking_delta',
  'usage',
  'artifact_delta',
  'refusal_delta',
]);

type Open = [kind: 'text' | 'reasoning', id: string, variant: string | undefined, phase: string | undefined];

/** AG-UI events over SSE: unnamed `data:` frames, one run per stream. */
export function writer(o: AgUiOptions): ProfileWriter<AgUiFrame> {
  const threadId = idOption(o.threadId) ?? freshId();
  const runId = idOption(o.runId) ?? freshId();
  const parentRunId = idOption(o.parentRunId);
  let started = false;
  let ended = false;
  let n = 0;
  let open: Open | null = null;
  let usage: JsonObject[] = [];
  let lastError: { code: string; message: string } | null = null;
  const calls = new Map<unknown, string>(); // tool index -> id, while its arguments stream
  const next = (what: string) => `${runId}-${what}-${n++}`;
  const close = (out: AgUiFrame[]) => {
    if (open?.[0] === 'text') out.push([null, { type: 'TEXT_MESSAGE_END', messageId: open[1] }]);
    else if (open) {
      out.push([null, { type: 'REASONING_MESSAGE_END', messageId: open[1] }]);
      out.push([null, { type: 'REASONING_END', messageId: open[1] }]);
    }
    open = null;
  };
  // `phase`: the answer message's phase (a message of another phase is another message).
  const text = (out: AgUiFrame[], kind: 'text' | 'reasoning', delta: string, variant?: string, phase?: string) => {
    if (open?.[0] !== kind || open[2] !== variant || open[3] !== phase) {
      close(out);
      const id = next(kind);
      open = [kind, id, variant, phase];
      const marked = variant ? meta(kind === 'text' ? { type: variant } : { source: variant }) : phase !== undefined ? meta({ phase }) : {};
      if (kind === 'text') out.push([null, { type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant', ...marked }]);
      else {
        out.push([null, { type: 'REASONING_START', messageId: id }]);
        out.push([null, { type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning', ...marked }]);
      }
    }
    if (delta)
      out.push([null, { type: kind === 'text' ? 'TEXT_MESSAGE_CONTENT' : 'REASONING_MESSAGE_CONTENT', messageId: open[1], delta }]);
  };
  const start = (
    out: AgUiFrame[],
    e: { id: string; name: unknown; index: number; provider_executed?: unknown; caller?: unknown },
    whole?: true,
  ) => {
    calls.set(e.index, e.id);
    out.push([
      null,
      {
        type: 'TOOL_CALL_START',
        toolCallId: e.id,
        toolCallName: str(e.name),
        ...meta({
          index: e.index,
          name: e.name,
          ...(e.provider_executed !== undefined ? { provider_executed: e.provider_executed } : {}),
          ...(e.caller !== undefined ? { caller: e.caller } : {}),
          ...(whole ? { whole } : {}),
        }),
      },
    ]);
  };
  // Tool calls still streaming end unfinished (AG-UI closes everything before the run's end).
  const endCalls = (out: AgUiFrame[]) => {
    for (const id of calls.values()) out.push([null, { type: 'TOOL_CALL_END', toolCallId: id, ...meta({ unfinished: true }) }]);
    calls.clear();
  };
  const custom = (out: AgUiFrame[], e: WireEvent) => {
    out.push([null, { type: 'CUSTOM', name: e.type, value: without(e, ['type']) }]);
  };
  return {
    heartbeat: () => ': ping\n\n',
    frames(e: WireEvent): AgUiFrame[] {
      const out: AgUiFrame[] = started ? [] : [[null, { type: 'RUN_STARTED', threadId, runId, ...(parentRunId ? { parentRunId } : {}) }]];
      started = true;
      if (!KEEPS_OPEN.has(e.type)) close(out);
      switch (e.type) {
        case 'answer_delta':
          text(out, 'text', e.text, undefined, e.phase);
          break;
        case 'user_delta':
          text(out, 'text', e.text, 'user_delta');
          break;
        case 'thinking_delta':
          text(out, 'reasoning', e.text, e.source === 'thought' ? 'thought' : undefined);
          break;
        case 'tool_call_start':
          start(out, e);
          break;
        case 'tool_call_delta':
          if (e.arguments)
            out.push([null, { type: 'TOOL_CALL_ARGS', toolCallId: calls.get(e.index) ?? String(e.index), delta: e.arguments }]);
          break;
        case 'tool_call':
          // A call that arrives whole is opened and given its arguments' text first (`whole`: the
          // reader gives only the tool_call).
          if (calls.get(e.index) !== e.id) {
            start(out, e, true);
            out.push([
              null,
              { type: 'TOOL_CALL_ARGS', toolCallId: e.id, delta: typeof e.arguments === 'string' ? e.arguments : json(e.arguments ?? {}) },
            ]);
          }
          calls.delete(e.index);
          out.push([
            null,
            {
              type: 'TOOL_CALL_END',
              toolCallId: e.id,
              ...meta({ arguments: e.arguments, repaired: e.repaired, ...(e.caller !== undefined ? { caller: e.caller } : {}) }),
            },
          ]);
          break;
        case 'tool_result': {
          const result = e.result;
          out.push([
            null,
            {
              type: 'TOOL_CALL_RESULT',
              messageId: next('result'),
              toolCallId: str(e.id),
              role: 'tool',
              content: typeof result === 'string' ? result : json(result ?? e.error ?? null),
              ...meta(without(e, ['type'])),
            },
          ]);
          break;
        }
        case 'usage':
          usage = tokenUsage(e);
          custom(out, e);
          break;
        case 'error':
          lastError = { code: e.code, message: e.message };
          custom(out, e);
          break;
        case 'done': {
          if (ended) break;
          ended = true;
          endCalls(out);
          const done = meta({ ...doneMetadata(e), ...(e.payload ? { payload: e.payload } : {}) });
          const counts = usage.length ? { usage } : {};
          if (e.ok)
            out.push([null, { type: 'RUN_FINISHED', threadId, runId, ...(e.payload ? { result: e.payload } : {}), ...counts, ...done }]);
          else {
            out.push([
              null,
              {
                type: 'RUN_ERROR',
                message: lastError?.message || lastError?.code || str(e.finish) || 'the stream failed',
                ...(lastError ? { code: lastError.code } : {}),
                ...counts,
                ...done,
              },
            ]);
          }
          break;
        }
        default:
          // artifact_chunk, action, source, refusal_delta, artifact_delta and anything else.
          custom(out, e);
          break;
      }
      return out;
    },
    end: (frame) => {
      // A stream that ends without `done` closes what is open; the run stays unfinished.
      const out: AgUiFrame[] = [];
      if (!ended) {
        close(out);
        endCalls(out);
      }
      return out.map(([name, data]) => frame(name, data));
    },
  };
}

/** Arguments' text kept per reader for calls whose end carries no parsed arguments (a wire another server wrote). */
const MAX_ARGUMENT_TEXT = 8 * 1024 * 1024;

/** A tool call of the wire: its index and name, and its arguments' text while kept (`null`: not kept). */
interface Call {
  index: number;
  name: unknown;
  /** `provider_executed` and `caller` as toSse's metadata has them (absent: not given). */
  executed: JsonObject;
  /** Sent whole by toSse: only its end gives an event. */
  whole: boolean;
  text: string | null;
}

/** The JSON value of `text`, or `null`. */
const parsed = (text: string | null): unknown => {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
};

/** AG-UI events, as `toSse("ag-ui")` writes them or another server does. */
export function reader(): ProfileReader {
  let run: JsonObject = {}; // thread_id, run_id, parent_run_id of the run the frames belong to
  const texts = new Map<unknown, WireEvent>(); // message id -> the event its content gives
  const calls = new Map<string, Call>(); // toolCallId -> the call
  let order = 0;
  let kept = 0; // arguments' text kept, in UTF-16 units
  let usage = false; // the run's usage came as CUSTOM (RUN_FINISHED's counts repeat it)
  const start = (id: string, name: unknown, m: JsonObject): WireEvent[] => {
    const index = indexOf(own(m, 'index')) ?? order;
    order = Math.max(order, index + 1);
    // toSse's calls (an index in metadata) end with their arguments: their text is not kept.
    const c: Call = {
      index,
      name: Object.hasOwn(m, 'name') ? m.name : stringOrNull(name),
      executed: {
        ...(Object.hasOwn(m, 'provider_executed') ? { provider_executed: m.provider_executed } : {}),
        ...(Object.hasOwn(m, 'caller') ? { caller: m.caller } : {}),
      },
      whole: own(m, 'whole') === true,
      text: Object.hasOwn(m, 'index') ? null : '',
    };
    calls.set(id, c);
    return c.whole ? [] : [{ type: 'tool_call_start', index, id, name: c.name, ...c.executed }];
  };
  const args = (id: string, delta: string): WireEvent[] => {
    const c = calls.get(id);
    if (!c || c.whole || !delta) return [];
    if (c.text !== null && kept + delta.length <= MAX_ARGUMENT_TEXT) {
      c.text += delta;
      kept += delta.length;
    } else c.text = null;
    return [{ type: 'tool_call_delta', index: c.index, arguments: delta }];
  };
  const read = (p: JsonObject): WireEvent[] => {
    const type = own(p, 'type');
    const m = ownObject(ownObject(p, 'metadata'), 'streamroute') ?? {};
    const mid = own(p, 'messageId');
    const delta = own(p, 'delta');
    const toolId = idOf(own(p, 'toolCallId'));
    switch (type) {
      case 'RUN_STARTED':
        run = { thread_id: str(own(p, 'threadId')), run_id: str(own(p, 'runId')) };
        if (typeof own(p, 'parentRunId') === 'string') run.parent_run_id = p.parentRunId;
        order = 0;
        usage = false;
        return [];
      case 'TEXT_MESSAGE_START':
      case 'REASONING_MESSAGE_START':
      case 'THINKING_TEXT_MESSAGE_START':
        texts.set(
          mid,
          type === 'TEXT_MESSAGE_START'
            ? textKind(m)
            : { type: 'thinking_delta', text: '', source: own(m, 'source') === 'thought' ? 'thought' : 'reasoning' },
        );
        return [];
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK':
      case 'REASONING_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CHUNK':
      case 'THINKING_TEXT_MESSAGE_CONTENT': {
        if (delta === undefined && type.endsWith('CHUNK')) return [];
        if (typeof delta !== 'string') throw new TypeError(`${type} without delta`);
        const kind =
          texts.get(mid) ?? (type.startsWith('TEXT') ? { type: 'answer_delta' } : { type: 'thinking_delta', source: 'reasoning' });
        return delta ? [{ ...kind, text: delta } as WireEvent] : [];
      }
      case 'TEXT_MESSAGE_END':
      case 'REASONING_MESSAGE_END':
      case 'THINKING_TEXT_MESSAGE_END':
        texts.delete(mid);
        return [];
      case 'TOOL_CALL_START':
      case 'TOOL_CALL_CHUNK': {
        if (toolId === undefined) throw new TypeError(`${type} without toolCallId`);
        const out = type === 'TOOL_CALL_CHUNK' && calls.has(toolId) ? [] : start(toolId, own(p, 'toolCallName'), m);
        return typeof delta === 'string' ? [...out, ...args(toolId, delta)] : out;
      }
      case 'TOOL_CALL_ARGS':
        if (toolId === undefined || typeof delta !== 'string') throw new TypeError('TOOL_CALL_ARGS without toolCallId or delta');
        return args(toolId, delta);
      case 'TOOL_CALL_END': {
        const c = toolId === undefined ? undefined : calls.get(toolId);
        if (!c) return [];
        calls.delete(toolId!);
        kept -= c.text?.length ?? 0;
        if (own(m, 'unfinished') === true) return [];
        return [
          {
            type: 'tool_call',
            index: c.index,
            id: toolId!,
            name: c.name,
            arguments: (Object.hasOwn(m, 'arguments') ? m.arguments : parsed(c.text)) ?? null,
            repaired: own(m, 'repaired') === true,
            ...c.executed,
            ...(Object.hasOwn(m, 'caller') ? { caller: m.caller } : {}),
          },
        ];
      }
      case 'TOOL_CALL_RESULT': {
        if (toolId === undefined) throw new TypeError('TOOL_CALL_RESULT without toolCallId');
        // toSse's: the routed event in metadata; another server's: the content as the result.
        if (own(m, 'id') === toolId) return [typed('tool_result', m)];
        return [{ type: 'tool_result', index: indexOf(own(m, 'index')) ?? order, id: toolId, name: null, result: own(p, 'content') }];
      }
      case 'CUSTOM': {
        const name = own(p, 'name');
        const value = ownObject(p, 'value');
        if (typeof name !== 'string' || !value) return [];
        if (name === 'usage') usage = true;
        const e = customEvent(name, value);
        return e ? [e] : [];
      }
      case 'RUN_FINISHED':
      case 'RUN_ERROR': {
        // toSse's: the done event in metadata (errors and usage came before as CUSTOM).
        if (typeof own(m, 'ok') === 'boolean') {
          const payload = ownObject(m, 'payload');
          return [
            {
              type: 'done',
              ok: m.ok as boolean,
              parse_ok: own(m, 'parse_ok') === true,
              finish_reason: own(m, 'finish_reason') ?? null,
              ...(Object.hasOwn(m, 'finish') ? { finish: m.finish } : {}),
              ...doneDetails(m),
              ...(payload ? { payload } : {}),
            },
          ];
        }
        const out: WireEvent[] = [];
        const counts = ownObject(own(p, 'usage'), '0');
        if (counts && !usage) {
          out.push(
            typed('usage', {
              input_tokens: own(counts, 'inputTokens') ?? null,
              output_tokens: own(counts, 'outputTokens') ?? null,
              total_tokens: own(counts, 'totalTokens') ?? null,
            }),
          );
        }
        if (type === 'RUN_FINISHED') {
          const result = ownObject(p, 'result');
          out.push({ type: 'done', ok: true, parse_ok: true, finish_reason: null, ...(result ? { payload: result } : {}) });
        } else {
          out.push({ type: 'error', code: idOf(own(p, 'code')) ?? 'server_error', message: str(own(p, 'message')) });
          out.push({ type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error' });
        }
        return out;
      }
      default:
        return [];
    }
  };
  return {
    named: false,
    read(_name: string, p: JsonObject): WireEvent[] {
      const events = read(p);
      // Every event carries its run's ids (StreamMux({ key: "run_id" }) splits the runs).
      for (const e of events) Object.assign(e, run);
      return events;
    },
  };
}

/** The text event a TEXT_MESSAGE_START's `metadata.streamroute` names: user text, or the answer (with its phase). */
function textKind(m: JsonObject): WireEvent {
  if (own(m, 'type') === 'user_delta') return { type: 'user_delta', text: '' };
  const phase = own(m, 'phase');
  return { type: 'answer_delta', text: '', ...(typeof phase === 'string' ? { phase } : {}) };
}

/** The routed event a `CUSTOM` frame carries (`null`: a name that is not a routed event's). Throws when it lacks a field. */
function customEvent(name: string, v: JsonObject): WireEvent | null {
  switch (name) {
    case 'error':
      return { ...typed('error', v), code: idOf(own(v, 'code')) ?? 'server_error', message: str(own(v, 'message')) } as WireEvent;
    case 'artifact_chunk': {
      const e = artifactChunk(v);
      if (!e) throw new TypeError('artifact_chunk without stream_id');
      return e;
    }
    case 'artifact_delta': {
      const text = own(v, 'text');
      if (typeof text !== 'string') throw new TypeError('artifact_delta without text');
      return { type: 'artifact_delta', text };
    }
    default:
      return routedEvent(name, v);
  }
}
