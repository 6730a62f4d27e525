// Writes www/streams/openai-chat-sales.sse: the demo's sales turn (the final-payload RFC's
// Appendix A) as an OpenAI Chat Completions stream. The model streams a planner action whose
// final args carry a confidence, sources, suggested actions, a warning and an ECharts option
// under `artifacts`. Deterministic: run `node www/streams/make-sales.mjs` from the repository
// root to regenerate it.
import { writeFileSync } from 'node:fs';

const action = {
  thought: 'The sales tool returned Q4 figures; summarise them and attach the chart.',
  next_node: 'final_response',
  args: {
    answer:
      'Your Q4 2024 sales reached $1.23M, up 15.2% year over year. ' +
      'Top performers were Widget Pro, Gadget Plus and Service Bundle; December was the strongest month.',
    confidence: 0.92,
    route: 'analytics',
    sources: [
      { title: 'Q4 2024 sales ledger', url: 'https://example.com/reports/q4-2024', snippet: '847 orders, $1,234,567.89' },
      { title: 'Product catalogue', url: 'https://example.com/catalogue' },
    ],
    suggested_actions: [
      { action_id: 'export_csv', label: 'Export raw data', params: { format: 'csv' } },
      { action_id: 'compare_quarters', label: 'Compare to Q3', params: { quarter: 'Q3' } },
    ],
    warnings: ['December figures are preliminary until the ledger closes.'],
    language: 'en',
    artifacts: {
      analyze_sales: {
        chart_options: {
          title: { text: 'Q4 2024 revenue by month (k$)' },
          tooltip: { trigger: 'axis' },
          xAxis: { type: 'category', data: ['Oct', 'Nov', 'Dec'] },
          yAxis: { type: 'value' },
          series: [
            { name: '2024', type: 'bar', data: [362, 398, 474] },
            { name: '2023', type: 'line', data: [318, 342, 411] },
          ],
        },
      },
    },
  },
};

// A deterministic generator, so the pieces (the "tokens") look like a model's: 1 to 7 chars.
let seed = 20241123;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const text = JSON.stringify(action, null, 1);
const pieces = [];
for (let i = 0; i < text.length; ) {
  const n = 1 + Math.floor(rand() * 7);
  pieces.push(text.slice(i, i + n));
  i += n;
}

const head = {
  id: 'chatcmpl-S4l3s',
  object: 'chat.completion.chunk',
  created: 1732350000,
  model: 'gpt-4o-2024-08-06',
  system_fingerprint: 'fp_5f20662549',
};
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
let out = chunk({ role: 'assistant', content: '' });
for (const p of pieces) out += chunk({ content: p });
out += chunk({}, 'stop');
out += `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 1480, completion_tokens: 236, total_tokens: 1716, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 0 } } })}\n\n`;
out += 'data: [DONE]\n\n';
writeFileSync(new URL('./openai-chat-sales.sse', import.meta.url), out);
