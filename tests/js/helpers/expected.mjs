// What each demo-page panel must end up showing for a sample stream, worked out from the
// fixture itself with plain JSON.parse and each provider's documented field paths (no
// streamroute code), so the page test compares the page with an independent reading.

/** The SSE events of a text: [{ event, data }] (blocks split on blank lines; `data:` lines joined). */
function sseEvents(text) {
  const out = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
    const data = [];
    let event = 'message';
    for (const line of block.split('\n')) {
      const m = /^([a-z]+):\s?(.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === 'data') data.push(m[2]);
      if (m[1] === 'event') event = m[2];
    }
    if (data.length) out.push({ event, data: data.join('\n') });
  }
  return out;
}

/**
 * The messages of a binary event stream (Bedrock): [{ headers: { name: value }, payload }]
 * (string headers only; CRCs not checked: the fixtures are written by a script).
 */
function eventStream(bytes) {
  const out = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dec = new TextDecoder();
  for (let at = 0; at + 16 <= bytes.length; ) {
    const total = view.getUint32(at);
    const hlen = view.getUint32(at + 4);
    const headers = {};
    for (let h = at + 12; h < at + 12 + hlen; ) {
      const n = bytes[h];
      const name = dec.decode(bytes.subarray(h + 1, h + 1 + n));
      const len = view.getUint16(h + 2 + n);
      headers[name] = dec.decode(bytes.subarray(h + 4 + n, h + 4 + n + len));
      h += 4 + n + len;
    }
    out.push({ headers, payload: dec.decode(bytes.subarray(at + 12 + hlen, at + total - 4)) });
    at += total;
  }
  return out;
}

/** Sets `value` at a JSON path (`$.a.b[0]`) in `root`; a string with `append` is appended. */
function setPath(root, path, value, append) {
  const keys = [...path.replace(/^\$/, '').matchAll(/\.([^.[]+)|\[(\d+)\]/g)].map((m) => (m[1] !== undefined ? m[1] : Number(m[2])));
  let at = root;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) {
      at[k] = append && typeof at[k] === 'string' ? at[k] + value : value;
    } else {
      at[k] ??= typeof keys[i + 1] === 'number' ? [] : {};
      at = at[k];
    }
  });
}

/** xAI's server-side tools by the tool they belong to. */
const XAI_TOOL = {
  web_search_with_snippets: 'web_search',
  browse_page: 'web_search',
  x_user_search: 'x_search',
  x_keyword_search: 'x_search',
  x_semantic_search: 'x_search',
  x_thread_fetch: 'x_search',
};

/** A computer action as the client's computer tool reads it (OpenAI's names, scroll amounts in camel case). */
function computerAction(a) {
  const keep = {
    click: ['button', 'x', 'y'],
    double_click: ['x', 'y'],
    move: ['x', 'y'],
    drag: ['path'],
    scroll: ['x', 'y', 'scroll_x', 'scroll_y'],
  }[a.type];
  if (!keep) return a;
  const out = { type: a.type };
  for (const k of keep) if (k in a) out[{ scroll_x: 'scrollX', scroll_y: 'scrollY' }[k] ?? k] = a[k];
  if (a.keys != null) out.keys = a.keys;
  return out;
}

/** A done Responses item of a built-in tool (and xAI's JSON-string arguments): its tool and input, else null. */
function responsesInput(item) {
  const input = (name, args) => ({ name, args: JSON.stringify(args) });
  switch (item.type) {
    case 'apply_patch_call':
      return input('apply_patch', { callId: item.call_id, operation: item.operation });
    case 'shell_call':
      return input('shell', { action: { commands: item.action.commands } });
    case 'local_shell_call': {
      const a = item.action;
      return input('local_shell', {
        action: {
          type: 'exec',
          command: a.command,
          timeoutMs: a.timeout_ms,
          user: a.user,
          workingDirectory: a.working_directory,
          env: a.env,
        },
      });
    }
    case 'computer_call':
      return item.call_id
        ? input('computer', {
            actions: (item.actions ?? (item.action ? [item.action] : [])).map(computerAction),
            pendingSafetyChecks: (item.pending_safety_checks ?? []).map((c) => ({
              id: c.id,
              ...(c.code != null && { code: c.code }),
              ...(c.message != null && { message: c.message }),
            })),
            status: item.status,
          })
        : input('computer_use', {});
    case 'tool_search_call':
      return input('tool_search', { arguments: item.arguments, call_id: item.execution === 'client' ? item.call_id : null });
    case 'program':
      return input('programmatic_tool_calling', { code: item.code, fingerprint: item.fingerprint });
    case 'code_interpreter_call':
    case 'code_execution_call':
    case 'x_search_call':
    case 'view_image_call':
    case 'view_x_video_call':
      if (typeof item.arguments !== 'string') return null;
      return {
        name:
          { code_interpreter_call: 'code_execution', code_execution_call: 'code_execution', x_search_call: 'x_search' }[item.type] ??
          item.name,
        args: item.arguments,
      };
    default:
      return null;
  }
}

/** The raw reading: model text, reasoning, tool calls, errors. */
function read(provider, text, bytes) {
  const r = { text: '', reasoning: '', tools: new Map(), errors: [] };
  if (provider === 'text') {
    r.text = text;
    return r;
  }
  const tool = (key, init) => {
    if (!r.tools.has(key)) r.tools.set(key, { name: '', args: '', ...init });
    return r.tools.get(key);
  };
  if (provider === 'ollama') {
    for (const line of text.split('\n').filter((l) => l.trim())) {
      const d = JSON.parse(line);
      if (d.error) r.errors.push({ code: 'provider_error', message: d.error });
      r.text += d.message?.content ?? d.response ?? '';
      r.reasoning += d.message?.thinking ?? d.thinking ?? '';
      for (const t of d.message?.tool_calls ?? [])
        tool(r.tools.size, { name: t.function.name, args: JSON.stringify(t.function.arguments) });
    }
    return r;
  }
  if (provider === 'bedrock') {
    for (const { headers, payload } of eventStream(bytes)) {
      const d = JSON.parse(payload);
      if (headers[':message-type'] === 'exception') r.errors.push({ code: headers[':exception-type'], message: d.message });
      if (headers[':event-type'] === 'contentBlockStart' && d.start?.toolUse) tool(d.contentBlockIndex, { name: d.start.toolUse.name });
      if (headers[':event-type'] === 'contentBlockDelta') {
        r.text += d.delta.text ?? '';
        r.reasoning += d.delta.reasoningContent?.text ?? '';
        if (d.delta.toolUse) tool(d.contentBlockIndex).args += d.delta.toolUse.input;
      }
    }
    return r;
  }
  let streaming = null; // Gemini: the function call whose partialArgs are arriving
  const byIndex = new Map(); // OpenAI chat: the call each index names
  let latest; // OpenAI chat: the latest call
  for (const { data } of sseEvents(text)) {
    if (data === '[DONE]') continue;
    const d = JSON.parse(data);
    if (provider === 'openai-chat') {
      if (typeof d.error === 'string') r.errors.push({ code: 'provider_error', message: d.error });
      else if (d.error)
        r.errors.push({
          code: (typeof d.error.code === 'string' && d.error.code) || d.error.type || String(d.error.code),
          message: d.error.message,
        });
      const delta = d.choices?.[0]?.delta ?? {};
      if (Array.isArray(delta.content)) {
        // Mistral: text and thinking chunks.
        for (const c of delta.content) {
          if (c.type === 'text') r.text += c.text ?? '';
          if (c.type === 'thinking') r.reasoning += (c.thinking ?? []).map((t) => t.text ?? '').join('');
        }
      } else {
        r.text += delta.content ?? '';
      }
      r.reasoning +=
        delta.reasoning_content ?? delta.reasoning ?? (delta.reasoning_details ?? []).map((x) => x.text ?? x.summary ?? '').join('');
      for (const t of delta.tool_calls ?? []) {
        // A call is the one its id names, else the one its index names, else the latest.
        const known = t.id ? r.tools.get(`id:${t.id}`) : t.index != null ? byIndex.get(t.index) : latest;
        const x = known ?? tool(t.id ? `id:${t.id}` : `n:${r.tools.size}`);
        if (t.index != null) byIndex.set(t.index, x);
        latest = x;
        x.name += t.function?.name ?? '';
        x.args += t.function?.arguments ?? '';
      }
    } else if (provider === 'openai-responses') {
      if (d.type === 'response.created') r.xai = String(d.response?.model ?? '').startsWith('grok');
      if (d.type === 'response.output_text.delta') r.text += d.delta;
      if (d.type === 'response.reasoning_summary_text.delta') r.reasoning += d.delta;
      if (d.type === 'response.output_item.added' && ['function_call', 'custom_tool_call'].includes(d.item.type)) {
        tool(d.output_index, { name: r.xai ? (XAI_TOOL[d.item.name] ?? d.item.name) : d.item.name });
      }
      // Built-in tools the provider runs: the tool's name and what it did.
      if (d.type === 'response.output_item.added' && d.item.type === 'web_search_call') tool(d.output_index, { name: 'web_search' });
      if (d.type === 'response.output_item.done' && d.item.type === 'web_search_call') {
        tool(d.output_index).args = r.xai ? (d.item.arguments ?? '{}') : JSON.stringify(d.item.action ?? {});
      }
      // Built-in tools the client runs, and the provider's others: the input their tools read.
      const builtIn = d.type === 'response.output_item.done' ? responsesInput(d.item) : null;
      if (builtIn) tool(d.output_index, builtIn);
      if (d.type === 'response.custom_tool_call_input.done') tool(d.output_index).args = r.xai ? d.input : JSON.stringify(d.input);
      if (d.type === 'response.function_call_arguments.delta') tool(d.output_index).args += d.delta;
      if (d.type === 'response.failed') r.errors.push({ code: d.response.error.code, message: d.response.error.message });
      if (d.type === 'error') r.errors.push({ code: d.code ?? d.error?.code, message: d.message ?? d.error?.message });
    } else if (provider === 'anthropic') {
      if (d.type === 'error') r.errors.push({ code: d.error.type, message: d.error.message });
      if (d.type === 'content_block_start' && ['tool_use', 'server_tool_use'].includes(d.content_block.type)) {
        // A non-empty input in the start block is the whole input (web_fetch sends it there).
        const input = d.content_block.input;
        tool(d.index, { name: d.content_block.name, ...(input && Object.keys(input).length ? { args: JSON.stringify(input) } : {}) });
      }
      // Blocks already whole in message_start.
      (d.type === 'message_start' ? (d.message.content ?? []) : []).forEach((b, i) => {
        if (b.type === 'text') r.text += b.text;
        if (b.type === 'tool_use') tool(i, { name: b.name, args: JSON.stringify(b.input ?? {}) });
      });
      if (d.type === 'content_block_delta') {
        r.text += d.delta.text ?? '';
        r.reasoning += d.delta.thinking ?? '';
        if (d.delta.partial_json !== undefined) tool(d.index).args += d.delta.partial_json;
      }
    } else if (provider === 'cohere') {
      const m = d.delta?.message ?? {};
      if (d.type === 'content-delta') {
        r.text += m.content?.text ?? '';
        r.reasoning += m.content?.thinking ?? '';
      }
      if (d.type === 'tool-plan-delta') r.reasoning += m.tool_plan ?? '';
      if (d.type === 'tool-call-start') tool(d.index, { name: m.tool_calls.function.name, args: m.tool_calls.function.arguments ?? '' });
      if (d.type === 'tool-call-delta') tool(d.index).args += m.tool_calls.function.arguments ?? '';
      if (d.type === 'message-end' && d.delta.error) r.errors.push({ code: 'provider_error', message: d.delta.error });
    } else if (provider === 'gemini') {
      if (d.error) r.errors.push({ code: d.error.status, message: d.error.message });
      if (d.promptFeedback?.blockReason) r.errors.push({ code: d.promptFeedback.blockReason, message: 'blocked' });
      for (const p of d.candidates?.[0]?.content?.parts ?? []) {
        if (p.thought) r.reasoning += p.text ?? '';
        else r.text += p.text ?? '';
        const f = p.functionCall;
        if (f && (f.partialArgs || f.willContinue || streaming)) {
          // Arguments streamed as partialArgs: values set at their JSON paths.
          if (f.name || !streaming) streaming = { name: f.name ?? '', args: {}, key: r.tools.size };
          for (const a of f.partialArgs ?? []) {
            const value = a.stringValue ?? a.numberValue ?? a.boolValue ?? (a.nullValue !== undefined ? null : undefined);
            setPath(streaming.args, a.jsonPath, value, a.stringValue !== undefined);
          }
          tool(streaming.key, { name: streaming.name });
          if (!f.willContinue) {
            tool(streaming.key).args = JSON.stringify(streaming.args);
            streaming = null;
          }
        } else if (f) {
          tool(r.tools.size, { name: f.name, args: JSON.stringify(f.args ?? {}) });
        }
        if (p.executableCode) tool(r.tools.size, { name: 'code_execution', args: JSON.stringify(p.executableCode) });
        // Built-in tools the provider runs, named by their tool type.
        if (p.toolCall) tool(r.tools.size, { name: p.toolCall.toolType, args: JSON.stringify(p.toolCall.args ?? {}) });
      }
    } else if (provider === 'gemini-interactions') {
      // Steps by their index: text, thought summaries, client and built-in tool calls.
      if (d.event_type === 'error') r.errors.push({ code: d.error?.code ?? 'provider_error', message: d.error?.message ?? '' });
      const s = d.event_type === 'step.start' ? d.step : null;
      if (s?.type === 'model_output')
        r.text += (s.content ?? [])
          .filter((c) => c.type === 'text')
          .map((c) => c.text)
          .join('');
      if (s?.type === 'thought')
        r.reasoning += (s.summary ?? [])
          .filter((c) => c.type === 'text')
          .map((c) => c.text)
          .join('');
      if (s?.type === 'function_call') tool(d.index, { name: s.name, whole: JSON.stringify(s.arguments ?? {}) });
      else if (s?.type.endsWith('_call')) tool(d.index, { name: s.type.replace(/_call$/, ''), args: JSON.stringify(s.arguments ?? {}) });
      const x = d.event_type === 'step.delta' ? d.delta : {};
      if (x.type === 'text') r.text += x.text;
      if (x.type === 'thought_summary' && x.content?.type === 'text') r.reasoning += x.content.text;
      if (x.type === 'arguments_delta') tool(d.index).args += x.arguments ?? '';
      if (x.type?.endsWith('_call') && x.arguments) tool(d.index).args = JSON.stringify(x.arguments);
      if (d.event_type === 'step.stop' && r.tools.get(d.index)?.args === '') r.tools.get(d.index).args = r.tools.get(d.index).whole;
    }
  }
  return r;
}

const jsonString = (body) => {
  // A JSON string body that may be cut: drop a trailing partial escape, then decode.
  for (let cut = body.length; cut >= body.length - 6 && cut >= 0; cut--) {
    try {
      return JSON.parse(`"${body.slice(0, cut)}"`);
    } catch {
      // try a shorter prefix
    }
  }
  return '';
};

/** The block text between the nonce tags. */
const block = (text, name, nonce) => {
  const open = `[${name}:${nonce}]`;
  const i = text.indexOf(open);
  if (i < 0) return '';
  const j = text.indexOf(`[/${name}:${nonce}]`, i);
  return text.slice(i + open.length, j < 0 ? undefined : j);
};

/**
 * The expected panels of a sample `{ provider, content, text }` (nonce: the tag nonce):
 * `{ answer, reasoning, thought, artifact, user, tools: [{ name, args }], errors, ok,
 *    nextNode, final: null | { raw_answer, confidence, sources, suggested_actions, warnings, artifacts } }`.
 */
export function expectedPanels(sample, nonce) {
  const r = read(sample.provider, sample.text, sample.bytes);
  const out = {
    answer: '',
    reasoning: r.reasoning,
    thought: '',
    artifact: '',
    user: '',
    errors: r.errors,
    tools: [...r.tools.values()].map((t) => ({ name: t.name, args: JSON.parse(t.args || t.whole || '{}') })),
    ok: r.errors.length === 0,
    nextNode: null,
    final: null,
  };
  if (sample.content === 'text') {
    out.answer = r.text;
    if (out.ok && !out.tools.length && r.text)
      out.final = { raw_answer: r.text, confidence: null, sources: [], suggested_actions: [], warnings: [], artifacts: {} };
  } else if (sample.content === 'tagged') {
    out.artifact = block(r.text, 'ARTIFACT', nonce);
    out.user = block(r.text, 'USER', nonce);
  } else {
    // action-json: the first object after any <think> block; a cut stream is read up to the cut.
    const body = r.text.replace(/<think>[\s\S]*?<\/think>/g, '');
    const json = body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1);
    let action = null;
    try {
      action = JSON.parse(json);
    } catch {
      // a truncated action: read its fields with patterns below
    }
    const field = (re) => (re.exec(body) ? jsonString(re.exec(body)[1]) : null);
    out.nextNode = action ? action.next_node : field(/"next_node"\s*:\s*"((?:[^"\\]|\\.)*)"/);
    out.thought = (action ? action.thought : field(/"thought"\s*:\s*"((?:[^"\\]|\\.)*)"/)) ?? '';
    if (out.nextNode === 'final_response') {
      out.answer = action ? action.args.answer : (field(/"answer"\s*:\s*"((?:[^"\\]|\\.)*)/) ?? '');
      if (out.ok && action) {
        const a = action.args;
        out.final = {
          raw_answer: a.answer,
          confidence: a.confidence ?? null,
          sources: a.sources ?? [],
          suggested_actions: a.suggested_actions ?? [],
          warnings: a.warnings ?? [],
          artifacts: a.artifacts ?? {},
        };
      }
    }
  }
  return out;
}
