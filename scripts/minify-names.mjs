// Gives the glue the short import and export names that `wasm-opt
// --minify-imports-and-exports-and-modules` gave the .wasm (scripts/lib.sh `build_wasm`).
// wasm-bindgen names each import `__wbg_<name>_<16 hex digits>` and each export after its Rust
// item, and both the .wasm and the glue spell every name out: the hex digits do not compress,
// and the long names cost gzip size in the .wasm and the JS of every entry (bench/README "Sizes
// by entry"; bench/README.md, "Measurements behind design choices"). The map is what
// wasm-opt prints: `{ imports: [[module, name, new]], exports:
// [[name, new]] }`.
//
// The glue reads exports as `wasm.<name>` and declares imports as the keys of the object that
// `__wbg_get_imports` returns. Every such name is renamed, and the script exits non-zero when
// the glue does not have that shape (a wasm-bindgen upgrade must revisit this) or when any name
// is left over, never renaming halfway.
//
// Usage: node minify-names.mjs MAP.json GLUE.js
import { readFileSync, writeFileSync } from 'node:fs';

const [mapFile, file] = process.argv.slice(2);
const map = JSON.parse(readFileSync(mapFile, 'utf8'));
let glue = readFileSync(file, 'utf8');
const fail = (why) => {
  console.error(`minify-names: ${why} in ${file}`);
  process.exit(1);
};

// Exports: `wasm.<name>`, the only way the glue reads them.
const exports = new Map(map.exports);
const shortNames = new Set(exports.values());
glue = glue.replace(/\bwasm\.([A-Za-z_$][\w$]*)/g, (_, name) => {
  const short = exports.get(name);
  if (short === undefined) fail(`wasm.${name} is not an export of the .wasm`);
  return `wasm.${short}`;
});
if (/\bwasm\s*\[/.test(glue)) fail('an export read by a computed name');

// Imports: the keys of the import objects in `__wbg_get_imports`, then the module names.
const fn = /^function __wbg_get_imports\(\) \{\n[\s\S]*?\n\}\n/m;
const body = glue.match(fn)?.[0];
if (body === undefined) fail('no __wbg_get_imports');
let renamed = body;
for (const [, name, short] of map.imports) {
  const key = new RegExp(`^(\\s+)${name.replace(/\$/g, '\\$')}(: function\\()`, 'gm');
  const hits = renamed.match(key)?.length ?? 0;
  if (hits !== 1) fail(`${hits} declarations of the import ${name} (expected 1)`);
  renamed = renamed.replace(key, (_, indent, rest) => `${indent}${short}${rest}`);
}
// wasm-opt names every import module `a`: the glue must have one import object.
const modules = new Set(map.imports.map(([module]) => module));
if (modules.size !== 1) fail(`${modules.size} import modules (expected 1)`);
const [module] = modules;
const entry = `${JSON.stringify(module)}: import0,`;
if (renamed.split(entry).length !== 2) fail(`no single import object for ${module}`);
renamed = renamed.replace(entry, '"a": import0,');
glue = glue.replace(body, () => renamed);

// What the rename must leave: no long export name read, and no short name that is not one.
for (const m of glue.matchAll(/\bwasm\.([A-Za-z_$][\w$]*)/g)) {
  if (!shortNames.has(m[1])) fail(`wasm.${m[1]} left after the rename`);
}
writeFileSync(file, glue);
