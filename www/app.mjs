// The demo page: pick a raw provider stream (bundled or your own), replay it with token
// timing through a StreamRouter, and watch the panels, the wire log and the timings. The
// package is imported by its name through the page's import map, as an app would.
import * as main from 'streamroute';
import * as client from 'streamroute/client';
// buildFinalPayload and ArtifactStream: the payload entry (a .wasm of its own).
import * as payload from 'streamroute/payload';
import { PANELS, drawPanels, panelHtml } from './panels.mjs';
import { Session } from './session.mjs';
import { setupMux } from './mux.mjs';

const $ = (sel) => document.querySelector(sel);
const ui = {
  stream: $('#stream'),
  profile: $('#profile'),
  speed: $('#speed'),
  play: $('#play'),
  step: $('#step'),
  restart: $('#restart'),
  status: $('#status'),
  meta: $('#meta'),
  log: $('#log'),
  logNote: $('#log-note'),
  perf: $('#perf'),
  runs: $('#runs'),
  explore: $('#explore'),
  explorer: $('#explorer'),
  summary: $('#explorer-summary'),
  customText: $('#custom-text'),
  customFile: $('#custom-file'),
  customProvider: $('#custom-provider'),
  customContent: $('#custom-content'),
  customNonce: $('#custom-nonce'),
  customLoad: $('#custom-load'),
  clicked: $('#clicked'),
};
const targets = Object.fromEntries(PANELS.map((p) => [p, $(`#${p} .body`)]));

await Promise.all([main.init(), client.init(), payload.init()]);
// The package as the page uses it: the main entry (the router, standing in for the server), the
// client entry's fold (what a page that only reads a wire imports) and the payload entry's API.
const sr = {
  ...main,
  StreamState: client.StreamState,
  StreamMux: client.StreamMux,
  fromSse: client.fromSse,
  buildFinalPayload: payload.buildFinalPayload,
  ArtifactStream: payload.ArtifactStream,
};
setupMux(sr, $('#mux'));

// ---------------------------------------------------------------------------------------
// The bundled streams: the library's samples, then the page's own.

async function manifest(dir) {
  const res = await fetch(`${dir}manifest.json`);
  if (!res.ok) throw new Error(`${dir}manifest.json: HTTP ${res.status}`);
  const m = await res.json();
  return m.streams.map((s) => ({ ...s, url: dir + s.file, nonce: s.nonce ?? m.nonce }));
}
const library = await manifest('./examples/streams/');
const NONCE = library.find((s) => s.nonce)?.nonce ?? '';
const STREAMS = [...library, ...(await manifest('./streams/')).map((s) => ({ ...s, nonce: s.nonce ?? NONCE }))];

const taggedAvailable = (() => {
  try {
    new sr.StreamRouter({ content: 'tagged', nonce: NONCE || 'x'.repeat(32) }).free();
    return true;
  } catch {
    return false;
  }
})();

for (const provider of [...new Set(STREAMS.map((s) => s.provider))]) {
  const group = document.createElement('optgroup');
  group.label = provider;
  for (const s of STREAMS.filter((x) => x.provider === provider)) {
    const o = new Option(`${s.file} (${s.content})`, s.file);
    if (s.content === 'tagged' && !taggedAvailable) o.textContent += ' — needs a build with tagged mode';
    group.append(o);
  }
  ui.stream.append(group);
}
ui.stream.append(new Option('your stream (paste or upload below)', '__custom'));
ui.customNonce.value = NONCE;

// ---------------------------------------------------------------------------------------
// Replay: the stream cut where a network would cut it (SSE events, sometimes merged or
// split), each piece after a token-like delay.

function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function packets(bytes, seed = 7) {
  const rand = rng(seed);
  const cuts = [];
  for (let i = 1; i < bytes.length; i++) {
    if (bytes[i] === 10 && (bytes[i - 1] === 10 || (bytes[i - 1] === 13 && bytes[i - 2] === 10))) cuts.push(i + 1);
  }
  if (cuts.length < 3) for (let i = 3; i < bytes.length; i += 2 + Math.floor(rand() * 6)) cuts.push(i);
  const out = [];
  let start = 0;
  for (const c of [...cuts, bytes.length]) {
    if (c <= start) continue;
    const r = rand();
    if (r < 0.15 && c < bytes.length) continue; // coalesced with the next piece
    if (r > 0.85 && c - start > 8) {
      const mid = start + 1 + Math.floor(rand() * (c - start - 1)); // a TCP split mid-event
      out.push(bytes.subarray(start, mid));
      start = mid;
    }
    out.push(bytes.subarray(start, c));
    start = c;
  }
  return out.map((b) => ({ bytes: b, delay: 12 + rand() * 60 }));
}

let source = null; // { name, bytes, provider, content, nonce }
let session = null;
let queue = [];
let next = 0;
let timer = null;
let playing = false;
let events = [];
let startedAt = 0;
let log = null;

const setStatus = (status, text) => {
  document.body.dataset.status = status;
  ui.status.textContent = text;
};

function reset() {
  pause();
  clearTimeout(timer);
  events = [];
  next = 0;
  session?.dispose();
  session = null;
  log?.cancel();
  log = null;
  if (!source) return;
  queue = packets(source.bytes);
  try {
    session = new Session(sr, source);
  } catch (err) {
    setStatus('error', `Cannot route ${source.name}: ${err.code ?? ''} ${err.message}`);
    drawPanels(new Session(sr, { provider: 'text' }).state, targets);
    return;
  }
  log = new SseLog(ui.profile.value);
  ui.meta.textContent = `${source.name} · ${source.bytes.length} bytes in ${queue.length} network chunks · content: ${source.content}`;
  setStatus('idle', 'Ready: press Play or Step.');
  render(true);
}

function feedNext() {
  if (!session || session.ended) return;
  if (next === 0) startedAt = performance.now();
  let out = next < queue.length ? session.feed(queue[next++].bytes) : [];
  if (next >= queue.length) out = out.concat(session.finish());
  events.push(...out);
  log.write(out);
  if (session.ended) {
    pause();
    log.close();
    setStatus('done', `Done: ${events.length} events.`);
  }
  render();
}

function tick() {
  if (!playing) return;
  const speed = ui.speed.value === 'max' ? Infinity : Number(ui.speed.value);
  if (speed === Infinity) {
    const until = performance.now() + 12; // a frame's worth of chunks, then let the page draw
    while (playing && performance.now() < until) feedNext();
    if (playing) timer = setTimeout(tick, 0);
    return;
  }
  feedNext();
  if (playing) timer = setTimeout(tick, queue[next]?.delay / speed || 0);
}

function play() {
  if (!session || session.ended) reset();
  if (!session) return;
  playing = true;
  ui.play.textContent = 'Pause';
  ui.play.setAttribute('aria-pressed', 'true');
  setStatus('playing', 'Playing…');
  tick();
}

function pause() {
  const was = playing;
  playing = false;
  clearTimeout(timer);
  ui.play.textContent = 'Play';
  ui.play.setAttribute('aria-pressed', 'false');
  if (was && session && !session.ended) setStatus('paused', `Paused at chunk ${next} of ${queue.length}.`);
}

// ---------------------------------------------------------------------------------------
// Drawing, at most once a frame.

let frame = 0;
function render(now = false) {
  if (now || session?.ended) {
    cancelAnimationFrame(frame);
    frame = 0;
    draw();
  } else if (!frame) {
    frame = requestAnimationFrame(() => {
      frame = 0;
      draw();
    });
  }
}

function draw() {
  if (!session) return;
  drawPanels(session.state, targets);
  const s = session;
  const us = s.feeds ? (s.feedMs * 1000) / s.feeds : 0;
  const wall = (performance.now() - startedAt) / 1000;
  const cells = [
    ['provider', s.state.provider],
    ['chunks fed', `${s.feeds} / ${queue.length}`],
    ['events', String(s.events)],
    ['µs per feed', us.toFixed(1)],
    ['events/s (router)', s.feedMs > 0 ? Math.round(s.events / (s.feedMs / 1000)).toLocaleString('en') : '–'],
    ['events/s (replay)', next && wall > 0 ? (s.events / wall).toFixed(0) : '–'],
    ['usage', s.state.usage ? `${s.state.usage.input_tokens ?? '?'} in · ${s.state.usage.output_tokens ?? '?'} out` : '–'],
    // Browsers coarsen performance.now() unless the page is cross-origin isolated.
    ['timer', globalThis.crossOriginIsolated ? 'isolated (5 µs)' : 'coarse (100 µs)'],
  ];
  ui.perf.replaceChildren(
    ...cells.map(([k, v]) => {
      const div = document.createElement('div');
      div.append(
        Object.assign(document.createElement('dt'), { textContent: k }),
        Object.assign(document.createElement('dd'), { textContent: v }),
      );
      return div;
    }),
  );
}

// ---------------------------------------------------------------------------------------
// The wire log: the events through the package's toSse(profile), byte for byte.

class SseLog {
  constructor(profile) {
    this.text = '';
    this.profile = profile;
    const ts = sr.toSse(profile, { heartbeatMs: 0 });
    this.writer = ts.writable.getWriter();
    const reader = ts.readable.getReader();
    const decoder = new TextDecoder();
    this.cancelled = false;
    document.body.dataset.log = 'open';
    this.done = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done || this.cancelled) break;
          this.text += decoder.decode(value, { stream: true });
          this.show();
        }
      } catch {
        return; // cancelled: the stream was aborted
      }
      if (!this.cancelled) {
        cancelAnimationFrame(this.pending);
        ui.log.textContent = this.text;
        document.body.dataset.log = 'flushed';
      }
    })();
    ui.logNote.textContent = `toSse("${profile}")`;
    this.show();
  }

  write(list) {
    for (const e of list) this.writer.write(e).catch(() => {});
  }

  close() {
    this.writer.close().catch(() => {});
  }

  cancel() {
    this.cancelled = true;
    cancelAnimationFrame(this.pending);
    this.writer.abort().catch(() => {});
  }

  show() {
    if (this.cancelled || this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      if (this.cancelled) return;
      ui.log.textContent = this.text || '(nothing on the wire yet)';
      ui.log.scrollTop = ui.log.scrollHeight;
    });
  }
}

ui.profile.addEventListener('change', () => {
  if (!log) return;
  log.cancel();
  log = new SseLog(ui.profile.value);
  log.write(events);
  if (session?.ended) log.close();
});

// ---------------------------------------------------------------------------------------
// The chunk-boundary explorer: the same bytes cut at other places give the same panels.

function splitAt(bytes, rand, max) {
  const out = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(rand() * max);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

function route(chunks) {
  const s = new Session(sr, source);
  for (const c of chunks) s.feed(c);
  s.finish();
  return s;
}

function explore() {
  if (!source) return;
  const n = Math.max(2, Math.min(200, Number(ui.runs.value) || 12));
  const base = route([source.bytes]);
  const want = panelHtml(base.state);
  const seed = (Date.now() % 100000) + 1;
  const rand = rng(seed);
  // One byte at a time costs a feed per byte: past 1 MB the smallest pieces are 1–4 bytes.
  const small = source.bytes.length <= 1 << 20;
  const plans = [
    ['whole (1 chunk)', [source.bytes]],
    small ? ['1 byte', splitAt(source.bytes, () => 0, 1)] : ['random 1–4 bytes', splitAt(source.bytes, rand, 4)],
  ];
  if (session?.ended) plans.push(['the replay above', null]);
  for (let i = plans.length; i < n; i++) {
    const max = [2, 3, 5, 8, 16, 64, 256][i % 7];
    plans.push([`random 1–${max} bytes`, splitAt(source.bytes, rand, max)]);
  }
  const rows = [];
  let same = true;
  for (const [label, chunks] of plans) {
    const s = chunks ? route(chunks) : session;
    const got = panelHtml(s.state);
    const cells = PANELS.map((p) => got[p] === want[p]);
    same &&= cells.every(Boolean);
    rows.push({ label, chunks: chunks ? chunks.length : s.feeds, us: s.feeds ? (s.feedMs * 1000) / s.feeds : 0, events: s.events, cells });
  }
  const th = (t) => Object.assign(document.createElement('th'), { textContent: t, scope: 'col' });
  const head = document.createElement('tr');
  head.append(th('split'), th('chunks'), th('events'), th('µs/feed'), ...PANELS.map(th));
  const body = rows.map((r) => {
    const tr = document.createElement('tr');
    const td = (t, cls) => Object.assign(document.createElement('td'), { textContent: t, className: cls ?? '' });
    tr.append(
      td(r.label),
      td(String(r.chunks)),
      td(String(r.events)),
      td(r.us.toFixed(1)),
      ...r.cells.map((ok, i) => {
        const cell = td(ok ? '✓' : '✗', ok ? 'same' : 'differs');
        cell.title = `${PANELS[i]}: ${ok ? 'same' : 'differs'}`;
        cell.setAttribute('aria-label', ok ? 'same' : 'differs');
        return cell;
      }),
    );
    return tr;
  });
  const thead = document.createElement('thead');
  const tbody = document.createElement('tbody');
  thead.append(head);
  tbody.append(...body);
  ui.explorer.replaceChildren(thead, tbody);
  ui.summary.dataset.identical = String(same);
  ui.summary.dataset.runs = String(rows.length);
  ui.summary.textContent = same
    ? `All ${rows.length} splittings (seed ${seed}) end with every panel identical.`
    : `Some splittings (seed ${seed}) end differently: see the ✗ cells.`;
}

// ---------------------------------------------------------------------------------------
// Choosing a stream.

async function choose(file) {
  if (file === '__custom') {
    $('#custom').open = true;
    ui.customText.focus();
    return;
  }
  const s = STREAMS.find((x) => x.file === file);
  const res = await fetch(s.url);
  source = { name: s.file, bytes: new Uint8Array(await res.arrayBuffer()), provider: 'auto', content: s.content, nonce: s.nonce };
  reset();
}

function loadCustom(bytes, name) {
  source = { name, bytes, provider: ui.customProvider.value, content: ui.customContent.value, nonce: ui.customNonce.value.trim() };
  ui.stream.value = '__custom';
  reset();
}

ui.stream.addEventListener('change', () => choose(ui.stream.value));
ui.play.addEventListener('click', () => (playing ? pause() : play()));
ui.step.addEventListener('click', () => {
  pause();
  if (!session || session.ended) reset();
  feedNext();
  if (session && !session.ended) setStatus('paused', `Stepped: chunk ${next} of ${queue.length}.`);
});
ui.restart.addEventListener('click', () => {
  reset();
  play();
});
ui.explore.addEventListener('click', explore);
ui.customLoad.addEventListener('click', () => loadCustom(new TextEncoder().encode(ui.customText.value), 'pasted stream'));
ui.customFile.addEventListener('change', async () => {
  const f = ui.customFile.files[0];
  if (f) loadCustom(new Uint8Array(await f.arrayBuffer()), f.name);
});
document.addEventListener('click', (ev) => {
  const b = ev.target.closest?.('button.action');
  if (!b) return;
  ui.clicked.textContent = `Suggested action: ${b.dataset.actionId} ${b.dataset.params}`;
  ui.clicked.dataset.actionId = b.dataset.actionId;
});
// Keyboard: k / space on the page toggles play, "." steps (not while typing).
document.addEventListener('keydown', (ev) => {
  if (ev.target.closest?.('input, textarea, select, button, summary') || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === 'k') ui.play.click();
  else if (ev.key === '.') ui.step.click();
  else return;
  ev.preventDefault();
});

const params = new URLSearchParams(location.search);
if (params.get('speed')) ui.speed.value = params.get('speed');
if (params.get('profile')) ui.profile.value = params.get('profile');
ui.stream.value = STREAMS.some((s) => s.file === params.get('stream')) ? params.get('stream') : STREAMS.at(-1).file;
await choose(ui.stream.value);
document.body.dataset.ready = 'true';
if (params.has('autoplay')) play();
