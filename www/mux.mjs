// The demo page's second panel: one planner connection that carries several streams (a chat
// answer, two background tasks, two artifact streams), replayed in network-sized pieces
// through the package's fromSse("planner") and split by StreamMux into one StreamState per
// stream. Each card is drawn from its stream's snapshot only.
import { h, markdown } from './render.mjs';

/** The mux key: artifact chunks by their stream, everything else by its session. */
export const muxKey = (e) => (e.type === 'artifact_chunk' ? `artifact ${e.stream_id}` : e.session_id);

function card(key, snap, ended) {
  const body = [];
  if (snap.thinking.reasoning) body.push(h('p', { class: 'muted small' }, snap.thinking.reasoning));
  if (snap.answer) body.push(h('div', { class: 'text', 'data-testid': 'mux-answer' }, snap.answer));
  for (const t of snap.toolCalls) {
    body.push(
      h('p', { class: 'small' }, h('code', {}, t.name), ' ', h('code', { class: 'muted' }, JSON.stringify(t.partialArguments ?? {}))),
    );
  }
  for (const [id, a] of Object.entries(snap.artifacts)) {
    const text = a.chunks.every((c) => typeof c === 'string');
    body.push(
      text
        ? h('div', { class: 'md' }, markdown(a.chunks.join('')))
        : h(
            'ul',
            { class: 'small' },
            a.chunks.map((c) => h('li', {}, JSON.stringify(c))),
          ),
    );
    body.push(
      h(
        'p',
        { class: 'muted small', 'data-testid': 'mux-artifact' },
        `${id}: ${a.chunks.length} chunk${a.chunks.length === 1 ? '' : 's'}, seq ≤ ${a.seq}${a.done ? ', done' : ''}${a.gaps.length ? `, waiting for seq ${a.gaps.join(', ')}` : ''}`,
      ),
    );
  }
  for (const e of snap.errors) body.push(h('p', { class: 'banner error small' }, h('code', {}, e.code), ' ', e.message));
  const pill = snap.status === 'error' ? 'bad' : ended ? 'ok' : 'live';
  return h(
    'article',
    { class: 'mux-stream', 'data-key': key, 'data-status': snap.status, 'data-ended': String(ended) },
    h(
      'h3',
      {},
      h('code', {}, key),
      ' ',
      h('span', { class: `pill ${pill}` }, ended ? (snap.status === 'streaming' ? 'complete' : snap.status) : 'streaming…'),
    ),
    body.length ? body : h('p', { class: 'empty' }, 'Nothing yet.'),
  );
}

/** Wires the panel: `root` holds `#mux-play`, `#mux-status` and `#mux-streams`. */
export function setupMux(sr, root) {
  const $ = (sel) => root.querySelector(sel);
  let run = 0;
  const draw = (mux) => $('#mux-streams').replaceChildren(...mux.keys().map((k) => card(k, mux.get(k).snapshot(), mux.ended(k))));

  async function replay() {
    const me = ++run;
    const bytes = new Uint8Array(await (await fetch('./mux/planner-mux.sse')).arrayBuffer());
    const mux = new sr.StreamMux({ key: muxKey });
    // biome-ignore lint/correctness/noUnusedVariables: read by `||=`, one animation frame at a time
    let frame = 0;
    const schedule = () => {
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        if (me === run) draw(mux);
      });
    };
    mux.subscribe((change) => {
      if (change.type === 'added') change.state.subscribe(schedule);
      schedule();
    });
    root.dataset.mux = 'playing';
    $('#mux-status').textContent = 'Replaying one connection…';
    const ts = sr.fromSse('planner');
    const writer = ts.writable.getWriter();
    const reading = (async () => {
      for await (const e of ts.readable) if (me === run) mux.apply(e);
    })();
    for (let i = 0, n = 0; i < bytes.length && me === run; i += n) {
      n = 40 + ((i * 7919) % 90); // network-sized pieces that cut frames anywhere
      await writer.write(bytes.subarray(i, i + n));
      await new Promise((r) => setTimeout(r, 25));
    }
    await writer.close();
    await reading;
    if (me !== run) return;
    draw(mux);
    mux.free();
    root.dataset.mux = 'done';
    const ended = mux.keys().filter((k) => mux.ended(k)).length;
    $('#mux-status').textContent = `${mux.keys().length} streams on one connection, ${ended} ended.`;
  }

  $('#mux-play').addEventListener('click', () =>
    replay().catch((err) => {
      $('#mux-status').textContent = `Replay failed: ${err.code ?? ''} ${err.message}`;
    }),
  );
}
