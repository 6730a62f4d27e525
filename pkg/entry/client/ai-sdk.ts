// @ts-nocheck
// The Vercel AI SDK UI message stream: `writer` is what `toSse("ai-sdk")` writes, `reader`
// what `fromSse("ai-sdk")` reads back.
import { EXTRA_TYPES, isObject, typed } from './common.js';

const AI_SDK_FINISH = {
  stop: 'stop', end_turn: 'stop', STOP: 'stop', completed: 'stop', stop_sequence: 'stop',
  length: 'length', max_tokens: 'length', MAX_TOKENS: 'length', max_output_tokens: 'length',
  tool_calls: 'tool-calls', tool_use: 'tool-calls', function_call: 'tool-calls',
  content_filter: 'content-filter', SAFETY: 'content-filter', RECITATION: 'content-filter',
  refusal: 'content-filter', failed: 'error',
};

/** The Vercel AI SDK UI message stream: unnamed `data:` frames of typed parts, `[DONE]`. */
export function writer(o) {
  let started = false;
  let open = null; // [kind, id, variant] of the open text or reasoning part
  let parts = 0;
  const ids = new Map(); // tool index -> toolCallId
  const errors = []; // error frames, held until done: what was recovered goes first
  const close = (out) => {
    if (open) out.push([null, { type: `${open[0]}-end`, id: open[1] }]);
    open = null;
  };
  // Every run of one kind of text is one text or reasoning part (a data part per delta would
  // make the message's parts follow the chunking). `variant` (user, artifact or refusal text,
  // the action's thought) rides on the part's providerMetadata, where the SDK keeps it.
  const text = (out, kind, delta, variant) => {
    if (open?.[0] !== kind || open[2] !== variant) {
      close(out);
      open = [kind, `${kind}-${parts++}`, variant];
      out.push([null, { type: `${kind}-start`, id: open[1], ...(variant ? { providerMetadata: { streamroute: variant } } : {}) }]);
    }
    out.push([null, { type: `${kind}-delta`, id: open[1], delta }]);
  };
  return {
    heartbeat: () => ': ping\n\n',
    frames(e) {
      const out = [];
      if (!started) {
        started = true;
        out.push([null, o.messageId ? { type: 'start', messageId: o.messageId } : { type: 'start' }]);
      }
      switch (e.type) {
        case 'answer_delta':
          text(out, 'text', e.text);
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
          out.push([null, { type: 'data-artifact', id: `${e.stream_id}-${e.seq}`, data: {
            stream_id: e.stream_id, seq: e.seq, chunk: e.chunk, done: e.done, artifact_type: e.artifact_type } }]);
          break;
        case 'tool_call_start':
          close(out);
          ids.set(e.index, e.id);
          // The provider's index, which the SDK's tool parts have no field for.
          out.push([null, { type: 'data-tool-call-index', data: { toolCallId: e.id, index: e.index }, transient: true }]);
          out.push([null, { type: 'tool-input-start', toolCallId: e.id, toolName: e.name,
            ...(e.provider_executed === true ? { providerExecuted: true } : {}) }]);
          break;
        case 'tool_call_delta':
          close(out);
          out.push([null, { type: 'tool-input-delta', toolCallId: ids.get(e.index) ?? String(e.index),
            inputTextDelta: e.arguments }]);
          break;
        case 'tool_call':
          close(out);
          out.push([null, { type: 'tool-input-available', toolCallId: e.id, toolName: e.name, input: e.arguments,
            ...(e.provider_executed === true ? { providerExecuted: true } : {}),
            ...(e.repaired ? { providerMetadata: { streamroute: { repaired: true } } } : {}) }]);
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
            out.push([null, { type: 'source-document', sourceId, mediaType: 'text/plain', title: e.title ?? e.snippet ?? sourceId,
              providerMetadata }]);
          }
          break;
        }
        case 'action':
          close(out);
          out.push([null, { type: 'data-action', data: e.action }]);
          break;
        case 'usage': {
          const { type, ...usage } = e;
          out.push([null, { type: 'data-usage', data: usage, transient: true }]);
          break;
        }
        case 'error':
          // The SDK's chat stops at an error frame: it goes out at done, after what was
          // recovered (an action, a payload). The text is the provider's own message.
          close(out);
          // The code rides in a transient data part just before (the error part has no field).
          errors.push([null, { type: 'data-error', data: { code: e.code, provider_code: e.provider_code ?? null,
            ...(e.message ? {} : { message: '' }) }, transient: true }]);
          errors.push([null, { type: 'error', errorText: e.message || e.code }]);
          break;
        case 'done': {
          close(out);
          if (e.payload && errors.length) out.push([null, { type: 'data-payload', data: e.payload }]);
          out.push(...errors.splice(0));
          const finishReason = e.finish ?? (e.ok ? (AI_SDK_FINISH[e.finish_reason] ?? 'other') : 'error');
          const messageMetadata = { ok: e.ok, parse_ok: e.parse_ok, finish_reason: e.finish_reason ?? null,
            ...(e.finish !== undefined ? { finish: e.finish } : {}), ...(e.payload ? { payload: e.payload } : {}) };
          out.push([null, { type: 'finish', finishReason, messageMetadata }]);
          break;
        }
        default:
          if (EXTRA_TYPES.has(e.type)) {
            const { type, ...data } = e;
            out.push([null, { type: `data-${type.replaceAll('_', '-')}`, data }]);
          }
          break;
      }
      return out;
    },
    // Errors still held (no `done` came) go out before the end marker.
    end: (frame) => [...errors.splice(0).map(([name, data]) => frame(name, data)), 'data: [DONE]\n\n'],
  };
}

const USER_TEXT = { type: 'user_delta' };
const ARTIFACT_TEXT = { type: 'artifact_delta' };
const REFUSAL = { type: 'refusal_delta' };
const THOUGHT = { source: 'thought' };

const AI_SDK_TYPE = (part) => part.providerMetadata?.streamroute ?? {};

// The kinds of text a `text` part can carry besides the answer (providerMetadata.streamroute.type).
const TEXT_KINDS = new Set(['user_delta', 'artifact_delta', 'refusal_delta']);

/** The Vercel AI SDK UI message stream, as `toSse("ai-sdk")` writes it. */
export function reader() {
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
