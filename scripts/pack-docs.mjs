// Copies the README, the licences and docs/ into pkg/ for the tarball. The docs' links that
// leave the package (the architecture notes, the demo's screenshots, the sources) become
// plain text naming the file in the source repository, so no link in the installed
// package leads nowhere.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'pkg');

for (const f of ['README.md', 'LICENSE-MIT', 'LICENSE-APACHE']) copyFileSync(join(root, f), join(pkg, f));

// What a link from docs/ may point at inside the package.
const shipped = (target) => target === 'README.md' || target.startsWith('docs/');

/** The markdown of `file` (in docs/) with every link out of the package made plain text. */
export function localise(text) {
  const outside = (href) => {
    if (/^[a-z]+:|^#/i.test(href)) return null;
    const path = href.split('#')[0];
    const target = normalize(join('docs', path)).replaceAll('\\', '/');
    return shipped(target) ? null : target;
  };
  return text
    .replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (link, bang, label, href) => {
      const target = outside(href);
      if (target === null) return link;
      return bang ? `*${label}* (an image in the source repository: \`${target}\`)` : `${label} (\`${target}\` in the source repository)`;
    })
    .replace(/<img [^>]*src="([^"]+)"[^>]*alt="([^"]*)"[^>]*>|<img [^>]*alt="([^"]*)"[^>]*src="([^"]+)"[^>]*>/g, (tag, s1, a1, a2, s2) => {
      const target = outside(s1 ?? s2);
      return target === null ? tag : `*${a1 ?? a2}* (an image in the source repository: \`${target}\`)`;
    });
}

rmSync(join(pkg, 'docs'), { recursive: true, force: true });
mkdirSync(join(pkg, 'docs'));
for (const name of readdirSync(join(root, 'docs'))) {
  if (!name.endsWith('.md')) continue;
  writeFileSync(join(pkg, 'docs', name), localise(readFileSync(join(root, 'docs', name), 'utf8')));
}
