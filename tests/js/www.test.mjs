// The demo page (www/) in headless Chromium over the packed and installed package: every
// bundled stream is played through the UI and each panel's final content is checked against
// an independent reading of the fixture (helpers/expected.mjs); then the wire profiles, the
// chunk-boundary explorer, a suggested action, the custom-stream input and both layouts
// (screenshots at 1280 and 390 px go to www/screenshots/, which the README shows).
// Run after ./setup-consumer.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG_DIR, ROOT, launchChromium, listen } from './helpers/runtimes.mjs';
import { NONCE, SAMPLES } from './helpers/streams.mjs';
import { expectedPanels } from './helpers/expected.mjs';
import { SseDecoder, StreamRouter } from 'streamroute';
import { demoHandler } from '../../www/serve.mjs';

const WWW = join(ROOT, 'www');
const SHOTS = join(WWW, 'screenshots');
const pageStreams = JSON.parse(readFileSync(join(WWW, 'streams', 'manifest.json'), 'utf8')).streams.map((s) => {
  const bytes = new Uint8Array(readFileSync(join(WWW, 'streams', s.file)));
  return { ...s, bytes, text: new TextDecoder().decode(bytes) };
});
const ALL = [...SAMPLES, ...pageStreams];

// The tagged content mode arrives with the router's tag support; until then the page says so.
const TAGGED = (() => {
  try {
    new StreamRouter({ content: 'tagged', nonce: NONCE }).free();
    return true;
  } catch {
    return false;
  }
})();

const requests = [];
let server;
let browser;
let page;
const consoleErrors = [];
const pageErrors = [];
const failed = [];
const urls = []; // every URL the page asked for

before(async () => {
  server = await listen(demoHandler({ pkgDir: PKG_DIR, onRequest: (r) => requests.push(r) }));
  browser = await launchChromium();
  page = await browser.context.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => pageErrors.push(String(e?.stack ?? e)));
  page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
  page.on('request', (r) => urls.push(r.url()));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.origin}/`, { waitUntil: 'load', timeout: 20_000 });
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
});

after(async () => {
  try {
    await browser?.close();
  } finally {
    await server?.close();
  }
});

/** Plays a stream through the UI at full speed and waits for the panels and the wire log. */
async function play(file, speed = 'max') {
  await page.selectOption('#stream', file);
  await page.waitForFunction((f) => document.querySelector('#meta').textContent.startsWith(f), file);
  await page.selectOption('#speed', speed);
  await page.click('#play');
  await page.waitForSelector('body[data-status="done"][data-log="flushed"]', { timeout: 15_000 });
}

/** What the panels show, read from the DOM. */
const readPanels = () =>
  page.evaluate(() => {
    const text = (sel) => document.querySelector(sel)?.textContent ?? '';
    const all = (sel, f) => [...document.querySelectorAll(sel)].map(f);
    return {
      answer: text('[data-testid="answer"]'),
      reasoning: text('[data-testid="reasoning"]'),
      thought: text('[data-testid="thought"]'),
      user: text('[data-testid="user"]'),
      headings: all('[data-testid="artifact-md"] h3, [data-testid="artifact-md"] h4', (e) => e.textContent),
      items: all('[data-testid="artifact-md"] li', (e) => e.textContent),
      errors: all('[data-testid="errors"] li', (e) => ({ code: e.querySelector('code').textContent, text: e.textContent })),
      tools: all('#tools li.tool', (e) => ({
        name: e.querySelector('.tool-name').textContent,
        args: JSON.parse(e.querySelector('.tool-args')?.textContent ?? 'null'),
        rows: Object.fromEntries([...e.querySelectorAll('.rows .row')].map((r) => [r.children[0].textContent, r.children[1].textContent])),
      })),
      done: text('[data-testid="done"] .pill'),
      nextStep: text('[data-testid="next-step"] code'),
      rawAnswer: document.querySelector('[data-testid="raw-answer"]')?.textContent ?? null,
      confidence: document.querySelector('[data-testid="confidence"]')?.dataset.value ?? null,
      sources: all('[data-testid="sources"] li', (e) => ({
        title: (e.querySelector('a') ?? e.firstChild).textContent,
        href: e.querySelector('a')?.getAttribute('href') ?? null,
      })),
      actions: all('[data-testid="actions"] button', (e) => ({
        id: e.dataset.actionId,
        label: e.textContent,
        params: JSON.parse(e.dataset.params),
      })),
      warnings: all('[data-testid="warnings"] li', (e) => e.textContent),
      marks: all('#artifact svg [data-value]', (e) => [e.dataset.series, e.dataset.category, Number(e.dataset.value)]),
      log: document.querySelector('#log').textContent,
      events: Number([...document.querySelectorAll('#perf div')].find((d) => d.firstChild.textContent === 'events')?.lastChild.textContent),
    };
  });

const decodeSse = (text) => {
  const d = new SseDecoder();
  return [...d.feed(text), ...d.finish()];
};

// The answer as the ai-sdk wire log carries it: the text-delta parts joined, but for the text
// parts marked as artifact or refusal text.
const aiSdkText = (log) => {
  const parts = decodeSse(log)
    .filter((f) => f.data !== '[DONE]')
    .map((f) => JSON.parse(f.data));
  const other = new Set(
    parts
      .filter((p) => p.type === 'text-start' && ['artifact_delta', 'refusal_delta'].includes(p.providerMetadata?.streamroute?.type))
      .map((p) => p.id),
  );
  return parts
    .filter((p) => p.type === 'text-delta' && !other.has(p.id))
    .map((p) => p.delta)
    .join('');
};

/** The leaves of a value as [path, value]: `a.b[0]`, or `(value)` for a value that is one. */
function leaves(v, path = '') {
  if (v === null || typeof v !== 'object') return [[path || '(value)', v]];
  return Object.entries(v).flatMap(([k, x]) => leaves(x, Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k));
}

test('every bundled stream ends with each panel showing what the fixture says', { timeout: 60_000 }, async () => {
  let played = 0;
  for (const s of ALL) {
    if (s.content === 'tagged' && !TAGGED) continue;
    await play(s.file);
    const got = await readPanels();
    const want = expectedPanels(s, NONCE);
    const at = `${s.file}: `;
    assert.equal(got.answer, want.answer, at + 'answer');
    assert.equal(got.reasoning, want.reasoning, at + 'reasoning');
    assert.equal(got.thought, want.thought, at + 'thought');
    if (s.content === 'tagged') {
      // Block text, with at most the newline that follows an opening tag / precedes a closing one.
      const inner = (t) => t.replace(/^\n/, '').replace(/\n$/, '');
      assert.equal(inner(got.user), inner(want.user), at + 'discussion');
      const md = want.artifact.split('\n');
      assert.deepEqual(
        got.headings,
        md.filter((l) => /^#+\s/.test(l)).map((l) => l.replace(/^#+\s+/, '')),
        at + 'artifact headings',
      );
      assert.deepEqual(
        got.items,
        md.filter((l) => /^\s*[-*+]\s/.test(l)).map((l) => l.replace(/^\s*[-*+]\s+/, '')),
        at + 'artifact list',
      );
    } else {
      assert.equal(got.user, '', at + 'no discussion');
    }
    assert.deepEqual(
      got.errors.map((e) => e.code),
      want.errors.map((e) => e.code),
      at + 'errors',
    );
    got.errors.forEach((e, i) => assert.ok(e.text.includes(want.errors[i].message), at + 'error message'));
    assert.deepEqual(
      got.tools.map(({ name, args }) => ({ name, args })),
      want.tools,
      at + 'tool calls',
    );
    // The PartialJson rows end with every leaf of the arguments.
    got.tools.forEach((t, i) => {
      for (const [k, v] of leaves(want.tools[i].args)) {
        assert.equal(t.rows[k], JSON.stringify(v), `${at}tool ${i} row ${k}`);
      }
    });
    assert.equal(got.done, want.ok ? 'done' : 'failed', at + 'done');
    if (want.nextNode && want.nextNode !== 'final_response') assert.equal(got.nextStep, want.nextNode, at + 'next step');
    if (want.final) {
      const f = want.final;
      assert.equal(got.rawAnswer, f.raw_answer, at + 'raw_answer');
      assert.equal(got.confidence === null ? null : Number(got.confidence), f.confidence, at + 'confidence');
      assert.deepEqual(
        got.sources,
        f.sources.map((x) => ({ title: x.title, href: x.url ? new URL(x.url).href : null })),
        at + 'sources',
      );
      assert.deepEqual(
        got.actions,
        f.suggested_actions.map((x) => ({ id: x.action_id, label: x.label, params: x.params ?? {} })),
        at + 'actions',
      );
      for (const w of f.warnings) assert.ok(got.warnings.includes(w), `${at}warning ${w}`);
      const charts = Object.values(f.artifacts)
        .flatMap((fields) => Object.values(fields))
        .filter((v) => v?.series);
      const marks = charts.flatMap((c) => c.series.flatMap((sr) => sr.data.map((v, i) => [sr.name, c.xAxis.data[i], v])));
      assert.deepEqual(got.marks, marks, at + 'chart');
    } else {
      assert.equal(got.rawAnswer, null, at + 'no payload');
    }
    // The default wire profile (ai-sdk) carries the same answer, ids counting from 1.
    const frames = decodeSse(got.log);
    assert.equal(frames.at(-1).data, '[DONE]', at + '[DONE]');
    frames.slice(0, -1).forEach((f, i) => assert.equal(f.id, String(i + 1), at + 'ids'));
    assert.equal(aiSdkText(got.log), got.answer + got.user, at + 'wire text');
    assert.ok(got.events > 0, at + 'perf readout');
    played++;
  }
  assert.ok(played >= 16, `${played} streams`);
});

test('wire profiles, step and pause, the explorer, a suggested action and a pasted stream', { timeout: 45_000 }, async () => {
  const sales = pageStreams[0];
  const want = expectedPanels(sales, NONCE);
  await play(sales.file);
  const profiles = {};
  for (const profile of ['planner', 'tagged', 'ai-sdk']) {
    await page.selectOption('#profile', profile);
    await page.waitForFunction(
      (p) => document.querySelector('#log-note').textContent === `toSse("${p}")` && document.body.dataset.log === 'flushed',
      profile,
    );
    await page.waitForFunction(() => document.querySelector('#log').textContent.length > 0);
    profiles[profile] = decodeSse(await page.textContent('#log'));
  }
  const data = (frames, name) => frames.filter((f) => f.event === name).map((f) => JSON.parse(f.data));
  // planner: llm_stream_chunk answer text, the step, the chart as an artifact_chunk, done with the payload.
  const p = profiles.planner;
  assert.equal(
    data(p, 'llm_stream_chunk')
      .filter((c) => c.channel === 'answer')
      .map((c) => c.text)
      .join(''),
    want.answer,
  );
  assert.equal(data(p, 'step')[0].node, 'final_response');
  const chunk = data(p, 'artifact_chunk')[0];
  assert.deepEqual(chunk.chunk, want.final.artifacts.analyze_sales.chart_options);
  assert.equal(chunk.done, true);
  const done = data(p, 'done')[0];
  assert.equal(done.answer, want.answer);
  assert.equal(done.payload.confidence, want.final.confidence);
  // tagged: user_delta text and a done frame.
  assert.equal(
    data(profiles.tagged, 'user_delta')
      .map((d) => d.text)
      .join(''),
    want.answer,
  );
  assert.equal(data(profiles.tagged, 'done')[0].ok, true);
  // ai-sdk: the finish part carries the payload.
  const parts = profiles['ai-sdk'].filter((f) => f.data !== '[DONE]').map((f) => JSON.parse(f.data));
  assert.equal(parts.at(-1).type, 'finish');
  assert.deepEqual(parts.at(-1).messageMetadata.payload.suggested_actions, want.final.suggested_actions);

  // A suggested action is a button that does something.
  await page.click('[data-action-id="compare_quarters"]');
  await page.waitForSelector('#clicked[data-action-id="compare_quarters"]');
  assert.match(await page.textContent('#clicked'), /compare_quarters \{"quarter":"Q3"\}/);

  // The chunk-boundary explorer: 1 byte, whole, the replay and random splits all agree.
  await page.fill('#runs', '10');
  await page.click('#explore');
  await page.waitForSelector('#explorer-summary[data-identical]');
  assert.equal(await page.getAttribute('#explorer-summary', 'data-identical'), 'true', await page.textContent('#explorer-summary'));
  assert.equal(await page.getAttribute('#explorer-summary', 'data-runs'), '10');
  assert.equal(await page.locator('#explorer td.differs').count(), 0);
  assert.ok((await page.locator('#explorer td', { hasText: '1 byte' }).count()) === 1);

  // Pause and single-step, by keyboard: Play at 1x, pause, then step chunk by chunk.
  await page.selectOption('#speed', '1');
  await page.focus('#restart');
  await page.keyboard.press('Enter');
  await page.waitForSelector('body[data-status="playing"]');
  await page.focus('#play');
  await page.keyboard.press('Space');
  await page.waitForSelector('body[data-status="paused"]');
  const fed = async () => Number((await page.textContent('#perf div:nth-child(2) dd')).split('/')[0]);
  const before = await fed();
  await page.focus('#step');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    (n) => Number(document.querySelector('#perf div:nth-child(2) dd').textContent.split('/')[0]) === n + 2,
    before,
  );
  assert.equal(await page.getAttribute('body', 'data-status'), 'paused');

  // A pasted stream, routed with the chosen provider and content mode.
  await page.click('#custom summary');
  const pasted =
    'data: {"choices":[{"delta":{"content":"Pasted "}}]}\n\ndata: {"choices":[{"delta":{"content":"stream ✓"}}]}\n\ndata: [DONE]\n\n';
  await page.fill('#custom-text', pasted);
  await page.selectOption('#custom-provider', 'openai-chat');
  await page.click('#custom-load');
  await page.selectOption('#speed', 'max');
  await page.click('#play');
  await page.waitForSelector('body[data-status="done"][data-log="flushed"]');
  assert.equal(await page.textContent('[data-testid="answer"]'), 'Pasted stream ✓');
  await page.click('#custom summary');
});

test('the multiplexed panel: one planner connection, five streams through fromSse and StreamMux', { timeout: 30_000 }, async () => {
  await page.click('#mux-play');
  await page.waitForSelector('#mux[data-mux="done"]', { timeout: 20_000 });
  const cards = await page.$$eval('#mux-streams .mux-stream', (els) =>
    els.map((e) => ({
      key: e.dataset.key,
      status: e.dataset.status,
      ended: e.dataset.ended,
      answer: e.querySelector('[data-testid="mux-answer"]')?.textContent ?? '',
      artifacts: [...e.querySelectorAll('[data-testid="mux-artifact"]')].map((a) => a.textContent),
    })),
  );
  assert.deepEqual(
    cards.map((c) => [c.key, c.status, c.ended]),
    [
      ['chat', 'done', 'true'],
      ['task-crawl', 'done', 'true'],
      ['artifact table', 'streaming', 'true'],
      ['task-index', 'error', 'true'],
      ['artifact chart', 'streaming', 'true'],
    ],
  );
  assert.equal(cards[0].answer, 'Revenue grew 15% in Q3, led by North America (see the chart).');
  assert.equal(cards[1].answer, 'Crawling the finance wiki… 3 pages read.');
  // Out of order and repeated seq: every chunk once, in order, nothing missing.
  assert.deepEqual(cards[2].artifacts, ['table: 4 chunks, seq ≤ 3, done']);
  assert.deepEqual(cards[4].artifacts, ['chart: 3 chunks, seq ≤ 2, done']);
  assert.match(await page.textContent('#mux-status'), /^5 streams on one connection, 5 ended\.$/);
});

test('live: stepping shows the answer growing and tool arguments filling in; a file upload', { timeout: 30_000 }, async () => {
  const s = SAMPLES.find((x) => x.file === 'openai-chat-tools.sse');
  const want = expectedPanels(s, NONCE);
  await page.selectOption('#stream', s.file);
  await page.waitForSelector('body[data-status="idle"]');
  const seen = { answers: new Set(), partialRows: 0, streaming: 0 };
  let steps = 0;
  for (let i = 0; i < 400; i++) {
    // One round trip per step: click Step, let the page draw its frame, read the panels.
    const now = await page.evaluate(async () => {
      document.querySelector('#step').click();
      await new Promise((r) => requestAnimationFrame(() => r()));
      return {
        status: document.body.dataset.status,
        answer: document.querySelector('[data-testid="answer"]')?.textContent ?? '',
        tools: [...document.querySelectorAll('#tools li.tool')].map((t) => ({
          live: !t.querySelector('.tool-args'),
          rows: [...t.querySelectorAll('.rows .row')].map((r) => [r.children[0].textContent, r.children[1].textContent]),
        })),
      };
    });
    assert.ok(want.answer.startsWith(now.answer), `answer so far is a prefix: ${JSON.stringify(now.answer)}`);
    seen.answers.add(now.answer);
    now.tools.forEach((t, k) => {
      if (!t.live) return;
      seen.streaming++;
      for (const [key, text] of t.rows) {
        const final = JSON.stringify(want.tools[k].args[key]);
        assert.ok(final.startsWith(text) || final === text, `row ${key}: ${text} vs ${final}`);
        if (text !== final) seen.partialRows++;
      }
    });
    steps++;
    if (now.status === 'done') break;
  }
  assert.equal(await page.getAttribute('body', 'data-status'), 'done', `${steps} steps`);
  assert.ok(seen.answers.size > 3, `the answer grew in ${seen.answers.size} steps`);
  assert.ok(
    seen.streaming > 3 && seen.partialRows > 0,
    `tool arguments filled in (${seen.streaming} streaming views, ${seen.partialRows} partial rows)`,
  );

  // A file picked with the file input is routed like a bundled one.
  const g = SAMPLES.find((x) => x.file === 'gemini-tools.sse');
  await page.evaluate(() => (document.querySelector('#custom').open = true));
  await page.selectOption('#custom-provider', 'auto');
  await page.selectOption('#custom-content', 'text');
  await page.setInputFiles('#custom-file', { name: 'upload.sse', mimeType: 'text/plain', buffer: Buffer.from(g.bytes) }, { timeout: 5000 });
  await page.waitForFunction(() => document.querySelector('#meta').textContent.startsWith('upload.sse'), null, { timeout: 5000 });
  await page.selectOption('#speed', 'max', { timeout: 5000 });
  await page.click('#play', { timeout: 5000 });
  await page.waitForSelector('body[data-status="done"][data-log="flushed"]', { timeout: 5000 });
  assert.equal(await page.textContent('[data-testid="answer"]', { timeout: 2000 }), expectedPanels(g, NONCE).answer);
});

test('layouts at 1280 and 390 px (screenshots), one wasm fetch per entry, no errors', { timeout: 30_000 }, async () => {
  mkdirSync(SHOTS, { recursive: true });
  await play(pageStreams[0].file);
  await page.selectOption('#profile', 'planner');
  await page.waitForSelector('body[data-log="flushed"]');
  await page.click('#explore');
  await page.waitForSelector('#explorer-summary[data-identical="true"]');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => window.scrollTo(0, 0));
    // Nothing sticks out sideways at this width.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${width}px: ${overflow}px horizontal overflow`);
    await page.screenshot({ path: join(SHOTS, `demo-${width}.png`), fullPage: width === 1280 });
  }
  // Readable contrast: every visible text against its background is at least WCAG AA
  // (4.5:1, or 3:1 for large text); the dark wire log included.
  const low = await page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const bg = (el) => {
      for (; el; el = el.parentElement) {
        const c = rgb(getComputedStyle(el).backgroundColor);
        if (c.length === 3 || c[3] > 0) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const bad = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || !el.getClientRects().length || el.closest('svg, .skip')) continue;
      const st = getComputedStyle(el);
      if (st.visibility === 'hidden') continue;
      const [a, b] = [lum(rgb(st.color).slice(0, 3)), lum(bg(el))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const large = parseFloat(st.fontSize) >= 24 || (parseFloat(st.fontSize) >= 18.66 && Number(st.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) bad.push(`${el.tagName}.${el.className} "${n.textContent.trim().slice(0, 30)}": ${ratio.toFixed(2)}`);
    }
    return bad;
  });
  assert.deepEqual(low, [], 'text below the WCAG AA contrast ratio');

  // Every control can be reached with Tab.
  const reached = new Set();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(() => document.activeElement?.blur());
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    reached.add(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName));
  }
  for (const id of ['stream', 'speed', 'profile', 'play', 'step', 'restart', 'runs', 'explore'])
    assert.ok(reached.has(id), `Tab reaches #${id}`);

  const wasm = requests.filter((r) => r.path.endsWith('.wasm'));
  assert.deepEqual(
    wasm.sort((a, b) => a.path.localeCompare(b.path)),
    [
      { path: '/streamroute/dist/client/streamroute_bg.wasm', status: 200, type: 'application/wasm' },
      { path: '/streamroute/dist/payload/streamroute_bg.wasm', status: 200, type: 'application/wasm' },
      { path: '/streamroute/dist/streamroute/streamroute_bg.wasm', status: 200, type: 'application/wasm' },
    ],
    "each entry's wasm is fetched once",
  );
  assert.ok(
    requests.every((r) => r.status === 200),
    JSON.stringify(requests.filter((r) => r.status !== 200)),
  );
  assert.deepEqual(
    urls.filter((u) => !u.startsWith(`${server.origin}/`)),
    [],
    'nothing but the local server (works offline)',
  );
  assert.deepEqual(pageErrors, [], 'page errors');
  assert.deepEqual(consoleErrors, [], 'console errors');
  assert.deepEqual(failed, [], 'failed requests');
});
