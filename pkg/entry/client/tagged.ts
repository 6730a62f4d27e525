// @ts-nocheck
// The tagged profile (nonce-tag-streaming.md): `writer` is what `toSse("tagged")` writes,
// `reader` what `fromSse("tagged")` reads back.
import { EXTRA_TYPES, isObject, json, providerCode, typed, wireFields } from './common.js';

/**
 * The tagged vocabulary (nonce-tag-streaming.md): artifact_delta, user_delta, done, ping. What
 * it has no word for (errors, reasoning, tool calls, the action, usage) goes out under the
 * routed event's own name, which a client listening for the vocabulary's names never sees.
 */
export function writer() {
  let error = null;
  const named = new Set(['thinking_delta', 'tool_call_start', 'tool_call_delta', 'tool_call', 'action', 'usage', ...EXTRA_TYPES]);
  return {
    heartbeat: () => 'event: ping\ndata: {}\n\n',
    frames(e) {
      switch (e.type) {
        case 'artifact_delta':
          return [['artifact_delta', { text: e.text }]];
        case 'artifact_chunk':
          return [['artifact_delta', { text: typeof e.chunk === 'string' ? e.chunk : json(e.chunk), stream_id: e.stream_id,
            seq: e.seq, chunk: e.chunk, done: e.done, artifact_type: e.artifact_type }]];
        case 'user_delta':
          return [['user_delta', { text: e.text }]];
        case 'answer_delta':
          return [['user_delta', { text: e.text, source: 'answer' }]];
        case 'error':
          error ??= { code: e.code, message: e.message };
          return [['error', { code: e.code, message: e.message,
            ...(e.provider_code !== undefined ? { provider_code: e.provider_code } : {}) }]];
        case 'done':
          return [['done', { ok: e.ok, parse_ok: e.parse_ok, ...(error ? { error } : {}),
            ...(e.finish_reason != null ? { finish_reason: e.finish_reason } : {}),
            ...(e.finish !== undefined ? { finish: e.finish } : {}),
            ...(e.payload ? { payload: e.payload } : {}) }]];
        default: {
          if (!named.has(e.type)) return [];
          const { type, ...fields } = e;
          return [[type, fields]];
        }
      }
    },
    end: () => [],
  };
}

/** The tagged vocabulary (nonce-tag-streaming.md), plus routed events under their own names. */
export function reader() {
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
