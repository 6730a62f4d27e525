// The planner profile (reference-behaviour.md §7): named frames, JSON data. `writer` is what
// `toSse("planner")` writes, `reader` what `fromSse("planner")` reads back.
import { EXTRA_TYPES, WIRE_FIELDS, doneMetadata, doneOf, extraEvent, idOf, indexOf } from './common.js';
import { namedReader, own, ownObject, providerCode, str, stringOrNull, without } from './common.js';
import type { DoneMetadata, FramesOf, JsonObject, ProfileReader, ProfileWriter, WireEvent, WriterOptions } from './common.js';

/** The frame names of the planner vocabulary: a stream with none of them is not a planner stream. */
export const NAMES: ReadonlySet<string> = new Set([
  'llm_stream_chunk',
  'artifact_chunk',
  'tool_call_start',
  'tool_call_args',
  'tool_call_end',
  'step',
  'event',
  'error',
  'done',
]);

/**
 * Whether a frame is of the planner vocabulary: its name, and for the names the tagged profile
 * writes too, not the tagged shape (a `done` with a boolean `ok` and no `metadata`, an `error`
 * with a `message` and no `error`, a `tool_call_start` with an `id` and no `tool_call_id`).
 */
export function knows(name: string, _raw: string, data: unknown): boolean {
  if (!NAMES.has(name)) return false;
  const has = (k: string) => own(data, k) !== undefined;
  switch (name) {
    case 'done':
      return !(typeof own(data, 'ok') === 'boolean' && !has('metadata'));
    case 'error':
      return !(has('message') && !has('error'));
    case 'tool_call_start':
      return !(has('id') && !has('tool_call_id'));
    default:
      return true;
  }
}

/** What every planner frame may carry (from toSse's options). */
interface Base {
  trace_id?: unknown;
  session_id?: unknown;
}

/** The data of each planner frame `toSse("planner")` writes, by frame name. */
export interface PlannerFrames {
  llm_stream_chunk: Base & {
    text: string;
    done: boolean;
    phase: 'answer' | 'user' | 'thinking' | 'observation';
    channel: 'answer' | 'thinking';
    action_seq: unknown;
    answer_phase?: string;
  };
  artifact_chunk: Base & {
    stream_id: string;
    seq: unknown;
    chunk: unknown;
    done: boolean;
    artifact_type: unknown;
    meta: JsonObject;
    event: 'artifact_chunk';
  };
  tool_call_start: Base & {
    tool_call_id: string;
    tool_name: unknown;
    args_json: '';
    action_seq: unknown;
    index: number;
    provider_executed?: unknown;
    caller?: unknown;
  };
  tool_call_args: Base & { tool_call_id: unknown; delta: string; index: number };
  tool_call_end: Base & {
    tool_call_id: string;
    tool_name: unknown;
    args: unknown;
    repaired: boolean;
    index: number;
    provider_executed?: unknown;
    caller?: unknown;
  };
  step: Base & { event: 'step_complete'; action_seq: unknown; node: unknown; thought: unknown; action: JsonObject };
  event: Base & { event: string; [field: string]: unknown };
  error: Base & { error: string; code: string; provider_code: string | null };
  done: Base & {
    answer: string | null;
    metadata: DoneMetadata;
    pause: null;
    answer_action_seq: unknown;
    payload?: JsonObject;
  };
}

/** A planner frame: its name and its data. */
export type PlannerFrame = FramesOf<PlannerFrames>;

/** The planner vocabulary (reference-behaviour.md §7): named frames, JSON data. */
export function writer(o: WriterOptions): ProfileWriter<PlannerFrame> {
  const base: Base = {};
  if (o.traceId !== undefined) base.trace_id = o.traceId;
  if (o.sessionId !== undefined) base.session_id = o.sessionId;
  const seq = o.actionSeq ?? null;
  let answer: string | null = null;
  let artifactSeq = 0;
  // Phases as the reference runtime writes them: `thinking` for native reasoning,
  // `observation` for the action's streamed thought; `user` marks tagged user text.
  const chunk = (text: string, phase: PlannerFrames['llm_stream_chunk']['phase'], done = false): PlannerFrames['llm_stream_chunk'] => ({
    ...base,
    text,
    done,
    phase,
    channel: phase === 'answer' || phase === 'user' ? 'answer' : 'thinking',
    action_seq: seq,
  });
  const extra = (e: { provider_executed?: unknown; caller?: unknown }) => ({
    ...(e.provider_executed === undefined ? {} : { provider_executed: e.provider_executed }),
    ...(e.caller === undefined ? {} : { caller: e.caller }),
  });
  const names = new Map<unknown, [string, unknown]>(); // tool index -> [id, name]
  return {
    heartbeat: () => ': ping\n\n',
    frames(e: WireEvent): PlannerFrame[] {
      switch (e.type) {
        case 'answer_delta':
        case 'user_delta':
          answer = (answer ?? '') + e.text;
          // `phase` is the planner's own (the channel's phase): the message's phase is `answer_phase`.
          return [
            [
              'llm_stream_chunk',
              {
                ...chunk(e.text, e.type === 'user_delta' ? 'user' : 'answer'),
                ...(e.type === 'answer_delta' && e.phase !== undefined ? { answer_phase: e.phase } : {}),
              },
            ],
          ];
        case 'thinking_delta':
          return [['llm_stream_chunk', chunk(e.text, e.source === 'thought' ? 'observation' : 'thinking')]];
        case 'artifact_delta':
          return [
            [
              'artifact_chunk',
              {
                ...base,
                stream_id: 'artifact',
                seq: artifactSeq++,
                chunk: e.text,
                done: false,
                artifact_type: 'text',
                meta: { source: 'artifact_delta' },
                event: 'artifact_chunk',
              },
            ],
          ];
        case 'artifact_chunk':
          return [
            [
              'artifact_chunk',
              {
                ...base,
                stream_id: e.stream_id,
                seq: e.seq,
                chunk: e.chunk,
                done: e.done,
                artifact_type: e.artifact_type,
                meta: e.meta ?? {},
                event: 'artifact_chunk',
              },
            ],
          ];
        case 'tool_call_start':
          names.set(e.index, [e.id, e.name]);
          return [
            [
              'tool_call_start',
              { ...base, tool_call_id: e.id, tool_name: e.name, args_json: '', action_seq: seq, index: e.index, ...extra(e) },
            ],
          ];
        case 'tool_call_delta':
          return [
            ['tool_call_args', { ...base, tool_call_id: names.get(e.index)?.[0] ?? String(e.index), delta: e.arguments, index: e.index }],
          ];
        case 'tool_call':
          return [
            [
              'tool_call_end',
              { ...base, tool_call_id: e.id, tool_name: e.name, args: e.arguments, repaired: e.repaired, index: e.index, ...extra(e) },
            ],
          ];
        case 'action':
          return [
            [
              'step',
              {
                ...base,
                event: 'step_complete',
                action_seq: seq,
                node: own(e.action, 'next_node'),
                thought: own(e.action, 'thought') ?? null,
                action: e.action,
              },
            ],
          ];
        case 'usage':
          return [['event', { ...base, event: 'usage', ...without(e, ['type']) }]];
        case 'error':
          return [['error', { ...base, error: e.message, code: e.code, provider_code: e.provider_code ?? null }]];
        case 'done': {
          const payload = e.payload ?? null;
          const raw = own(payload, 'raw_answer');
          const final = typeof raw === 'string' ? raw : answer;
          const out: PlannerFrame[] = [];
          if (answer !== null) out.push(['llm_stream_chunk', chunk('', 'answer', true)]);
          out.push([
            'done',
            {
              ...base,
              answer: final,
              metadata: doneMetadata(e),
              pause: null,
              answer_action_seq: seq,
              ...(payload ? { payload } : {}),
            },
          ]);
          return out;
        }
        default:
          if (!EXTRA_TYPES.has(e.type)) return [];
          return [['event', { ...base, event: e.type, ...without(e, ['type']) }]];
      }
    },
    end: () => [],
  };
}

interface Tool {
  index: number;
  action_seq: unknown;
}

/** The planner vocabulary (reference-behaviour.md §7), as `toSse("planner")` writes it. */
export function reader(): ProfileReader {
  const tools = new Map<string, Tool>(); // tool_call_id -> { index, action_seq }
  let order = 0;
  // `start`: a tool_call_start, which begins a new call even when an earlier action's call had
  // the same id (routers number calls per response: `call_0` again in the next action).
  const toolIndex = (id: string, d: JsonObject, start = false): Tool => {
    let t = start ? undefined : tools.get(id);
    if (!t) tools.set(id, (t = { index: indexOf(own(d, 'index')) ?? order, action_seq: own(d, 'action_seq') }));
    order = Math.max(order, t.index + 1);
    return t;
  };
  const toolId = (d: JsonObject, name: string): string => {
    const id = idOf(own(d, 'tool_call_id'));
    if (id === undefined) throw new TypeError(`${name} without tool_call_id`);
    return id;
  };
  const seqOf = (wire: { action_seq?: unknown }, fallback: unknown) => {
    const seq = wire.action_seq ?? fallback;
    return seq == null ? {} : { action_seq: seq };
  };
  const executed = (d: JsonObject) => {
    const pe = own(d, 'provider_executed');
    const caller = own(d, 'caller');
    return { ...(pe === undefined ? {} : { provider_executed: pe }), ...(caller === undefined ? {} : { caller }) };
  };
  return namedReader((name, d, wire): WireEvent[] => {
    switch (name) {
      case 'llm_stream_chunk': {
        const text = own(d, 'text');
        if (typeof text !== 'string') throw new TypeError('llm_stream_chunk without text');
        if (text === '') return [];
        const channel = own(d, 'channel');
        const phase = own(d, 'phase');
        if (channel === 'answer' || (channel === undefined && phase === 'answer')) {
          const answerPhase = own(d, 'answer_phase');
          return [
            phase === 'user'
              ? { type: 'user_delta', text, ...wire }
              : { type: 'answer_delta', text, ...(typeof answerPhase === 'string' ? { phase: answerPhase } : {}), ...wire },
          ];
        }
        if (channel === 'revision' || phase === 'revision' || phase === 'action') return [];
        return [{ type: 'thinking_delta', text, source: phase === 'thinking' ? 'reasoning' : 'thought', ...wire }];
      }
      case 'artifact_chunk': {
        const meta = ownObject(d, 'meta');
        const chunk = own(d, 'chunk');
        if (own(meta, 'source') === 'artifact_delta' && typeof chunk === 'string') {
          return [{ type: 'artifact_delta', text: chunk, ...wire }];
        }
        const streamId = own(d, 'stream_id');
        if (typeof streamId !== 'string') throw new TypeError('artifact_chunk without stream_id');
        const kept = meta && Object.keys(meta).length ? { meta } : {};
        return [
          {
            type: 'artifact_chunk',
            stream_id: streamId,
            seq: own(d, 'seq'),
            chunk,
            done: own(d, 'done') === true,
            artifact_type: own(d, 'artifact_type') ?? null,
            ...kept,
            ...wire,
          },
        ];
      }
      case 'tool_call_start': {
        const id = toolId(d, name);
        const t = toolIndex(id, d, true);
        const out: WireEvent[] = [
          { type: 'tool_call_start', index: t.index, id, name: stringOrNull(own(d, 'tool_name')), ...executed(d), ...wire },
        ];
        const args = own(d, 'args_json');
        if (typeof args === 'string' && args) out.push({ type: 'tool_call_delta', index: t.index, arguments: args, ...wire });
        return out;
      }
      case 'tool_call_args': {
        const id = idOf(own(d, 'tool_call_id'));
        const delta = own(d, 'delta');
        if (id === undefined || typeof delta !== 'string') throw new TypeError('tool_call_args without tool_call_id or delta');
        const t = toolIndex(id, d);
        return [{ type: 'tool_call_delta', index: t.index, arguments: delta, ...wire, ...seqOf(wire, t.action_seq) }];
      }
      case 'tool_call_end': {
        const id = toolId(d, name);
        const t = toolIndex(id, d);
        return [
          {
            type: 'tool_call',
            index: t.index,
            id,
            name: stringOrNull(own(d, 'tool_name')),
            arguments: own(d, 'args') ?? null,
            repaired: own(d, 'repaired') === true,
            ...executed(d),
            ...wire,
            ...seqOf(wire, t.action_seq),
          },
        ];
      }
      case 'step': {
        const action = ownObject(d, 'action');
        return action ? [{ type: 'action', action, ...wire }] : [];
      }
      case 'event': {
        const event = own(d, 'event');
        if (event !== 'usage' && !(typeof event === 'string' && EXTRA_TYPES.has(event))) return [];
        return [extraEvent(event as 'usage', without(d, [...WIRE_FIELDS, 'event', 'ts', 'step']), wire)];
      }
      case 'error': {
        const code = own(d, 'code');
        return [
          {
            type: 'error',
            code: typeof code === 'string' ? code : 'server_error',
            message: str(own(d, 'error') ?? own(d, 'message')),
            ...providerCode(d),
            ...wire,
          },
        ];
      }
      case 'done': {
        return [{ ...doneOf(ownObject(d, 'metadata'), d, true), ...wire, ...seqOf(wire, own(d, 'answer_action_seq')) }];
      }
      default:
        return [];
    }
  });
}
