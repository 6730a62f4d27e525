// @ts-nocheck
// The planner profile (reference-behaviour.md §7): named frames, JSON data. `writer` is what
// `toSse("planner")` writes, `reader` what `fromSse("planner")` reads back.
import { EXTRA_TYPES, WIRE_FIELDS, isObject, providerCode, typed, wireFields, without } from './common.js';

/** The planner vocabulary (reference-behaviour.md §7): named frames, JSON data. */
export function writer(o) {
  const base = {};
  if (o.traceId !== undefined) base.trace_id = o.traceId;
  if (o.sessionId !== undefined) base.session_id = o.sessionId;
  const seq = o.actionSeq ?? null;
  let answer = null;
  let artifactSeq = 0;
  // Phases as the reference runtime writes them: `thinking` for native reasoning,
  // `observation` for the action's streamed thought; `user` marks tagged user text.
  const chunk = (text, phase, done = false) => ({
    ...base, text, done, phase, channel: phase === 'answer' || phase === 'user' ? 'answer' : 'thinking', action_seq: seq,
  });
  const extra = (e) => (e.provider_executed === undefined ? {} : { provider_executed: e.provider_executed });
  const names = new Map(); // tool index -> [id, name]
  return {
    heartbeat: () => ': ping\n\n',
    frames(e) {
      switch (e.type) {
        case 'answer_delta':
        case 'user_delta':
          answer = (answer ?? '') + e.text;
          return [['llm_stream_chunk', chunk(e.text, e.type === 'user_delta' ? 'user' : 'answer')]];
        case 'thinking_delta':
          return [['llm_stream_chunk', chunk(e.text, e.source === 'thought' ? 'observation' : 'thinking')]];
        case 'artifact_delta':
          return [['artifact_chunk', { ...base, stream_id: 'artifact', seq: artifactSeq++, chunk: e.text,
            done: false, artifact_type: 'text', meta: { source: 'artifact_delta' }, event: 'artifact_chunk' }]];
        case 'artifact_chunk':
          return [['artifact_chunk', { ...base, stream_id: e.stream_id, seq: e.seq, chunk: e.chunk, done: e.done,
            artifact_type: e.artifact_type, meta: e.meta ?? {}, event: 'artifact_chunk' }]];
        case 'tool_call_start':
          names.set(e.index, [e.id, e.name]);
          return [['tool_call_start', { ...base, tool_call_id: e.id, tool_name: e.name, args_json: '', action_seq: seq,
            index: e.index, ...extra(e) }]];
        case 'tool_call_delta':
          return [['tool_call_args', { ...base, tool_call_id: names.get(e.index)?.[0] ?? String(e.index), delta: e.arguments,
            index: e.index }]];
        case 'tool_call':
          return [['tool_call_end', { ...base, tool_call_id: e.id, tool_name: e.name, args: e.arguments, repaired: e.repaired,
            index: e.index, ...extra(e) }]];
        case 'action':
          return [['step', { ...base, event: 'step_complete', action_seq: seq, node: e.action.next_node,
            thought: e.action.thought ?? null, action: e.action }]];
        case 'usage': {
          const { type, ...counts } = e;
          return [['event', { ...base, event: 'usage', ...counts }]];
        }
        case 'error':
          return [['error', { ...base, error: e.message, code: e.code, provider_code: e.provider_code ?? null }]];
        case 'done': {
          const payload = e.payload ?? null;
          const final = payload && typeof payload.raw_answer === 'string' ? payload.raw_answer : answer;
          const out = [];
          if (answer !== null) out.push(['llm_stream_chunk', chunk('', 'answer', true)]);
          out.push(['done', { ...base, answer: final, metadata: { ok: e.ok, parse_ok: e.parse_ok,
            finish_reason: e.finish_reason ?? null, ...(e.finish !== undefined ? { finish: e.finish } : {}) },
            pause: null, answer_action_seq: seq,
            ...(payload ? { payload } : {}) }]);
          return out;
        }
        default: {
          if (!EXTRA_TYPES.has(e.type)) return [];
          const { type, ...fields } = e;
          return [['event', { ...base, event: type, ...fields }]];
        }
      }
    },
    end: () => [],
  };
}

/** The planner vocabulary (reference-behaviour.md §7), as `toSse("planner")` writes it. */
export function reader() {
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
