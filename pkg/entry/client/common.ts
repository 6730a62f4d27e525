// @ts-nocheck
// What the profile modules share: the wire fields, the routed event types a profile has no word
// for, and small readers of frame values that never throw on hostile input.
import { StreamrouteError } from '../runtime.js';

/** Fields a wire frame carries besides its event, kept on the events read from it. */
export const WIRE_FIELDS = ['trace_id', 'session_id', 'message_id', 'action_seq'];

// Routed event types a profile has no word for: they travel under their own name (tagged), in
// an `event` frame (planner) or a `data-*` part (ai-sdk), and come back as themselves.
export const EXTRA_TYPES = new Set(['tool_result', 'source', 'refusal_delta']);

export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// Text of a field that should be a string: anything else (a hostile object included) is ''.
export const textOf = (v) => (typeof v === 'string' ? v : '');
// An event of `type` with the members of `parts`: `type` first, and never one of theirs (an
// OpenAI tool call's data has `"type": "function"`).
export const typed = (type, a, b) => {
  const event = { type, ...a, ...b };
  event.type = type;
  return event;
};

// A field as a string for a message or code, whatever the value (a throwing toString too).
export function str(v) {
  if (typeof v === 'string') return v;
  try {
    return v == null ? '' : String(v);
  } catch {
    return '';
  }
}

export function wireFields(data) {
  const out = {};
  for (const k of WIRE_FIELDS) if (data[k] !== undefined && data[k] !== null) out[k] = data[k];
  return out;
}

export function without(data, keys) {
  const out = {};
  for (const [k, v] of Object.entries(data)) if (!keys.includes(k)) out[k] = v;
  return out;
}

export const invalid = (message, frame) => ({ type: 'error', code: 'wire_invalid',
  message: frame?.id ? `${message} (frame id ${frame.id})` : message });

/** `provider_code` as a frame carries it (absent from frames written before it existed). */
export const providerCode = (d) => (d.provider_code === undefined ? {} : { provider_code: typeof d.provider_code === 'string' ? d.provider_code : null });

// JSON text of event data. A value JSON cannot hold (a BigInt, a cycle) is the caller's
// `invalid_input`, like everywhere else, not a bare TypeError.
export const json = (v) => {
  try {
    return JSON.stringify(v);
  } catch (e) {
    throw new StreamrouteError('invalid_input', `an event holds a value JSON cannot encode: ${e?.message ?? e}`);
  }
};
