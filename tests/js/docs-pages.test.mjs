// Every code block of README.md and docs/*.md runs, or says why not. The fence's words after the
// language decide what happens to a block:
//
//   ```js            runs under Node as an ES module written next to tests/js/node_modules, so its
//                    `import ... from 'streamroute/sse'` loads the packed package
//                    (./setup-consumer.sh). Its standard output is checked: each `// → TEXT`
//                    comment (after a statement or on a line of its own) is one line of output,
//                    in order; or, when the next block is a ```text prints block, the output is
//                    that block's text. A runnable block says what it prints (at least a line).
//   ```text prints   what the block just before it prints.
//   ```js example    the text of a file in examples/: readme.test.mjs checks it is that file,
//   ```html example  byte for byte, and runs it (Node, Chromium, workerd).
//   ```tsx chromium  the React components of docs/client.md, type-checked and rendered by docs.test.mjs.
//   ```html preload  the preload examples of docs/client.md, run by preload.test.mjs (a page,
//   ```js preload    a Vite app).
//   ```sh no-run     not run: shell commands, type signatures, fragments that need a server or a
//   ```js no-run     key. Use it sparingly.
//
// Any other block fails this test, so no example is skipped silently. The examples of a page
// that documents one entry (docs/sse.md, ...) import from that entry only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fencedBlocks } from './helpers/markdown.mjs';

const JS_DIR = dirname(new URL(import.meta.url).pathname);
const ROOT = resolve(JS_DIR, '..', '..');
const TMP = join(JS_DIR, '.tmp', 'docs-pages');
const ARROW = /\/\/ → (.*)$/;
const RUNNABLE = new Set(['js']);

/** The entries the docs describe: the brief list of the package, and any subpath its exports add. */
function entries() {
  const { exports } = JSON.parse(readFileSync(join(ROOT, 'pkg', 'package.json'), 'utf8'));
  const names = new Set(['streamroute', 'sse', 'json', 'tags', 'payload', 'planning']);
  for (const [subpath, target] of Object.entries(exports)) {
    if (subpath === '.') continue;
    if (typeof target === 'object' && target.types) names.add(subpath.slice(2));
  }
  return [...names];
}

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** The lines a block says it prints: its `// →` comments, or the `prints` block after it. */
function expectedOutput(block, next, where) {
  const arrows = block.content
    .split('\n')
    .map((l) => ARROW.exec(l)?.[1])
    .filter((t) => t !== undefined);
  const prints = next?.marks.includes('prints') ? next : null;
  assert.ok(!(arrows.length && prints), `${where}: both \`// →\` comments and a prints block`);
  if (prints) return prints.content + '\n';
  assert.ok(
    arrows.length > 0,
    `${where}: a runnable block that says nothing of what it prints (add \`// → …\`, a prints block, or mark it no-run)`,
  );
  return arrows.map((t) => t + '\n').join('');
}

/** Classifies every block of a page: `{ block, run, want }` for the runnable ones. */
function plan(page) {
  const blocks = fencedBlocks(readFileSync(join(ROOT, page), 'utf8'), page);
  const runs = [];
  blocks.forEach((block, i) => {
    const where = `${page}:${block.line}`;
    const [mark, ...extra] = block.marks;
    assert.deepEqual(extra, [], `${where}: one mark at most`);
    if (mark === 'no-run' || mark === 'example') return;
    if (mark === 'chromium') {
      assert.ok(page === 'docs/client.md' && block.lang === 'tsx', `${where}: docs.test.mjs renders only docs/client.md's tsx block`);
      return;
    }
    if (mark === 'preload') {
      assert.ok(
        page === 'docs/client.md' && ['html', 'js'].includes(block.lang),
        `${where}: preload.test.mjs runs only docs/client.md's preload blocks`,
      );
      return;
    }
    if (mark === 'prints') {
      const before = blocks[i - 1];
      assert.ok(before && RUNNABLE.has(before.lang) && before.marks.length === 0, `${where}: a prints block after no runnable block`);
      return;
    }
    assert.equal(mark, undefined, `${where}: unknown mark "${mark}"`);
    assert.ok(RUNNABLE.has(block.lang), `${where}: a \`${block.lang || '(no language)'}\` block that is neither run nor marked no-run`);
    runs.push({ block, where, want: expectedOutput(block, blocks[i + 1], where) });
  });
  return runs;
}

/** The entry a page documents (docs/sse.md → "sse"), or null for the other pages. */
function pageEntry(page) {
  const m = /^docs\/([a-z]+)\.md$/.exec(page);
  return m && entries().includes(m[1]) && m[1] !== 'streamroute' ? m[1] : null;
}

test('the convention fails a block it cannot place', () => {
  const page = join(TMP, 'bad.md');
  mkdirSync(TMP, { recursive: true });
  const cases = {
    '```sh\nls\n```\n': /neither run nor marked no-run/,
    '```js\nconsole.log(1);\n```\n': /says nothing of what it prints/,
    '```js skip\n1\n```\n': /unknown mark "skip"/,
    '```text prints\n1\n```\n': /a prints block after no runnable block/,
    '```js\nconsole.log(1); // → 1\n```\n\n```text prints\n1\n```\n': /both/,
  };
  for (const [markdown, error] of Object.entries(cases)) {
    writeFileSync(page, markdown);
    assert.throws(() => plan(`tests/js/.tmp/docs-pages/bad.md`), error, markdown);
  }
});

for (const page of PAGES) {
  test(`${page}: every runnable block prints what the page says`, { timeout: 120_000 }, async (t) => {
    const runs = plan(page);
    const entry = pageEntry(page);
    mkdirSync(TMP, { recursive: true });
    for (const { block, where, want } of runs) {
      await t.test(where, () => {
        const imports = [...block.content.matchAll(/from '(streamroute[^']*)'/g)].map((m) => m[1]);
        if (entry) assert.deepEqual([...new Set(imports)], [`streamroute/${entry}`], `${where}: imports from its entry`);
        for (const name of imports) {
          assert.ok(name === 'streamroute' || entries().includes(name.slice('streamroute/'.length)), `${where}: ${name} is no entry`);
        }
        const file = join(TMP, `${page.replace(/\W/g, '-')}-${block.line}.mjs`);
        writeFileSync(file, block.content + '\n');
        const stdout = execFileSync(process.execPath, [file], { cwd: TMP, encoding: 'utf8', timeout: 30_000 });
        assert.equal(stdout, want, where);
      });
    }
  });
}

test('README.md is a page of at most 12 KB', () => {
  assert.ok(readFileSync(join(ROOT, 'README.md')).length <= 12_000);
});

// The entries documented in a section of another entry's page: the page and the section's anchor.
const SECTION_OF = { react: ['docs/client.md', '#react'] };

test('each entry has its page, its row in the README and a link to it', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const entry of entries()) {
    const [file, anchor] = SECTION_OF[entry] ?? [`docs/${entry}.md`, ''];
    const page = file + anchor;
    assert.ok(existsSync(join(ROOT, file)), `${file} exists`);
    if (anchor) assert.match(readFileSync(join(ROOT, file), 'utf8'), new RegExp(`^## ${anchor.slice(1)}$`, 'im'), `${file} has ${anchor}`);
    const name = entry === 'streamroute' ? 'streamroute' : `streamroute/${entry}`;
    assert.ok(readme.includes(`| [\`${name}\`](${page}) |`), `README's entry table has ${name}`);
  }
});

test('every relative link of README.md and docs/ leads to a file, every docs/ page is linked', () => {
  const linked = new Set();
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)|src="([^"]+)"/g)) {
      const target = m[1] ?? m[2];
      if (/^[a-z]+:/.test(target) || target.startsWith('#')) continue;
      const file = resolve(ROOT, dirname(page), target.split('#')[0]);
      assert.ok(existsSync(file), `${page}: a link to ${target}, which is not there`);
      linked.add(file);
    }
  }
  for (const page of PAGES.slice(1)) assert.ok(linked.has(join(ROOT, page)), `${page} is linked from README.md or docs/`);
});

// What each entry's part of the API reference must show (its module page links each name).
const REFERENCE = {
  streamroute: [
    'StreamRouter',
    'routeResponse',
    'toSse',
    'connectSse',
    'structuredRequest',
    'assistantTurn',
    'fromSse',
    'StreamState',
    'StreamMux',
    'SseDecoder',
    'TagFilter',
  ],
  sse: ['SseDecoder', 'SseEncoder', 'connectSse'],
  json: ['AnswerExtractor', 'LlmStreamChunker', 'PartialJson', 'JsonItemStream', 'parseJson', 'repairJson', 'normalizeAction'],
  tags: ['TagFilter', 'parseTagged', 'TaggedTurn', 'TagEventWriter', 'makeNonce'],
  payload: ['validateFinalPayload', 'buildFinalPayload', 'ArtifactCollector', 'ArtifactStream', 'collectSources'],
  planning: ['ToolIndex', 'validateRequirements', 'narrowTools', 'checkCoverage'],
  react: ['useSseStream', 'useStreamState'],
};
// What every entry with a wasm build has (the React hooks have none of their own).
const SHARED = ['init', 'version', 'buildInfo', 'StreamrouteError'];
const NO_WASM = new Set(['react']);

test('scripts/api-docs: the reference of the packed package has a page per entry and per class and function', { timeout: 120_000 }, () => {
  const pkgDir = realpathSync(join(JS_DIR, 'node_modules', 'streamroute'));
  const out = join(JS_DIR, '.tmp', 'api');
  execFileSync(join(ROOT, 'scripts', 'api-docs'), [pkgDir, out], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 100_000 });
  const { exports } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const present = Object.entries(exports)
    .filter(([, t]) => t?.types)
    .map(([p]) => (p === '.' ? 'streamroute' : p.slice(2)));
  assert.ok(present.includes('streamroute'));
  const pages = (dir) => readdirSync(join(out, dir));
  for (const entry of present) {
    const name = entry === 'streamroute' ? 'streamroute' : `streamroute/${entry}`;
    const file = join(out, 'modules', `${name.replaceAll('/', '_')}.html`);
    assert.ok(existsSync(file), `a page for ${name}`);
    const html = readFileSync(file, 'utf8');
    for (const symbol of [...(REFERENCE[entry] ?? []), ...(NO_WASM.has(entry) ? [] : SHARED)]) {
      assert.match(html, new RegExp(`>${symbol}<`), `${name}'s page names ${symbol}`);
    }
  }
  // Every class and function named above has its own page, in whichever module holds it.
  const all = [...new Set([...Object.values(REFERENCE).flat(), ...SHARED])];
  for (const symbol of all) {
    const kind = /^[A-Z]/.test(symbol) ? 'classes' : 'functions';
    assert.ok(
      pages(kind).some((f) => f.endsWith(`.${symbol}.html`)),
      `a page for ${symbol} in ${kind}/`,
    );
  }
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /<title>streamroute \d/);
});
