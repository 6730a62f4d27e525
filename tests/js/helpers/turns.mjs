// Hand-built routed events of one response per provider, covering every continuation kind, and
// the assistant turn `assistantTurn` must make of each (turn.test.mjs checks the objects,
// sdk-types.test.mjs checks them against the official SDKs' request types). Also the tool
// result a client sends after each turn, in that provider's shape.

const usage = { type: 'usage', input_tokens: 12, output_tokens: 34, total_tokens: 46 };
const done = (finish_reason, finish) => ({ type: 'done', ok: true, parse_ok: true, finish_reason, finish });
const call = (index, id, name, args, more = {}) => [
  { type: 'tool_call_start', index, id, name, provider_executed: false, ...more },
  { type: 'tool_call_delta', index, arguments: JSON.stringify(args) },
  { type: 'tool_call', index, id, name, arguments: args, repaired: false, provider_executed: false, ...more },
];
const serverCall = (index, id, name, args) => [
  { type: 'tool_call_start', index, id, name, provider_executed: true },
  { type: 'tool_call', index, id, name, arguments: args, repaired: false, provider_executed: true },
];

const searchResults = [
  {
    type: 'web_search_result',
    url: 'https://example.com/paris',
    title: 'Paris weather',
    encrypted_content: 'EqQBCkgIARABGAIiQP',
    page_age: null,
  },
];

/** { name, provider, events, turn, result?: the tool result message (or item) after it, beta? } */
export const TURNS = [
  {
    name: 'anthropic: thinking, redacted thinking, server tool and client tool with caller',
    provider: 'anthropic',
    events: [
      { type: 'thinking_delta', text: 'The user wants ', source: 'reasoning' },
      { type: 'thinking_delta', text: 'the weather.', source: 'reasoning' },
      { type: 'continuation', kind: 'thinking_signature', signature: 'EuYBCkQYAiJAk2s=' },
      { type: 'continuation', kind: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
      { type: 'answer_delta', text: 'Let me ' },
      { type: 'answer_delta', text: 'search.' },
      ...serverCall(3, 'srvtoolu_01', 'web_search', { query: 'weather Paris' }),
      { type: 'source', id: null, url: 'https://example.com/paris', title: 'Paris weather', snippet: null },
      { type: 'tool_result', index: 3, id: 'srvtoolu_01', name: 'web_search', result: searchResults, provider_executed: true },
      // An MCP call: the provider ran it; the Messages API does not take it back.
      ...serverCall(4, 'mcptoolu_01', 'search_docs', { q: 'x' }),
      {
        type: 'tool_result',
        index: 4,
        id: 'mcptoolu_01',
        name: 'search_docs',
        result: [{ type: 'text', text: 'doc' }],
        provider_executed: true,
      },
      ...call(5, 'toolu_01', 'get_weather', { city: 'Paris' }, { caller: { type: 'direct' } }),
      { type: 'container', id: 'container_011', expires_at: '2026-11-28T16:00:00Z' },
      usage,
      done('tool_use', 'tool_calls'),
    ],
    turn: [
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user wants the weather.', signature: 'EuYBCkQYAiJAk2s=' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
          { type: 'text', text: 'Let me search.' },
          { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'weather Paris' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: searchResults },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' } },
        ],
      },
    ],
    result: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '18 °C, cloudy' }] },
  },
  {
    name: 'anthropic: a compaction block, then thinking and text',
    provider: 'anthropic',
    beta: true,
    events: [
      { type: 'compaction', text: 'Earlier: the user planned a trip ' },
      { type: 'compaction', text: 'to Paris.' },
      { type: 'continuation', kind: 'compaction', encrypted_content: 'Ep8CCkYIBxgCKkC' },
      { type: 'thinking_delta', text: 'Answer from the summary.', source: 'reasoning' },
      { type: 'continuation', kind: 'thinking_signature', signature: 'EqQBCkgIARAB' },
      { type: 'answer_delta', text: 'You are going to Paris.' },
      done('end_turn', 'stop'),
    ],
    turn: [
      {
        role: 'assistant',
        content: [
          { type: 'compaction', content: 'Earlier: the user planned a trip to Paris.', encrypted_content: 'Ep8CCkYIBxgCKkC' },
          { type: 'thinking', thinking: 'Answer from the summary.', signature: 'EqQBCkgIARAB' },
          { type: 'text', text: 'You are going to Paris.' },
        ],
      },
    ],
  },
  {
    name: 'openai-responses: reasoning item, message ids and phases, function call item, compaction',
    provider: 'openai-responses',
    events: [
      { type: 'thinking_delta', text: 'Checking the forecast.', source: 'reasoning' },
      {
        type: 'continuation',
        kind: 'reasoning',
        id: 'rs_01',
        summary: [{ type: 'summary_text', text: 'Checking the forecast.' }],
        encrypted_content: 'gAAAAABo1',
      },
      { type: 'answer_delta', text: 'I will look ', phase: 'commentary' },
      { type: 'answer_delta', text: 'it up.', phase: 'commentary' },
      { type: 'continuation', kind: 'item', item_type: 'message', id: 'msg_01' },
      ...call(2, 'call_abc', 'get_weather', { city: 'Paris' }),
      { type: 'continuation', kind: 'item', item_type: 'function_call', id: 'fc_01', call_id: 'call_abc', index: 2 },
      ...serverCall(3, 'ws_01', 'web_search', { query: 'weather Paris' }),
      { type: 'continuation', kind: 'compaction', id: 'cmp_01', encrypted_content: 'gAAAAABo2' },
      { type: 'answer_delta', text: 'Checked.', phase: 'final_answer' },
      { type: 'continuation', kind: 'item', item_type: 'message', id: 'msg_02' },
      usage,
      done('completed', 'stop'),
    ],
    turn: [
      {
        type: 'reasoning',
        id: 'rs_01',
        summary: [{ type: 'summary_text', text: 'Checking the forecast.' }],
        encrypted_content: 'gAAAAABo1',
      },
      {
        type: 'message',
        id: 'msg_01',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'I will look it up.', annotations: [] }],
        phase: 'commentary',
      },
      { type: 'function_call', call_id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}', id: 'fc_01' },
      { type: 'compaction', id: 'cmp_01', encrypted_content: 'gAAAAABo2' },
      {
        type: 'message',
        id: 'msg_02',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Checked.', annotations: [] }],
        phase: 'final_answer',
      },
    ],
    result: { type: 'function_call_output', call_id: 'call_abc', output: '18 °C, cloudy' },
  },
  {
    name: 'openai-responses: text without item ids, a call with a caller',
    provider: 'openai-responses',
    events: [
      { type: 'answer_delta', text: 'Looking it up.' },
      ...call(1, 'call_def', 'get_time', { tz: 'Europe/Paris' }, { caller: { type: 'direct' } }),
      done('completed', 'tool_calls'),
    ],
    turn: [
      { type: 'message', role: 'assistant', content: 'Looking it up.' },
      { type: 'function_call', call_id: 'call_def', name: 'get_time', arguments: '{"tz":"Europe/Paris"}', caller: { type: 'direct' } },
    ],
    result: { type: 'function_call_output', call_id: 'call_def', output: '14:05' },
  },
  {
    name: 'openai-responses: a custom tool call, its input free text',
    provider: 'openai-responses',
    events: [
      { type: 'tool_call_start', index: 0, id: 'call_sql', name: 'write_sql', provider_executed: false },
      { type: 'tool_call_delta', index: 0, arguments: '"SELECT 1"' },
      { type: 'tool_call', index: 0, id: 'call_sql', name: 'write_sql', arguments: 'SELECT 1', repaired: false, provider_executed: false },
      done('completed', 'tool_calls'),
    ],
    turn: [{ type: 'custom_tool_call', call_id: 'call_sql', name: 'write_sql', input: 'SELECT 1' }],
    result: { type: 'custom_tool_call_output', call_id: 'call_sql', output: '1' },
  },
  {
    name: 'openai-responses: an MCP call waiting for the user to approve it',
    provider: 'openai-responses',
    events: [
      ...serverCall(0, 'mcpr_01', 'shorten_url', { url: 'https://example.com/a', max_clicks: 3 }),
      {
        type: 'continuation',
        kind: 'tool_approval_request',
        approvalId: 'mcpr_01',
        toolCallId: 'mcpr_01',
        index: 0,
        server_label: 'links',
      },
      usage,
      done('completed', 'stop'),
    ],
    turn: [
      {
        type: 'mcp_approval_request',
        id: 'mcpr_01',
        name: 'shorten_url',
        arguments: '{"url":"https://example.com/a","max_clicks":3}',
        server_label: 'links',
      },
    ],
    result: { type: 'mcp_approval_response', approval_request_id: 'mcpr_01', approve: true },
  },
  {
    name: 'openai-chat: text and two calls',
    provider: 'openai-chat',
    events: [
      { type: 'thinking_delta', text: 'Two cities.', source: 'reasoning' },
      { type: 'answer_delta', text: 'Let me check both.' },
      ...call(0, 'call_1', 'get_weather', { city: 'Paris' }),
      ...call(1, 'call_2', 'get_weather', { city: 'Rome' }),
      usage,
      done('tool_calls', 'tool_calls'),
    ],
    turn: [
      {
        role: 'assistant',
        content: 'Let me check both.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
    ],
    result: { role: 'tool', tool_call_id: 'call_1', content: '18 °C' },
  },
  {
    name: 'openai-chat: calls only (content null)',
    provider: 'openai-chat',
    events: [...call(0, 'call_9', 'get_time', {}), done('tool_calls', 'tool_calls')],
    turn: [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
      },
    ],
    result: { role: 'tool', tool_call_id: 'call_9', content: '14:05' },
  },
  {
    name: 'gemini: thought and text signatures, a signed function call, a call with its own id',
    provider: 'gemini',
    events: [
      { type: 'thinking_delta', text: 'Think about ', source: 'reasoning' },
      { type: 'thinking_delta', text: 'the city.', source: 'reasoning' },
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'CiQB0e2Kb1', part: 'thought' },
      { type: 'answer_delta', text: 'Checking ' },
      { type: 'answer_delta', text: 'now.' },
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'CiQB0e2Kb2', part: 'text' },
      // The router's id (Gemini sent none) is not sent back.
      ...call(0, 'call_0', 'get_weather', { city: 'Paris' }),
      { type: 'continuation', kind: 'thought_signature', thoughtSignature: 'CiQB0e2Kb3', index: 0 },
      ...call(1, 'fc-7b1e', 'get_time', { tz: 'Europe/Paris' }),
      ...serverCall(2, 'call_2', 'code_execution', { code: 'print(1)' }),
      {
        type: 'tool_result',
        index: 2,
        id: 'call_2',
        name: 'code_execution',
        result: { outcome: 'OUTCOME_OK', output: '1\n' },
        provider_executed: true,
      },
      usage,
      { ...done('STOP', 'tool_calls'), finish_message: 'done' },
    ],
    turn: [
      {
        role: 'model',
        parts: [
          { text: 'Think about the city.', thought: true, thoughtSignature: 'CiQB0e2Kb1' },
          { text: 'Checking now.', thoughtSignature: 'CiQB0e2Kb2' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQB0e2Kb3' },
          { functionCall: { name: 'get_time', args: { tz: 'Europe/Paris' }, id: 'fc-7b1e' } },
        ],
      },
    ],
    result: { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 18 } } }] },
  },
  {
    name: 'bedrock: signed reasoning, redacted reasoning, text and a tool use',
    provider: 'bedrock',
    events: [
      { type: 'thinking_delta', text: 'Weigh the options.', source: 'reasoning' },
      { type: 'continuation', kind: 'thinking_signature', signature: 'ErcBCkgIAhAB' },
      { type: 'continuation', kind: 'redacted_thinking', redactedContent: 'cmVkYWN0ZWQ=' },
      { type: 'answer_delta', text: 'Let me check.' },
      ...call(2, 'tooluse_01', 'get_weather', { city: 'Paris' }),
      usage,
      done('tool_use', 'tool_calls'),
    ],
    turn: [
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'Weigh the options.', signature: 'ErcBCkgIAhAB' } } },
          { reasoningContent: { redactedContent: 'cmVkYWN0ZWQ=' } },
          { text: 'Let me check.' },
          { toolUse: { toolUseId: 'tooluse_01', name: 'get_weather', input: { city: 'Paris' } } },
        ],
      },
    ],
    result: { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_01', content: [{ json: { temperature: 18 } }] } }] },
  },
  {
    name: 'ollama: thinking, text and a call',
    provider: 'ollama',
    events: [
      { type: 'thinking_delta', text: 'Need the weather.', source: 'reasoning' },
      { type: 'answer_delta', text: 'Checking.' },
      ...call(0, 'call_0', 'get_weather', { city: 'Paris' }),
      done('stop', 'tool_calls'),
    ],
    turn: [
      {
        role: 'assistant',
        content: 'Checking.',
        thinking: 'Need the weather.',
        tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }],
      },
    ],
    result: { role: 'tool', tool_name: 'get_weather', content: '18 °C' },
  },
];
