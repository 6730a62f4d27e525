// The panels of the demo page, drawn from a Session's state: the package's StreamState
// snapshot (which only routed events fed) plus the page's payload notes.
// Each function returns the children of one panel's body, so the live page and the
// chunk-boundary explorer draw the very same DOM and can compare it.
import { chart, h, isChartOption, markdown, safeUrl } from './render.mjs';
import { toolRows } from './session.mjs';

export const PANELS = ['answer', 'thinking', 'artifact', 'discussion', 'tools', 'final'];

const empty = (text) => h('p', { class: 'empty' }, text);

function answer(s) {
  const out = [];
  if (s.errors.length) {
    out.push(
      h(
        'ul',
        { class: 'banner error', role: 'alert', 'data-testid': 'errors' },
        s.errors.map((e) => h('li', {}, h('code', {}, e.code), ' ', e.message)),
      ),
    );
  }
  // Commentary (what the model says while it works, before its final answer) leads the answer.
  const text = (s.commentary ?? '') + s.answer;
  out.push(text ? h('div', { class: 'text', 'data-testid': 'answer' }, text) : empty('No answer text yet.'));
  return out;
}

function thinking(s) {
  const out = [];
  const { reasoning, thought } = s.thinking;
  if (reasoning) out.push(h('h3', {}, 'Reasoning'), h('div', { class: 'text', 'data-testid': 'reasoning' }, reasoning));
  if (thought) out.push(h('h3', {}, 'Thought'), h('div', { class: 'text', 'data-testid': 'thought' }, thought));
  return out.length ? out : [empty('No reasoning in this stream.')];
}

function artifactBody(a) {
  const last = a.chunks.at(-1);
  if (isChartOption(last)) return chart(last);
  if (a.chunks.every((c) => typeof c === 'string')) return h('div', { class: 'md' }, markdown(a.chunks.join('')));
  return h('pre', {}, JSON.stringify(last, null, 2));
}

function artifact(s) {
  const out = [];
  if (s.artifactText) out.push(h('div', { class: 'md', 'data-testid': 'artifact-md' }, markdown(s.artifactText)));
  for (const [id, a] of Object.entries(s.artifacts)) {
    const gaps = a.gaps.length ? `, missing seq ${a.gaps.join(', ')}` : '';
    out.push(
      h(
        'figure',
        { class: 'artifact', 'data-stream-id': id },
        artifactBody(a),
        h(
          'figcaption',
          {},
          `artifact_chunk ${id} (${a.artifact_type}, ${a.chunks.length} chunk${a.chunks.length === 1 ? '' : 's'}${a.done ? ', done' : ''}${gaps})`,
        ),
      ),
    );
  }
  return out.length ? out : [empty('No artifact in this stream.')];
}

function discussion(s) {
  return [
    s.userText ? h('div', { class: 'text', 'data-testid': 'user' }, s.userText) : empty('No user block (tagged mode) in this stream.'),
  ];
}

function tool(t, repaired) {
  // A string still being written shows without its closing quote (and a caret).
  const shown = (v, kind) => (kind === 'raw' ? JSON.stringify(v) : kind === 'open' ? JSON.stringify(v).slice(0, -1) : JSON.stringify(v));
  const rows = toolRows(t).map(([k, v, kind]) => h('div', { class: 'row' }, h('dt', {}, k), h('dd', { class: kind }, shown(v, kind))));
  const complete = t.state !== 'input-streaming';
  const status = complete ? (repaired ? 'complete · repaired' : 'complete') : 'streaming…';
  return h(
    'li',
    { class: 'tool', 'data-tool-index': t.index },
    h(
      'div',
      { class: 'tool-head' },
      h('code', { class: 'tool-name' }, t.name),
      ' ',
      h('span', { class: 'muted' }, t.id),
      ' ',
      h('span', { class: `pill ${complete ? 'ok' : 'live'}` }, status),
    ),
    rows.length ? h('dl', { class: 'rows' }, rows) : null,
    complete ? h('pre', { class: 'tool-args' }, JSON.stringify(t.arguments, null, 2)) : h('pre', { class: 'tool-raw' }, t.argumentsText),
  );
}

function tools(s) {
  if (!s.toolCalls.length) return [empty('No tool calls in this stream.')];
  return [
    h(
      'ol',
      { class: 'tools' },
      s.toolCalls.map((t) => tool(t, s.repaired?.has(t.index))),
    ),
  ];
}

function confidenceBadge(c) {
  if (c === null || c === undefined) return h('span', { class: 'badge none', 'data-testid': 'confidence' }, 'confidence n/a');
  const level = c >= 0.8 ? 'high' : c >= 0.5 ? 'medium' : 'low';
  return h('span', { class: `badge ${level}`, 'data-testid': 'confidence', 'data-value': c }, `${Math.round(c * 100)}% ${level}`);
}

function final(s) {
  const out = [];
  const a = s.action;
  if (a && a.next_node !== 'final_response' && a.next_node !== null) {
    out.push(
      h(
        'p',
        { class: 'step', 'data-testid': 'next-step' },
        'Next step: ',
        h('code', {}, a.next_node),
        ' ',
        h('code', { class: 'muted' }, JSON.stringify(a.args)),
      ),
    );
  }
  if (!s.done) return out.length ? out : [empty('Waiting for the end of the stream…')];
  const d = s.done;
  out.push(
    h(
      'p',
      { class: 'status', 'data-testid': 'done' },
      h('span', { class: `pill ${d.ok ? 'ok' : 'bad'}` }, d.ok ? 'done' : 'failed'),
      ` finish_reason: ${d.finish_reason ?? 'none'} · parse_ok: ${d.parse_ok}`,
    ),
  );
  const p = s.payload;
  if (!p) {
    const n = s.toolCalls.length;
    const why = !d.ok
      ? 'the stream failed'
      : n
        ? `the turn ends in ${n} tool call${n > 1 ? 's' : ''}`
        : a
          ? 'the action is not a final response'
          : 'no answer';
    out.push(empty(`No FinalPayload: ${why}.`));
    return out;
  }
  const warnings = [...p.warnings, ...s.payloadWarnings];
  if (warnings.length)
    out.push(
      h(
        'ul',
        { class: 'banner warn', role: 'status', 'data-testid': 'warnings' },
        warnings.map((w) => h('li', {}, w)),
      ),
    );
  out.push(
    h(
      'div',
      { class: 'payload-head' },
      confidenceBadge(p.confidence),
      p.route ? h('span', { class: 'pill' }, `route: ${p.route}`) : null,
      p.language ? h('span', { class: 'pill' }, `lang: ${p.language}`) : null,
      p.requires_followup ? h('span', { class: 'pill live' }, 'needs follow-up') : null,
    ),
  );
  out.push(h('div', { class: 'text raw-answer', 'data-testid': 'raw-answer' }, p.raw_answer));
  if (p.sources.length) {
    out.push(
      h('h3', {}, 'Sources'),
      h(
        'ol',
        { class: 'sources', 'data-testid': 'sources' },
        p.sources.map((src) => {
          const href = src.url ? safeUrl(src.url) : null;
          return h(
            'li',
            {},
            href ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, src.title) : src.title,
            src.snippet ? h('span', { class: 'muted' }, ` — ${src.snippet}`) : null,
          );
        }),
      ),
    );
  }
  if (p.suggested_actions.length) {
    out.push(
      h('h3', {}, 'Suggested actions'),
      h(
        'div',
        { class: 'actions', 'data-testid': 'actions' },
        p.suggested_actions.map((x) =>
          h(
            'button',
            { type: 'button', class: 'action', 'data-action-id': x.action_id, 'data-params': JSON.stringify(x.params ?? {}) },
            x.label,
          ),
        ),
      ),
    );
  }
  out.push(
    h(
      'p',
      { class: 'muted small', 'data-testid': 'payload-source' },
      s.payloadSource === 'buildFinalPayload'
        ? 'Built by the package’s buildFinalPayload from the final action.'
        : 'Built in the page from the final action’s args (this build of the package has no buildFinalPayload).',
    ),
  );
  return out;
}

const DRAW = { answer, thinking, artifact, discussion, tools, final };

/** Draws every panel of `state` into `targets[name]` (elements whose children are replaced). */
export function drawPanels(state, targets) {
  for (const name of PANELS) targets[name].replaceChildren(...DRAW[name](state));
}

/** Every panel drawn into detached elements: `{ name: html }`. */
export function panelHtml(state) {
  const out = {};
  for (const name of PANELS) {
    const el = document.createElement('div');
    el.append(...DRAW[name](state));
    out[name] = el.innerHTML;
  }
  return out;
}
