// Fenced code blocks of a Markdown page, for the tests that run the docs' examples.
import assert from 'node:assert/strict';

/**
 * The fenced code blocks of a Markdown text: `{ lang, marks, content, line, label, section }`.
 * `lang` is the fence's first word, `marks` the words after it (```js no-run → ['no-run']),
 * `label` the paragraph line just before the block and `section` the `## ` heading above it.
 */
export function fencedBlocks(markdown, name = 'markdown') {
  const lines = markdown.split('\n');
  const blocks = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    if (/^## /.test(lines[i])) section = lines[i].slice(3).trim();
    const open = /^(`{3,}|~{3,})\s*([^\s`~]*)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, fence, lang, rest] = open;
    const close = new RegExp(`^${fence[0]}{${fence.length},}\\s*$`);
    let j = i + 1;
    while (j < lines.length && !close.test(lines[j])) j++;
    assert.ok(j < lines.length, `${name}:${i + 1}: unclosed code fence`);
    let k = i - 1; // the paragraph just before the block says what it is
    while (k >= 0 && lines[k].trim() === '') k--;
    blocks.push({
      lang,
      marks: rest.trim().split(/\s+/).filter(Boolean),
      content: lines.slice(i + 1, j).join('\n'),
      line: i + 1,
      label: k >= 0 ? lines[k] : '',
      section,
    });
    i = j;
  }
  return blocks;
}
