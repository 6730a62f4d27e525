// assistantTurn: the assistant message(s) of one routed response, in a provider's request shape,
// to append to the next request of a conversation.
//
// Two passes, each linear in the events. `read` folds the events into parts in the order they
// came (text, reasoning, opaque provider items, tool calls and results), each text kept as an
// array of pieces joined once; a writer per provider turns the parts into its messages.
//
// What the provider gave the client comes back unmodified: a `continuation` event's own fields
// are copied as data (a JSON round trip: getters run once, cycles are refused), without its
// `type`, `kind` and the wire fields `fromSse` adds. Everything the output holds is a fresh
// object of own data properties. Anything thrown while reading hostile input becomes
// `invalid_input`; an unknown provider is `invalid_option`.
import { StreamrouteError } from '../runtime.js';
import { READ_FIELDS, indexOf, isObject, own, type JsonObject, without } from './common.js';

/** The providers `assistantTurn` writes for. */
export type TurnProvider = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock' | 'ollama';

const PROVIDERS: readonly TurnProvider[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'bedrock', 'ollama'];

/** Members a continuation carries that are not the provider's: the event's and the wire's. */
const NOT_PROVIDERS = ['type', 'kind', ...READ_FIELDS];

/**
 * Anthropic's server tools whose calls and results the Messages API takes back, by tool name:
 * the type of the result block (`ContentBlockParam`). Other provider-executed calls (MCP) are
 * left out.
 */
const ANTHROPIC_SERVER_RESULTS: ReadonlyMap<string, string> = new Map([
  ['web_search', 'web_search_tool_result'],
  ['web_fetch', 'web_fetch_tool_result'],
  ['code_execution', 'code_execution_tool_result'],
  ['bash_code_execution', 'bash_code_execution_tool_result'],
  ['text_editor_code_execution', 'text_editor_code_execution_tool_result'],
  ['tool_search_tool_regex', 'tool_search_tool_result'],
  ['tool_search_tool_bm25', 'tool_search_tool_result'],
]);

/** Answer text of one message (`id`: its Responses item id; `signature`: Gemini's). */
interface TextPart {
  kind: 'text';
  texts: string[];
  phase: string | undefined;
  id?: string;
  signature?: string;
}
/** Reasoning text (`signature`: Anthropic's or Bedrock's; `thoughtSignature`: Gemini's). */
interface ReasoningPart {
  kind: 'reasoning';
  texts: string[];
  signature?: string;
  thoughtSignature?: string;
}
/** Refusal text. */
interface RefusalPart {
  kind: 'refusal';
  texts: string[];
}
/** Compaction text (Anthropic) and the compaction's opaque fields (Anthropic, OpenAI Responses). */
interface CompactionPart {
  kind: 'compaction';
  texts: string[];
  fields?: JsonObject;
}
/** An opaque provider item: redacted reasoning, or a Responses reasoning item. */
interface OpaquePart {
  kind: 'redacted' | 'reasoning_item';
  fields: JsonObject;
}
/** A tool call. `done`: its `tool_call` came (its arguments are whole). */
interface CallPart {
  kind: 'call';
  index: number;
  id: string;
  name: string;
  executed: boolean;
  caller: unknown;
  args: unknown;
  raw: string[];
  done: boolean;
  /** The Responses `function_call` item id. */
  itemId?: string;
  /** The result of a provider-executed call. */
  result?: ResultPart;
}
/** The result of a provider-executed call. */
interface ResultPart {
  kind: 'result';
  id: string;
  result: unknown;
  call: CallPart | undefined;
}
/** An MCP call waiting for the user's approval (Responses `mcp_approval_request`). */
interface ApprovalPart {
  kind: 'approval';
  id: string;
  serverLabel: string;
  call: CallPart | undefined;
}
type Part = TextPart | ReasoningPart | RefusalPart | CompactionPart | OpaquePart | CallPart | ResultPart | ApprovalPart;

/** A JSON value as fresh data: own data properties only. `undefined` stays `undefined`. */
function data(v: unknown): unknown {
  const text = JSON.stringify(v);
  return text === undefined ? undefined : JSON.parse(text);
}

/** A continuation's own fields, as data, without the event's and the wire's members. */
const fieldsOf = (e: JsonObject): JsonObject => without(data(e), NOT_PROVIDERS);

const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The parts of one response, in order. */
class Turn {
  readonly parts: Part[] = [];
  /** The part deltas of its kind are appended to; a continuation or a tool event closes it. */
  private open: TextPart | ReasoningPart | RefusalPart | CompactionPart | null = null;
  /** Where the parts since the last continuation begin. */
  private since = 0;
  /** Where the parts since the last Responses `message` item begin. */
  private sinceMessage = 0;
  private readonly calls = new Map<number, CallPart>();
  private readonly callsById = new Map<string, CallPart>();
  /** Gemini thought signatures of function calls, by call index. */
  readonly callSignatures = new Map<number, string>();

  event(e: JsonObject): void {
    switch (own(e, 'type')) {
      case 'answer_delta': {
        const phase = stringOf(own(e, 'phase'));
        const o = this.open;
        const part = o?.kind === 'text' && o.phase === phase ? o : this.push({ kind: 'text', texts: [], phase });
        this.grow(part, own(e, 'text'));
        break;
      }
      case 'thinking_delta': {
        const source = own(e, 'source');
        if (source !== undefined && source !== 'reasoning') break;
        this.grow(this.open?.kind === 'reasoning' ? this.open : this.push({ kind: 'reasoning', texts: [] }), own(e, 'text'));
        break;
      }
      case 'refusal_delta':
        this.grow(this.open?.kind === 'refusal' ? this.open : this.push({ kind: 'refusal', texts: [] }), own(e, 'text'));
        break;
      case 'compaction':
        this.grow(this.open?.kind === 'compaction' ? this.open : this.push({ kind: 'compaction', texts: [] }), own(e, 'text'));
        break;
      case 'tool_call_start':
      case 'tool_call':
        this.call(e);
        break;
      case 'tool_call_delta': {
        const call = this.byIndex(e);
        const text = own(e, 'arguments');
        if (call && typeof text === 'string') call.raw.push(text);
        break;
      }
      case 'tool_result': {
        this.open = null;
        const id = stringOf(own(e, 'id')) ?? '';
        const call = this.callsById.get(id) ?? this.byIndex(e);
        const part = this.push({ kind: 'result', id, result: data(own(e, 'result')), call });
        if (call) call.result = part;
        break;
      }
      case 'continuation':
        this.continuation(e);
        break;
      default:
    }
  }

  private push<P extends Part>(part: P): P {
    this.parts.push(part);
    if (part.kind === 'text' || part.kind === 'reasoning' || part.kind === 'refusal' || part.kind === 'compaction') {
      this.open = part as TextPart | ReasoningPart | RefusalPart | CompactionPart;
    }
    return part;
  }

  private grow(part: { texts: string[] }, text: unknown): void {
    if (typeof text === 'string' && text !== '') part.texts.push(text);
  }

  private byIndex(e: JsonObject): CallPart | undefined {
    const index = indexOf(own(e, 'index'));
    return index === undefined ? undefined : this.calls.get(index);
  }

  /** `tool_call_start` or `tool_call`: the call at its first event's place. */
  private call(e: JsonObject): void {
    const index = indexOf(own(e, 'index'));
    if (index === undefined) return;
    this.open = null;
    let call = this.calls.get(index);
    if (!call) {
      call = this.push({
        kind: 'call',
        index,
        id: '',
        name: '',
        executed: false,
        caller: undefined,
        args: undefined,
        raw: [],
        done: false,
      });
      this.calls.set(index, call);
    }
    const id = stringOf(own(e, 'id'));
    if (id !== undefined && call.id !== id) {
      call.id = id;
      this.callsById.set(id, call);
    }
    call.name = stringOf(own(e, 'name')) ?? call.name;
    call.executed ||= own(e, 'provider_executed') === true;
    const caller = own(e, 'caller');
    if (caller !== undefined && caller !== null) call.caller = data(caller);
    if (own(e, 'type') === 'tool_call') {
      call.args = data(own(e, 'arguments'));
      call.done = true;
    }
  }

  private continuation(e: JsonObject): void {
    this.open = null;
    const since = this.since;
    const last = this.parts.length > since ? this.parts[this.parts.length - 1] : undefined;
    switch (own(e, 'kind')) {
      case 'thinking_signature': {
        // The reasoning routed since the previous continuation.
        const signature = stringOf(own(e, 'signature'));
        if (signature === undefined) break;
        const reasoning = this.lastSince('reasoning', since);
        if (reasoning && reasoning.signature === undefined) reasoning.signature = signature;
        else this.push({ kind: 'reasoning', texts: [], signature });
        break;
      }
      case 'thought_signature': {
        const signature = stringOf(own(e, 'thoughtSignature'));
        if (signature === undefined) break;
        const index = indexOf(own(e, 'index'));
        if (index !== undefined) {
          this.callSignatures.set(index, signature);
          break;
        }
        // The text or thought part routed just before it (`part` says which, where given).
        const part = own(e, 'part');
        const thought = part === 'thought' || (part !== 'text' && last?.kind === 'reasoning');
        if (thought) {
          const p = this.lastSince('reasoning', since);
          if (p && p.thoughtSignature === undefined) p.thoughtSignature = signature;
          else this.push({ kind: 'reasoning', texts: [], thoughtSignature: signature });
        } else {
          const p = this.lastSince('text', since);
          if (p && p.signature === undefined) p.signature = signature;
          else this.push({ kind: 'text', texts: [], phase: undefined, signature });
        }
        break;
      }
      case 'redacted_thinking':
        this.push({ kind: 'redacted', fields: fieldsOf(e) });
        break;
      case 'reasoning':
        this.push({ kind: 'reasoning_item', fields: fieldsOf(e) });
        break;
      case 'compaction': {
        const fields = fieldsOf(e);
        if (last?.kind === 'compaction' && last.fields === undefined) last.fields = fields;
        else this.push({ kind: 'compaction', texts: [], fields });
        break;
      }
      case 'item':
        this.item(e);
        break;
      case 'tool_approval_request': {
        // The router's (a Responses MCP approval request names its server); an AI SDK wire's
        // approval requests have none and belong to no provider's request.
        const id = stringOf(own(e, 'approvalId'));
        const serverLabel = stringOf(own(e, 'server_label'));
        if (id !== undefined && serverLabel !== undefined) this.push({ kind: 'approval', id, serverLabel, call: this.byIndex(e) });
        break;
      }
      default:
    }
    this.open = null;
    this.since = this.parts.length;
  }

  /**
   * The last part of `kind` at or after `from`. The parts a continuation looks back over are
   * those since the previous one, so each part is looked at once in all.
   */
  private lastSince<K extends 'text' | 'reasoning'>(kind: K, from: number): Extract<Part, { kind: K }> | undefined {
    for (let i = this.parts.length - 1; i >= from; i--) {
      const p = this.parts[i];
      if (p.kind === kind) return p as Extract<Part, { kind: K }>;
    }
    return undefined;
  }

  /** A Responses item id: of the message just routed, or of a function call. */
  private item(e: JsonObject): void {
    const id = stringOf(own(e, 'id'));
    if (id === undefined) return;
    const type = own(e, 'item_type');
    if (type === 'message') {
      // The text routed since the previous message item.
      const text = this.lastSince('text', this.sinceMessage);
      if (text && text.id === undefined) text.id = id;
      else this.push({ kind: 'text', texts: [], phase: undefined, id });
      this.sinceMessage = this.parts.length;
    } else if (type === 'function_call') {
      const call = this.byIndex(e) ?? this.callsById.get(stringOf(own(e, 'call_id')) ?? '');
      if (call) call.itemId = id;
    }
  }
}

/** The events of one response folded into parts. */
function read(events: unknown): Turn {
  const iterate = events !== null && typeof events === 'object' ? (events as Iterable<unknown>)[Symbol.iterator] : undefined;
  if (typeof iterate !== 'function') {
    throw new StreamrouteError('invalid_input', 'assistantTurn takes the events of one response: an array or another iterable');
  }
  const turn = new Turn();
  let n = 0;
  for (const e of events as Iterable<unknown>) {
    if (!isObject(e)) throw new StreamrouteError('invalid_input', `assistantTurn: element ${n} is not an event object`);
    turn.event(e);
    n++;
  }
  return turn;
}

const joined = (p: { texts: string[] }): string => p.texts.join('');

/** A call's arguments as JSON text: the parsed arguments, else the text the model sent. */
const argumentsText = (c: CallPart): string => (c.args !== undefined && c.args !== null ? JSON.stringify(c.args) : c.raw.join('') || '{}');

/** A call's arguments as an object value: the parsed arguments, else `{}`. */
const argumentsValue = (c: CallPart): unknown => (c.args !== undefined && c.args !== null ? c.args : {});

const clientCall = (p: Part): p is CallPart => p.kind === 'call' && p.done && !p.executed;

/** A call id the router made up because the provider sent none. */
const madeUp = (c: CallPart): boolean => c.id === `call_${c.index}`;

function openaiChat(t: Turn): JsonObject[] {
  const text = t.parts.flatMap((p) => (p.kind === 'text' ? p.texts : [])).join('');
  const refusal = t.parts.flatMap((p) => (p.kind === 'refusal' ? p.texts : [])).join('');
  const calls = t.parts.filter(clientCall).map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: argumentsText(c) },
  }));
  if (!text && !refusal && calls.length === 0) return [];
  const message: JsonObject = { role: 'assistant', content: text || (calls.length || refusal ? null : '') };
  if (refusal) message.refusal = refusal;
  if (calls.length) message.tool_calls = calls;
  return [message];
}

function openaiResponses(t: Turn): JsonObject[] {
  const items: JsonObject[] = [];
  for (const p of t.parts) {
    if (p.kind === 'reasoning_item') items.push({ type: 'reasoning', ...p.fields });
    else if (p.kind === 'compaction' && p.fields) {
      // An input compaction item is its id and encrypted content; the output item's other
      // members (`created_by`, …) are not part of it.
      const { id, encrypted_content } = p.fields;
      items.push({ type: 'compaction', ...(id === undefined ? {} : { id }), encrypted_content });
    } else if (p.kind === 'text' && (p.id !== undefined || p.texts.length)) {
      const text = joined(p);
      const phase = p.phase === undefined ? {} : { phase: p.phase };
      items.push(
        p.id === undefined
          ? { type: 'message', role: 'assistant', content: text, ...phase }
          : {
              type: 'message',
              id: p.id,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text, annotations: [] }],
              ...phase,
            },
      );
    } else if (p.kind === 'approval' && p.call) {
      // Sent back (with the user's `mcp_approval_response` after it) where the previous response is not stored.
      const c = p.call;
      items.push({ type: 'mcp_approval_request', id: p.id, name: c.name, arguments: argumentsText(c), server_label: p.serverLabel });
    } else if (clientCall(p)) {
      // A custom tool's input is free text (its arguments a string): a `custom_tool_call`.
      const item: JsonObject =
        typeof p.args === 'string'
          ? { type: 'custom_tool_call', call_id: p.id, name: p.name, input: p.args }
          : { type: 'function_call', call_id: p.id, name: p.name, arguments: argumentsText(p) };
      if (p.itemId !== undefined) item.id = p.itemId;
      if (p.caller !== undefined) item.caller = p.caller;
      items.push(item);
    }
  }
  return items;
}

function anthropic(t: Turn): JsonObject[] {
  const content: JsonObject[] = [];
  const server = (c: CallPart | undefined): string | undefined =>
    c?.done && c.executed && c.result ? ANTHROPIC_SERVER_RESULTS.get(c.name) : undefined;
  for (const p of t.parts) {
    if (p.kind === 'text' && p.texts.length) content.push({ type: 'text', text: joined(p) });
    else if (p.kind === 'reasoning' && p.signature !== undefined) {
      content.push({ type: 'thinking', thinking: joined(p), signature: p.signature });
    } else if (p.kind === 'redacted' && typeof p.fields.data === 'string') {
      content.push({ type: 'redacted_thinking', data: p.fields.data });
    } else if (p.kind === 'compaction') {
      const text = p.texts.length ? { content: joined(p) } : {};
      content.push({ type: 'compaction', ...text, ...p.fields });
    } else if (p.kind === 'call' && p.done) {
      const type = p.executed ? (server(p) ? 'server_tool_use' : undefined) : 'tool_use';
      if (!type) continue;
      const block: JsonObject = { type, id: p.id, name: p.name, input: argumentsValue(p) };
      if (p.caller !== undefined) block.caller = p.caller;
      content.push(block);
    } else if (p.kind === 'result') {
      const type = server(p.call);
      if (type && p.call?.result === p) content.push({ type, tool_use_id: p.id, content: p.result ?? null });
    }
  }
  return content.length ? [{ role: 'assistant', content }] : [];
}

function gemini(t: Turn): JsonObject[] {
  const parts: JsonObject[] = [];
  const signed = (part: JsonObject, signature: string | undefined): JsonObject => {
    if (signature !== undefined) part.thoughtSignature = signature;
    return part;
  };
  for (const p of t.parts) {
    if (p.kind === 'text' && (p.texts.length || p.signature !== undefined)) parts.push(signed({ text: joined(p) }, p.signature));
    else if (p.kind === 'reasoning' && (p.texts.length || p.thoughtSignature !== undefined)) {
      parts.push(signed({ text: joined(p), thought: true }, p.thoughtSignature));
    } else if (clientCall(p)) {
      const call: JsonObject = { name: p.name, args: argumentsValue(p) };
      if (!madeUp(p)) call.id = p.id;
      parts.push(signed({ functionCall: call }, t.callSignatures.get(p.index)));
    }
  }
  return parts.length ? [{ role: 'model', parts }] : [];
}

function bedrock(t: Turn): JsonObject[] {
  const content: JsonObject[] = [];
  for (const p of t.parts) {
    if (p.kind === 'reasoning' && (p.texts.length || p.signature !== undefined)) {
      const reasoningText: JsonObject = { text: joined(p) };
      if (p.signature !== undefined) reasoningText.signature = p.signature;
      content.push({ reasoningContent: { reasoningText } });
    } else if (p.kind === 'redacted' && p.fields.redactedContent !== undefined) {
      content.push({ reasoningContent: { redactedContent: p.fields.redactedContent } });
    } else if (p.kind === 'text' && p.texts.length) content.push({ text: joined(p) });
    else if (clientCall(p)) content.push({ toolUse: { toolUseId: p.id, name: p.name, input: argumentsValue(p) } });
  }
  return content.length ? [{ role: 'assistant', content }] : [];
}

function ollama(t: Turn): JsonObject[] {
  const text = t.parts.flatMap((p) => (p.kind === 'text' ? p.texts : [])).join('');
  const thinking = t.parts.flatMap((p) => (p.kind === 'reasoning' ? p.texts : [])).join('');
  const calls = t.parts.filter(clientCall).map((c) => ({
    ...(madeUp(c) ? {} : { id: c.id }),
    function: { name: c.name, arguments: argumentsValue(c) },
  }));
  if (!text && !thinking && calls.length === 0) return [];
  const message: JsonObject = { role: 'assistant', content: text };
  if (thinking) message.thinking = thinking;
  if (calls.length) message.tool_calls = calls;
  return [message];
}

const WRITERS: { [P in TurnProvider]: (t: Turn) => JsonObject[] } = {
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  anthropic,
  gemini,
  bedrock,
  ollama,
};

/**
 * The assistant message(s) of one response, in `provider`'s request shape, to append to the
 * next request: text, reasoning with its signatures or encrypted content, and the client's
 * tool calls with their ids, in the order they came. `[]` when the response gave nothing to
 * send back.
 *
 * Throws `invalid_option` for a provider it does not write for, `invalid_input` for `events`
 * that are not an iterable of event objects (or hold what JSON cannot encode).
 */
export function assistantTurn(provider: unknown, events: unknown): JsonObject[] {
  if (typeof provider !== 'string' || !(PROVIDERS as readonly string[]).includes(provider)) {
    const got = typeof provider === 'string' ? JSON.stringify(provider) : typeof provider;
    throw new StreamrouteError('invalid_option', `assistantTurn: provider must be one of ${PROVIDERS.join(', ')}; got ${got}`);
  }
  try {
    return WRITERS[provider as TurnProvider](read(events));
  } catch (e) {
    if (e instanceof StreamrouteError) throw e;
    let why = 'unreadable input';
    try {
      why = e instanceof Error ? e.message : String(e);
    } catch {
      // A hostile thrown value: the generic message.
    }
    throw new StreamrouteError('invalid_input', `assistantTurn: the events cannot be read: ${why}`);
  }
}
